"""Real parts for the daemon's tests: a `perfatlas serve` that can be stopped and started again
on the same port and database (a server restart), enrollment, jobs queued through the server's
own service, and `perfatlas-agent daemon` processes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
from sqlalchemy import select

from perfatlas.agents.models import Agent
from perfatlas.auth.service import create_token
from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.workload import WorkloadSpec
from perfatlas.jobs.service import enqueue
from tests.agent.conftest import agent_cmd
from tests.conftest import IDLE_QUEUE, REDIS_URL, _free_port, patient
from tests.databases import db_name, drop_database, migrated_database

T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 60.0) -> T:
    """Polls probe() until it returns something truthy; fails naming what it waited for."""
    timeout = patient(timeout)
    deadline = time.monotonic() + timeout
    last: T | None = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what} (last: {last!r})")


class RestartableServer:
    def __init__(self, log_dir: Path, suffix: str, *, queue: str = IDLE_QUEUE) -> None:
        """`queue`: the Celery queue its tasks go to (an idle one unless a test runs a worker)."""
        self.queue = queue
        self.name = db_name(suffix)
        self.database_url = migrated_database(self.name)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_dir = log_dir
        factory = session_factory(get_engine(self.database_url))
        made = {}
        for scope in ("read", "admin"):
            with factory() as session:
                made[scope] = create_token(session, name=f"daemon-{scope}", scope=scope)[1]
        self.read_token, self.admin_token = made["read"], made["admin"]
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        env = {
            **os.environ, "PERFATLAS_DATABASE_URL": self.database_url,
            "PERFATLAS_PORT": str(self.port), "PERFATLAS_BROKER_URL": REDIS_URL,
            "PERFATLAS_QUEUE": self.queue,
        }  # fmt: skip
        self.starts += 1
        log = (self.log_dir / f"server-{self.starts}.log").open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "perfatlas", "serve", "--no-migrate"], env=env, stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        log.close()

        def up() -> bool:
            assert self.proc is not None and self.proc.poll() is None, "serve exited"
            try:
                return httpx.get(f"{self.url}/api/v1/health", timeout=5).status_code == 200
            except httpx.TransportError:
                return False

        # Budgets here are for a machine with every core busy (load 18 on 2 cores took a
        # server past 30 s to answer); they cost nothing when things go well.
        wait_for("the server to answer", up, timeout=180)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=120)  # its own shutdown (a first-run helper's) on a busy machine
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def close(self) -> None:
        self.stop()
        get_engine(self.database_url).dispose()
        drop_database(self.name)

    # ---- the API, as a person ------------------------------------------------------------

    def get(self, path: str, **params: Any) -> Any:
        response = httpx.get(
            f"{self.url}/api/v1{path}", params=params, timeout=10,
            headers={"Authorization": f"Bearer {self.admin_token}"},
        )  # fmt: skip
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return httpx.post(
            f"{self.url}/api/v1{path}", json=body, timeout=10,
            headers={"Authorization": f"Bearer {self.admin_token}"},
        )  # fmt: skip

    def job(self, job_id: int) -> dict[str, Any]:
        job: dict[str, Any] = self.get(f"/jobs/{job_id}")
        return job

    def runs_of(self, agent: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page = self.get(
                "/runs", agent=agent, limit=500, **({"cursor": cursor} if cursor else {})
            )
            items += page["items"]
            cursor = page.get("next_cursor")
            if not cursor:
                return items

    def enrollment_token(self, **labels: str) -> str:
        response = self.post("/agents/enrollment-tokens", {"labels": labels, "expires_in_hours": 1})
        assert response.status_code == 201, response.text
        token: str = response.json()["token"]
        return token

    def enqueue(self, agent: str, spec: dict[str, Any], selector: tuple[str, ...] = ()) -> int:
        """A job for `agent`, queued by the server's own service (as a schedule's firing).
        Without a selector it is pinned to the agent: an empty selector picks every agent, so
        a job released in one test would otherwise be taken by another test's daemon."""
        factory = session_factory(get_engine(self.database_url))
        with factory() as session:
            row = session.scalar(select(Agent).where(Agent.name == agent))
            assert row is not None, f"no agent {agent}"
            (job,) = enqueue(
                session,
                spec=WorkloadSpec.model_validate(spec),
                agents=[row],
                selector=selector,
                pinned=not selector,
            )
            session.commit()
            return int(job.id)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_AGENT_MIN_SECONDS"] = "0"
    env.update(extra)
    return env


def enroll(server: RestartableServer, config_dir: Path, name: str, *labels: str) -> None:
    token = server.enrollment_token()
    args = ["enroll", "--server", server.url, "--enrollment-token", token, "--name", name,
            "--config-dir", str(config_dir)]  # fmt: skip
    for label in labels:
        args += ["--label", label]
    proc = subprocess.run(agent_cmd(*args), capture_output=True, text=True, env=clean_env(),
                          timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr


class DaemonProcess:
    def __init__(self, config_dir: Path, spool: Path, log: Path, claim_wait: int = 25) -> None:
        self.log_path = log
        self._log = log.open("w")
        self.proc = subprocess.Popen(
            agent_cmd("daemon", "--config-dir", str(config_dir), "--spool", str(spool),
                      "--claim-wait", str(claim_wait)),
            env=clean_env(), stdout=self._log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def log(self) -> str:
        return self.log_path.read_text()

    def signal(self, signum: int) -> None:
        self.proc.send_signal(signum)

    def wait(self, timeout: float = 60) -> int:
        code = self.proc.wait(timeout=timeout)
        self._log.close()
        return code

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


def command_spec(target: Path, cmd: str, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "workload": "command", "targets": [str(target)], "params": {"cmd": cmd},
        "repetitions": 1, "labels": {}, "min_seconds": 0, "warmup": False,
    }  # fmt: skip
    for key, value in extra.items():
        if key in spec and isinstance(spec[key], dict):
            spec[key].update(value)
        else:
            spec[key] = value
    return spec


def agent_json(config_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((config_dir / "agent.json").read_text())
    return data


def kill_group_in(pid_file: Path) -> None:
    """The process groups a test's commands wrote their shell's pid to (`echo $$ >> file`): a
    command runs in a session of its own, so a daemon killed by SIGKILL leaves it behind."""
    if pid_file.exists():
        for pid in pid_file.read_text().split():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(pid), signal.SIGKILL)
