"""The workload spec: what to run, where, with which sweep. The same JSON as the server's
WorkloadSpec (backend/perfatlas/jobs/spec.py; the agent imports no server code, so the shape
and bounds are mirrored here): a schedule's jobs and `perfatlas-agent run --spec FILE.json`.

{"workload": "smallfile", "targets": ["/mnt/a", "/mnt/b"],
 "params": {"size": ["4k", "64k"], "count": 1000}, "repetitions": 3,
 "labels": {"version": "1.2"}, "min_seconds": 0.5, "warmup": true}

Lists sweep (cartesian product); runs = len(targets) × the product of the list lengths."""

from __future__ import annotations

import json
import math
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import ParameterError, SpecError
from perfatlas_agent.measure.sweep import RunRequest

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_WORKLOAD = re.compile(r"^[a-z][a-z0-9_\-]*$")
MAX_POINTS = 10_000
FIELDS = ("workload", "targets", "params", "repetitions", "labels", "min_seconds", "warmup")

Scalar = str | int | float | bool


@dataclass(frozen=True)
class WorkloadSpec:
    workload: str
    targets: list[str]
    params: dict[str, Scalar | list[Scalar]] = field(default_factory=dict)
    repetitions: int = 3
    labels: dict[str, str] = field(default_factory=dict)
    min_seconds: float = 0.5
    warmup: bool = True

    def points(self) -> int:
        """Runs one agent makes of this spec: targets × the product of the list lengths."""
        n = len(self.targets)
        for given in self.params.values():
            n *= len(given) if isinstance(given, list) else 1
        return n

    def requests(
        self, *, agent_name: str | None = None, extra_labels: dict[str, str] | None = None,
        force: bool = False,
    ) -> list[RunRequest]:  # fmt: skip
        """One RunRequest per target, in the spec's order."""
        labels = {**self.labels, **(extra_labels or {})}
        params = {k: _texts(v) for k, v in self.params.items()}
        return [
            RunRequest(
                workload=self.workload,
                target=Path(target),
                params=dict(params),
                repetitions=self.repetitions,
                labels=dict(labels),
                warmup=self.warmup,
                force=force,
                min_seconds=self.min_seconds,
                agent_name=agent_name or socket.gethostname(),
            )
            for target in self.targets
        ]


def _text(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _texts(value: Scalar | list[Scalar]) -> list[str]:
    """Every value as a one-item or longer list: a spec's text never splits on its commas."""
    return [_text(v) for v in value] if isinstance(value, list) else [_text(value)]


def _scalar(where: str, value: Any) -> Scalar:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) >= 2**63:
            raise SpecError(where, f"{value} is out of range")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SpecError(where, f"{value} is not a finite number")
        return value
    if isinstance(value, str):
        if len(value) > 4096:
            raise SpecError(where, "longer than 4096 characters")
        return value
    raise SpecError(where, f"expected a string, number or boolean, not {type(value).__name__}")


def _name(where: str, name: Any) -> str:
    if not isinstance(name, str) or not _NAME.match(name) or len(name) > 64:
        raise SpecError(where, f"bad name {name!r}: letters, digits, . _ - (at most 64)")
    return name


def _int(where: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SpecError(where, f"expected a whole number from {low} to {high}, not {value!r}")
    return value


def parse_spec(data: Any) -> WorkloadSpec:
    """Check a spec's shape and bounds (as the server does); the workload's own parameters are
    checked when it is planned (plan_runs), where the workloads are known."""
    if not isinstance(data, dict):
        raise SpecError("(spec)", "expected a JSON object")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise SpecError(unknown[0], f"unknown field; known: {', '.join(FIELDS)}")
    workload = data.get("workload")
    if not isinstance(workload, str) or not _WORKLOAD.match(workload) or len(workload) > 64:
        raise SpecError("workload", f"expected a workload name, not {workload!r}")
    targets = data.get("targets")
    if not isinstance(targets, list) or not 1 <= len(targets) <= 64:
        raise SpecError("targets", "expected a list of 1 to 64 folders")
    for i, target in enumerate(targets):
        if not isinstance(target, str) or not 1 <= len(target) <= 1024:
            raise SpecError(f"targets[{i}]", f"expected a folder path, not {target!r}")
    raw_params = data.get("params", {})
    if not isinstance(raw_params, dict):
        raise SpecError("params", "expected an object of name: value or [values]")
    params: dict[str, Scalar | list[Scalar]] = {}
    for key, given in raw_params.items():
        name = _name(f"params.{key}", key)
        if isinstance(given, list):
            if not 1 <= len(given) <= 1000:
                raise SpecError(f"params.{name}", "a list sweeps 1 to 1000 values")
            params[name] = [_scalar(f"params.{name}[{i}]", v) for i, v in enumerate(given)]
        else:
            params[name] = _scalar(f"params.{name}", given)
    raw_labels = data.get("labels", {})
    if not isinstance(raw_labels, dict):
        raise SpecError("labels", "expected an object of name: text")
    labels: dict[str, str] = {}
    for key, value in raw_labels.items():
        name = _name(f"labels.{key}", key)
        if not isinstance(value, str) or len(value) > 256:
            raise SpecError(f"labels.{name}", "expected a text of at most 256 characters")
        labels[name] = value
    min_seconds = data.get("min_seconds", 0.5)
    if (
        isinstance(min_seconds, bool)
        or not isinstance(min_seconds, int | float)
        or not 0 <= min_seconds <= 3600
    ):
        raise SpecError("min_seconds", f"expected seconds from 0 to 3600, not {min_seconds!r}")
    warmup = data.get("warmup", True)
    if not isinstance(warmup, bool):
        raise SpecError("warmup", f"expected true or false, not {warmup!r}")
    spec = WorkloadSpec(
        workload=workload, targets=list(targets), params=params,
        repetitions=_int("repetitions", data.get("repetitions", 3), 1, 1000), labels=labels,
        min_seconds=float(min_seconds), warmup=warmup,
    )  # fmt: skip
    if spec.points() > MAX_POINTS:
        raise SpecError(
            "params", f"the sweep expands to {spec.points()} runs; at most {MAX_POINTS}"
        )
    return spec


def load_specs(path: Path) -> list[WorkloadSpec]:
    """One spec (an object) or several (a list of them: `perfatlas-agent study spec`)."""
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise ParameterError(f"cannot read the spec {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ParameterError(f"the spec {path} is not JSON: {exc}") from exc
    if not isinstance(data, list):
        return [parse_spec(data)]
    if not 1 <= len(data) <= 1000:
        raise SpecError("(spec)", "a list holds 1 to 1000 specs")
    specs: list[WorkloadSpec] = []
    for i, item in enumerate(data):
        try:
            specs.append(parse_spec(item))
        except SpecError as exc:
            raise SpecError(f"[{i}].{exc.field}", str(exc).split(": ", 1)[1]) from exc
    return specs
