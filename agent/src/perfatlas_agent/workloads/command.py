"""command: run any command with {param} substitution and read the metrics it prints as JSON."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import ParameterError, WorkloadError
from perfatlas_agent.measure.attachments import AttachmentFile
from perfatlas_agent.measure.metrics import Direction, Metric
from perfatlas_agent.measure.params import ParamSpec, ParamValue, SizeText, as_written
from perfatlas_agent.workloads.base import RunContext, Workload
from perfatlas_agent.workloads.toolchain import Toolchain, find_files

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
TIME_UNITS = {"s", "ms", "us", "ns"}


def substitute(
    template: str, params: dict[str, ParamValue], labels: dict[str, str] | None = None
) -> str:
    """Replace {name} for known parameters and labels only, so JSON braces in the command
    survive. A name is never both (check_labels refuses that)."""
    labels = labels or {}

    def repl(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "workdir":
            return m.group(0)
        if key in params:
            return as_written(params[key])
        if key in labels:
            return labels[key]
        return m.group(0)

    return _PLACEHOLDER.sub(repl, template)


def env_name(prefix: str, name: str) -> str:
    """PERFATLAS_PARAM_SEGSIZE, PERFATLAS_LABEL_FS_VERSION (for the label fs.version)."""
    return prefix + re.sub(r"[^A-Za-z0-9_]", "_", name).upper()


def _run_shell(cmd: str, *, cwd: Path, env: dict[str, str], timeout: float) -> tuple[int, str, str]:
    """The command in a process group of its own, killed whole when the agent stops waiting
    (a timeout, Ctrl-C, a cancelled job), so nothing it started writes on after the cleanup."""
    proc = subprocess.Popen(
        ["/bin/sh", "-c", cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return proc.returncode, out, err


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
            "shell command; {name} is replaced by the parameter or label name",
            sweepable=False,
        ),
        ParamSpec("timeout", "float", 3600.0, "seconds before the command is killed"),
    )

    def check(self, params: dict[str, ParamValue]) -> None:
        if not params.get("cmd"):
            raise ParameterError("command needs --param cmd='...'")

    def check_labels(self, params: dict[str, ParamValue], labels: dict[str, str]) -> None:
        both = sorted(set(params) & set(labels))
        if both:
            raise ParameterError(
                f"{', '.join(both)} is both a label and a parameter; a command's {{name}} "
                "takes one or the other: rename one of them"
            )
        if "workdir" in labels:
            raise ParameterError("the label name workdir is reserved ({workdir} is the folder)")

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        return {"fsync_policy": "unknown"}

    def prepare(self, ctx: RunContext) -> None:
        # Untimed: the scripts the command names are read (and hashed) once, before it runs.
        template = str(ctx.params["cmd"])
        cmd = substitute(template, ctx.params, ctx.labels).replace("{workdir}", str(ctx.workdir))
        ctx.scratch["toolchain"] = Toolchain(template=template, command=cmd, files=find_files(cmd))

    def attachments(self, ctx: RunContext) -> list[AttachmentFile]:
        toolchain: Toolchain | None = ctx.scratch.get("toolchain")
        return toolchain.attachments() if toolchain is not None else []

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        cmd = substitute(str(ctx.params["cmd"]), ctx.params, ctx.labels)
        cmd = cmd.replace("{workdir}", str(rep_dir))
        env = dict(os.environ, PERFATLAS_WORKDIR=str(rep_dir))
        for key, value in ctx.params.items():
            env[env_name("PERFATLAS_PARAM_", key)] = as_written(value)
        for key, label in ctx.labels.items():
            env[env_name("PERFATLAS_LABEL_", key)] = label
        written = {k: v.text for k, v in ctx.params.items() if isinstance(v, SizeText)}
        if written:
            # Stored in bytes (a numeric axis); the command was given them as written.
            ctx.meta["params_as_written"] = written
        ctx.phase("command")
        t0 = time.perf_counter_ns()
        try:
            returncode, stdout, stderr = _run_shell(
                cmd, cwd=rep_dir, env=env, timeout=float(ctx.params["timeout"])
            )
        except subprocess.TimeoutExpired as exc:
            raise WorkloadError(f"command timed out after {exc.timeout}s: {cmd}") from exc
        secs = (time.perf_counter_ns() - t0) / 1e9
        toolchain: Toolchain | None = ctx.scratch.get("toolchain")
        if toolchain is not None:
            toolchain.record(rep_dir.name, cmd, stdout or "", stderr or "")
        if returncode != 0:
            raise WorkloadError(f"command exited {returncode}: {cmd}\n{(stderr or '')[-500:]}")
        metrics = parse_output(stdout)
        metrics.setdefault("command.seconds", Metric(secs, "s"))
        ctx.meta["command"] = cmd
        if stderr:
            ctx.meta["stderr_tail"] = stderr[-2000:]
        return metrics
