"""The workload spec: what to run, where, with which parameter sweep. One shape for a schedule,
a job, a study and the agent's `run --spec FILE.json`, so all of them say the same thing.

The agent checks a spec's parameters against its workloads (the server does not know them);
the server checks the shape and bounds, and counts the runs a spec expands to."""

from __future__ import annotations

import math
import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

ParamValue = Annotated[str, Field(max_length=4096)] | int | float | bool
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
MAX_POINTS = 10_000  # runs one spec may expand to (targets × parameter combinations)


class WorkloadSpec(BaseModel):
    """`params` maps a name to one value or a list of values; lists sweep as a cartesian
    product. Labels go on every run and are substituted into a `command`'s `{name}` like
    parameters (and exported as PERFATLAS_LABEL_<NAME>), without being part of the series."""

    model_config = ConfigDict(extra="forbid")

    workload: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z][a-z0-9_\-]*$")]
    targets: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=1024)]],
        Field(min_length=1, max_length=64),
    ]
    params: dict[
        str, ParamValue | Annotated[list[ParamValue], Field(min_length=1, max_length=1000)]
    ] = Field(default_factory=dict)
    repetitions: Annotated[int, Field(ge=1, le=1000)] = 3
    labels: dict[str, Annotated[str, Field(max_length=256)]] = Field(default_factory=dict)
    min_seconds: Annotated[float, Field(ge=0, le=3600)] = 0.5
    warmup: bool = True

    @field_validator("params", "labels")
    @classmethod
    def _names(cls, value: dict[str, object]) -> dict[str, object]:
        for name in value:
            if not _NAME.match(name) or len(name) > 64:
                raise ValueError(f"bad name {name!r}: letters, digits, . _ - (at most 64)")
        return value

    @field_validator("params")
    @classmethod
    def _finite(cls, value: dict[str, object]) -> dict[str, object]:
        for name, given in value.items():
            for v in given if isinstance(given, list) else [given]:
                if isinstance(v, float) and not math.isfinite(v):
                    raise ValueError(f"{name}: {v} is not a finite number")
                if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2**63:
                    raise ValueError(f"{name}: {v} is out of range")
        return value

    @model_validator(mode="after")
    def _bounded(self) -> WorkloadSpec:
        if self.points() > MAX_POINTS:
            raise ValueError(f"the sweep expands to {self.points()} runs; at most {MAX_POINTS}")
        return self

    def points(self) -> int:
        """Runs one agent makes of this spec: targets × the product of the list lengths."""
        n = len(self.targets)
        for given in self.params.values():
            n *= len(given) if isinstance(given, list) else 1
        return n
