"""command: run any command with {param} substitution and read the metrics it prints as JSON."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

from perfatlas_agent._exceptions import ParameterError, WorkloadError
from perfatlas_agent.measure import Direction, Metric
from perfatlas_agent.params import ParamSpec, ParamValue, SizeText, as_written
from perfatlas_agent.workloads.base import RunContext, Workload

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
TIME_UNITS = {"s", "ms", "us", "ns"}


def substitute(template: str, params: dict[str, ParamValue]) -> str:
    """Replace {name} for known parameters only, so JSON braces in the command survive."""

    def repl(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "workdir" or key not in params:
            return m.group(0)
        return as_written(params[key])

    return _PLACEHOLDER.sub(repl, template)


def parse_output(stdout: str) -> dict[str, Metric]:
    """The whole output as one JSON object, else the last line that is one."""
    data: Any = None
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError:
        for line in reversed(stdout.strip().splitlines()):
            try:
                data = json.loads(line)
                break
            except json.JSONDecodeError:
                continue
    if not isinstance(data, dict):
        raise WorkloadError("the command printed no JSON object of metrics")
    if isinstance(data.get("metrics"), dict):
        data = data["metrics"]
    out: dict[str, Metric] = {}
    for name, raw in data.items():
        if not _NAME.match(name):
            raise WorkloadError(f"metric name {name!r} is not allowed (letters, digits, . _ -)")
        if isinstance(raw, bool):
            raise WorkloadError(f"metric {name} is a boolean, not a number")
        if isinstance(raw, int | float):
            unit = "s" if name.endswith(("seconds", "_s")) else "1"
            out[name] = Metric(float(raw), unit, None if unit == "s" else "higher")
        elif isinstance(raw, dict) and isinstance(raw.get("value"), int | float):
            unit = str(raw.get("unit", "1"))
            given = raw.get("direction")
            direction: Direction | None
            if given in ("higher", "lower"):
                direction = "higher" if given == "higher" else "lower"
            elif given is None:
                slow_or_fast = unit in TIME_UNITS or unit.endswith("/s")
                direction = None if slow_or_fast else "higher"
            else:
                raise WorkloadError(f"metric {name}: direction must be higher or lower")
            out[name] = Metric(float(raw["value"]), unit, direction)
        else:
            raise WorkloadError(f"metric {name}: expected a number or {{value, unit, direction}}")
    return out


class Command(Workload):
    name = "command"
    description = "any command; {param} substituted; prints metrics as JSON on stdout"
    accepts_extra_params = True
    params = (
        ParamSpec(
            "cmd",
            "str",
            None,
            "shell command; {name} is replaced by parameter name",
            sweepable=False,
        ),
        ParamSpec("timeout", "float", 3600.0, "seconds before the command is killed"),
    )

    def check(self, params: dict[str, ParamValue]) -> None:
        if not params.get("cmd"):
            raise ParameterError("command needs --param cmd='...'")

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        return {"fsync_policy": "unknown"}

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        cmd = substitute(str(ctx.params["cmd"]), ctx.params).replace("{workdir}", str(rep_dir))
        env = dict(os.environ, PERFATLAS_WORKDIR=str(rep_dir))
        for key, value in ctx.params.items():
            env[f"PERFATLAS_PARAM_{key.upper()}"] = as_written(value)
        written = {k: v.text for k, v in ctx.params.items() if isinstance(v, SizeText)}
        if written:
            # Stored in bytes (a numeric axis); the command was given them as written.
            ctx.meta["params_as_written"] = written
        ctx.phase("command")
        t0 = time.perf_counter_ns()
        try:
            proc = subprocess.run(
                ["/bin/sh", "-c", cmd],
                cwd=rep_dir,
                env=env,
                capture_output=True,
                text=True,
                timeout=float(ctx.params["timeout"]),
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise WorkloadError(f"command timed out after {exc.timeout}s: {cmd}") from exc
        secs = (time.perf_counter_ns() - t0) / 1e9
        if proc.returncode != 0:
            raise WorkloadError(
                f"command exited {proc.returncode}: {cmd}\n{(proc.stderr or '')[-500:]}"
            )
        metrics = parse_output(proc.stdout)
        metrics.setdefault("command.seconds", Metric(secs, "s"))
        ctx.meta["command"] = cmd
        if proc.stderr:
            ctx.meta["stderr_tail"] = proc.stderr[-2000:]
        return metrics
