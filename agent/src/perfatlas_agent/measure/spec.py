"""The workload spec: what to run, where, with which sweep. The server's WorkloadSpec
(backend/perfatlas/core/workload.py), checked against the JSON Schema the server publishes for it
(components.schemas.WorkloadSpec of its OpenAPI document), a copy of which is kept beside this
module (workload_spec.schema.json; a test fails when the two differ): a schedule's jobs and
`perfatlas-agent run --spec FILE.json`. The agent imports no server code.

{"workload": "smallfile", "targets": ["/mnt/a", "/mnt/b"],
 "params": {"size": ["4k", "64k"], "count": 1000}, "repetitions": 3,
 "labels": {"version": "1.2"}, "min_seconds": 0.5, "warmup": true}

Lists sweep (cartesian product); runs = len(targets) × the product of the list lengths."""

from __future__ import annotations

import functools
import json
import math
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import ParameterError, SpecError
from perfatlas_agent.measure.schema import Checker
from perfatlas_agent.measure.sweep import RunRequest

SCHEMA_FILE = "workload_spec.schema.json"
# The words of the messages, by field (the bounds are the schema's).
NOUNS = {
    "": "a JSON object",
    "workload": "a workload name",
    "targets": "folders",
    "targets[]": "a folder path",
    "params": "an object of name: value or [values]",
    "labels": "an object of name: text",
    "min_seconds": "seconds",
}
# What the server checks in code (its WorkloadSpec's validators), which no JSON Schema says;
# tests/agent/measure/test_spec_schema.py runs the same specs through both.
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
MAX_POINTS = 10_000

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


@functools.cache
def schema() -> dict[str, Any]:
    """The server's published schema of a spec, as kept in the package."""
    loaded: dict[str, Any] = json.loads(Path(__file__).with_name(SCHEMA_FILE).read_text())
    return loaded


@functools.cache
def _checker() -> Checker:
    return Checker(schema(), NOUNS)


def _in_range(where: str, value: Scalar) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise SpecError(where, f"{value} is not a finite number")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        raise SpecError(where, f"{value} is out of range")


def parse_spec(data: Any) -> WorkloadSpec:
    """Check a spec's shape and bounds (as the server does); the workload's own parameters are
    checked when it is planned (plan_runs), where the workloads are known."""
    checked = _checker().check(data)
    for section in ("params", "labels"):
        for name in checked.get(section, {}):
            if not _NAME.match(name) or len(name) > 64:
                raise SpecError(f"{section}.{name}",
                                f"bad name {name!r}: letters, digits, . _ - (at most 64)")  # fmt: skip
    params: dict[str, Scalar | list[Scalar]] = checked.get("params", {})
    for name, given in params.items():
        if isinstance(given, list):
            for i, value in enumerate(given):
                _in_range(f"params.{name}[{i}]", value)
        else:
            _in_range(f"params.{name}", given)
    spec = WorkloadSpec(
        workload=checked["workload"], targets=list(checked["targets"]), params=dict(params),
        repetitions=checked["repetitions"], labels=dict(checked.get("labels", {})),
        min_seconds=float(checked["min_seconds"]), warmup=checked["warmup"],
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
