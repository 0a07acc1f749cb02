"""Request and response bodies of the job protocol (agents) and the jobs API (people)."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from perfatlas.core.inputs import INT32_MAX, json_object, no_nul
from perfatlas.core.measurement import MAX_BATCH_RUNS, ParamValue, RunCreate
from perfatlas.core.schemas import Name, StrictModel
from perfatlas.core.workload import WorkloadSpec

MAX_LOG_LINES = 200  # lines one call may send
MAX_LOG_LINE = 2000  # characters of one line
LogLine = Annotated[str, StringConstraints(max_length=MAX_LOG_LINE), AfterValidator(no_nul)]
LogLines = Annotated[list[LogLine], Field(max_length=MAX_LOG_LINES)]
Attempt = Annotated[int, Field(ge=1, le=INT32_MAX, description="the attempt the claim gave")]
Count = Annotated[int, Field(ge=0, le=INT32_MAX)]


class ClaimedJob(BaseModel):
    id: int
    attempt: int
    kind: str
    spec: WorkloadSpec
    lease_seconds: float
    lease_until: dt.datetime
    progress_every: float = Field(description="send progress at least this often (seconds)")
    plan: dict[str, Any] | None = Field(
        default=None,
        description="a confirm job's plan: run rounds of its variants (candidate, baseline) "
        "in turns, post each to /jobs/{id}/rounds until it says continue=false",
    )


class ProgressIn(StrictModel):
    attempt: Attempt
    phase: Annotated[str, StringConstraints(max_length=64)] | None = None
    percent: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None
    point: Annotated[dict[Name, ParamValue], AfterValidator(json_object)] | None = Field(
        default=None, max_length=100, description="the parameters of the run in progress"
    )
    done: Count | None = None
    total: Count | None = None
    log: LogLines = Field(default_factory=list, description="new log lines since the last call")


class ProgressOut(BaseModel):
    lease_until: dt.datetime
    cancel: bool = Field(description="stop, clean up and complete with status cancelled")


class CompleteIn(StrictModel):
    attempt: Attempt
    status: Literal["succeeded", "failed", "cancelled"]
    error: Annotated[str, StringConstraints(max_length=10_000)] | None = None
    log: LogLines = Field(default_factory=list)
    runs: list[RunCreate] = Field(default_factory=list, max_length=MAX_BATCH_RUNS)


class ReleaseIn(StrictModel):
    attempt: Attempt
    reason: Annotated[str, StringConstraints(max_length=2000)] = ""


class JobRead(BaseModel):
    id: int
    kind: str
    status: str
    schedule_id: int | None
    schedule_name: str | None
    fire_at: dt.datetime | None
    agent: str = Field(description="the agent the job was made for")
    leased_by: str | None = Field(description="the agent holding (or that last held) its lease")
    spec: dict[str, Any]
    attempts: int
    max_attempts: int
    lease_until: dt.datetime | None
    cancel_requested: bool
    progress: dict[str, Any]
    log_tail: list[str]
    error: str | None
    created_at: dt.datetime
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    expires_at: dt.datetime | None
    runs: list[uuid_mod.UUID] = Field(description="the runs stored for this job")
    alert_id: int | None
    verdict: str | None
    plan: dict[str, Any] | None = Field(description="a confirm job's plan")
    points: int = Field(description="runs the spec expands to on one agent")


class JobPage(BaseModel):
    items: list[JobRead]
    next_cursor: str | None
