"""The measurement model: a run as agents and importers send it (RunCreate), its results
(ResultCreate), and the words both use. Every way in (uploads, imports, job completion,
confirmation rounds, reference tables) stores this shape."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StringConstraints, field_validator, model_validator

from perfatlas.core.inputs import (
    INT32_MAX,
    MAX_MAGNITUDE,
    bigint,
    check_int,
    invalid,
    json_object,
    run_time,
)
from perfatlas.core.schemas import (
    ClosedModel,
    JsonObject,
    MetricName,
    Name,
    ParamText,
    ShortText,
    StrictModel,
)
from perfatlas.core.units import KNOWN_UNITS, Direction, implied_direction

# The most runs one request may store (a batch, or one import).
MAX_BATCH_RUNS = 1000


# Checked inside pydantic-core: a Python validator here would run once per sample.
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
# A sample or value: summed and squared by the statistics, so bounded (core.inputs).
Measurement = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_MAGNITUDE, le=MAX_MAGNITUDE)]
# NUL and integer range are checked on the whole parameters object, outside the union.
ParamValue = bool | int | FiniteFloat | ParamText
Workload = Name
RunStatus = Literal["ok", "failed", "partial"]
FsyncPolicy = Literal["none", "file", "end", "data", "unknown"]
# The kernel's words (/sys/block/*/queue/write_cache); enabled/disabled from older agents are
# stored as write back/write through.
WriteCache = Literal["write back", "write through", "enabled", "disabled", "unknown"]
ColdMethod = Literal["drop_caches", "fadvise", "fresh_files", "remount", "none", "unknown"]


def _known_unit(value: str) -> str:
    if value not in KNOWN_UNITS:
        raise ValueError(f"unknown unit {value!r}; known units: {', '.join(sorted(KNOWN_UNITS))}")
    return value


Unit = Annotated[str, AfterValidator(_known_unit)]


def column_int(value: Any) -> int | None:
    """An environment value as the integer its column stores (None: the column stays empty)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdecimal() and len(value.strip()) <= 30:
        return int(value.strip())
    return None


class ResultCreate(ClosedModel):
    """One metric of a run: every repetition is a sample; `value` defaults to their median.
    The run that holds it completes it (RunCreate._consistent): a direction left out is the
    one its unit implies, and it needs samples, a value, or both. A validator of its own ran
    once per result, and calling it cost a large upload a fifth of its validation."""

    metric: MetricName
    unit: Unit
    direction: Direction | None = Field(
        default=None, description="higher or lower is better; implied by time and rate units"
    )
    value: Measurement | None = None
    samples: list[Measurement] = Field(default_factory=list, max_length=10_000)


def _complete(results: list[ResultCreate]) -> None:
    """Each result's direction from its unit where it gives none, and a refusal (naming the
    result) of one with no direction to imply, or with neither samples nor a value."""
    for index, result in enumerate(results):
        if not result.samples and result.value is None:
            raise invalid("give samples, a value, or both", ("results", index))
        if result.direction is None:
            implied = implied_direction(result.unit)
            if implied is None:
                raise invalid(
                    f"direction is required for unit {result.unit!r} (higher or lower is better)",
                    ("results", index, "direction"),
                )
            # Written straight into the instance, as pydantic's __setattr__ would (which costs
            # more than the rest of this loop).
            result.__dict__["direction"] = implied
            result.__pydantic_fields_set__.add("direction")


class RunCreate(StrictModel):
    uuid: uuid_mod.UUID = Field(description="chosen by the client; a retry with it is idempotent")
    workload: Workload
    agent: Annotated[str, StringConstraints(min_length=1, max_length=128)] = Field(
        description="the machine (agent name) the run ran on"
    )
    agent_version: Annotated[str, StringConstraints(max_length=64)] | None = None
    target: Annotated[str, StringConstraints(min_length=1, max_length=1024)]
    parameters: Annotated[dict[Name, ParamValue], AfterValidator(json_object)] = Field(
        default_factory=dict, max_length=100
    )
    labels: dict[Name, ShortText] = Field(default_factory=dict, max_length=100)
    started_at: dt.datetime
    finished_at: dt.datetime | None = None
    status: RunStatus = "ok"
    fsync_policy: FsyncPolicy | None = None
    o_direct: bool | None = None
    sync_mount: bool | None = None
    write_cache: WriteCache | None = None
    flush_to_device: bool | None = Field(
        default=None,
        description="whether a flush (fsync) reaches stable storage: false on memory, and when "
        "the kernel's write cache mode is write through over a device that still caches",
    )
    memory_backed: bool | None = Field(
        default=None, description="the target is memory (tmpfs, ramfs): nothing is durable"
    )
    cold_method: ColdMethod | None = None
    environment: JsonObject = Field(
        default_factory=dict,
        description="what the run ran on (kernel, os, cpu, device, fs...), free-form JSON",
    )
    meta: JsonObject = Field(
        default_factory=dict, description="anything else worth keeping (tool versions, raw logs)"
    )
    job_id: Annotated[int | None, AfterValidator(bigint)] = None
    results: list[ResultCreate] = Field(default_factory=list, max_length=1000)

    @field_validator("started_at", "finished_at")
    @classmethod
    def _run_time(cls, value: dt.datetime | None) -> dt.datetime | None:
        return None if value is None else run_time(value)

    @field_validator("environment")
    @classmethod
    def _environment_columns(cls, value: dict[str, Any]) -> dict[str, Any]:
        # These keys are copied into INTEGER/BIGINT columns when they read as integers.
        for key, high in (("cores", INT32_MAX), ("ram_bytes", 2**63 - 1)):
            number = column_int(value.get(key))
            if number is not None:
                check_int(number, low=-(high + 1), high=high, path=(key,))
        return value

    @model_validator(mode="after")
    def _consistent(self) -> RunCreate:
        _complete(self.results)
        if self.finished_at is not None and self.finished_at < self.started_at:
            raise ValueError("finished_at is before started_at")
        seen: set[str] = set()
        for result in self.results:
            if result.metric in seen:
                raise ValueError(f"metric {result.metric!r} appears twice")
            seen.add(result.metric)
        return self


class RunBatchCreate(StrictModel):
    runs: list[RunCreate] = Field(min_length=1, max_length=MAX_BATCH_RUNS)
