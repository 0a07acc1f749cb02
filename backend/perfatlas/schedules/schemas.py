"""Request and response bodies of the schedules API."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from perfatlas.core.inputs import check_json
from perfatlas.core.schemas import StrictModel
from perfatlas.core.workload import WorkloadSpec


def _storable(spec: WorkloadSpec) -> WorkloadSpec:
    # No NUL in its texts (PostgreSQL cannot store one): the 422 names the key, body.spec.targets[0].
    check_json(spec.model_dump(mode="json"))
    return spec


Spec = Annotated[WorkloadSpec, AfterValidator(_storable)]
# An agent's name, or label=value.
SelectorItem = Annotated[
    str,
    StringConstraints(
        min_length=1,
        max_length=400,
        pattern=r"^([^=\x00]{1,128}|[A-Za-z_][A-Za-z0-9_.\-]{0,63}=[^\x00]{0,256})$",
    ),
]
Selector = Annotated[
    list[SelectorItem],
    Field(
        min_length=1,
        max_length=200,
        description='agent names and/or "label=value": an agent matches when it is one of the '
        "names given (if any) and has every label given",
    ),
]
Name = Annotated[str, StringConstraints(min_length=1, max_length=128)]
WhenText = Annotated[
    str,
    StringConstraints(min_length=1, max_length=128),
    Field(
        description='"now", an ISO 8601 time (without an offset: read in `timezone`), or '
        '"cron:<minute> <hour> <day of month> <month> <day of week>" read in `timezone`'
    ),
]
Zone = Annotated[
    str,
    StringConstraints(min_length=1, max_length=64),
    Field(description="an IANA time zone name: Europe/Paris, America/New_York, UTC"),
]


class ScheduleCreate(StrictModel):
    name: Name
    spec: Spec
    agents: Selector
    when: WhenText
    timezone: Zone = "UTC"
    paused: bool = False


class ScheduleUpdate(StrictModel):
    """Any of the fields; those not given (or null) stay as they are."""

    name: Name | None = None
    spec: Spec | None = None
    agents: Selector | None = None
    when: WhenText | None = None
    timezone: Zone | None = None
    paused: bool | None = None


class SchedulePreviewIn(StrictModel):
    spec: Spec
    agents: Selector
    when: WhenText
    timezone: Zone = "UTC"


class SchedulePreview(BaseModel):
    runs_per_agent: int = Field(description="targets × parameter combinations of the spec")
    matching_agents: list[str] = Field(description="the enrolled agents the selector picks")
    runs_total: int = Field(description="runs per agent × matching agents, at each firing")
    next_firings: list[dt.datetime] = Field(description="the next (at most five) firings, UTC")


class FiringSummary(BaseModel):
    fire_at: dt.datetime
    jobs: dict[str, int] = Field(description="how many of the firing's jobs are in each status")


class ScheduleRead(BaseModel):
    id: int
    name: str
    spec: WorkloadSpec
    agents: list[str]
    when: str
    timezone: str
    paused: bool
    next_fire_at: dt.datetime | None = Field(description="None: a one-off that has fired")
    last_fired_at: dt.datetime | None
    created_at: dt.datetime
    updated_at: dt.datetime
    matching_agents: list[str]
    runs_per_agent: int
    last_firing: FiringSummary | None


class ScheduleList(BaseModel):
    items: list[ScheduleRead]


class FiringJob(BaseModel):
    id: int
    agent: str
    status: str
    percent: float | None


class Firing(BaseModel):
    fire_at: dt.datetime
    jobs: list[FiringJob]


class FiringPage(BaseModel):
    items: list[Firing]
    next_cursor: str | None
