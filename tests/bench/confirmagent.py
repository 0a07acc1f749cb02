"""An agent for bench_confirm.py: enrolled with `perfatlas-agent enroll` through an enrollment
token from the API, running `perfatlas-agent daemon` in a folder of its own, and the spec of
its schedules: a command that reads `{version}` and prints ops, 20 % slower on the new version
or while a marker file counts slow repetitions down, with noise seeded by the seed and the
invocation's number on this agent (the daemon runs one command at a time)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx


def versions(number: int) -> tuple[str, str]:
    """The old and new version of repeat `number`: a change of its own, so that its alert opens
    an incident of its own (incidents group alerts by cause, across agents)."""
    return f"{number}.1", f"{number}.2"


LEVEL, SLOW_LEVEL = 1000.0, 800.0


def agent_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    return {**env, "PERFATLAS_AGENT_MIN_SECONDS": "0"}


class Machine:
    """A new agent, enrolled with `perfatlas-agent enroll`, running `perfatlas-agent daemon`
    in a folder of its own."""

    def __init__(
        self, api: httpx.Client, base: str, root: Path, name: str, *, seed: int,
        repetitions: int, slow_version: str, claim_wait: str = "",
    ) -> None:  # fmt: skip
        self.name, self.root = name, root
        self.seed, self.repetitions, self.slow_version = seed, repetitions, slow_version
        self.marker, self.counter = root / "slow", root / "invocations"
        root.mkdir(parents=True)
        made = api.post("/api/v1/agents/enrollment-tokens",
                        json={"labels": {}, "expires_in_hours": 1}).raise_for_status()  # fmt: skip
        config = root / "config"
        subprocess.run(
            [sys.executable, "-m", "perfatlas_agent", "enroll", "--server", base,
             "--enrollment-token", made.json()["token"], "--name", name,
             "--config-dir", str(config)],
            env=agent_env(), check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        wait = ["--claim-wait", claim_wait] if claim_wait else []
        self.log = (root / "daemon.log").open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "perfatlas_agent", "daemon", "--config-dir", str(config),
             "--spool", str(root / "spool"), *wait],
            env=agent_env(), stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def spec(self, version: str) -> dict[str, Any]:
        """Slow on slow_version, or while the marker holds a count of slow repetitions left."""
        cmd = (
            f"n=$(cat {self.marker} 2>/dev/null || echo 0); slow=0; "
            f'if [ "$n" -gt 0 ]; then echo $((n - 1)) > {self.marker}; slow=1; fi; '
            f"i=$(( $(cat {self.counter} 2>/dev/null || echo 0) + 1 )); echo $i > {self.counter}; "
            f"awk -v v={{version}} -v slow=$slow -v s=$(({self.seed} + i)) 'BEGIN {{srand(s); "
            f'x = ((v == "{self.slow_version}" || slow == 1) ? {SLOW_LEVEL:g} : {LEVEL:g}) '
            "* (1 + (rand() - 0.5) / 50); "
            'printf("{\\"ops\\": %.3f}\\n", x)}\''
        )
        return {"workload": "command", "targets": [str(self.root / "target")],
                "params": {"cmd": cmd}, "repetitions": self.repetitions,
                "labels": {"version": version}, "min_seconds": 0, "warmup": False}  # fmt: skip

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
