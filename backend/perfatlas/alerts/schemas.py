"""Request and response bodies of the alerts, incidents and rules API."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints, model_validator

from perfatlas.confirm.schemas import ConfirmationRead
from perfatlas.core.schemas import StrictModel
from perfatlas.runs.schemas import SeriesRef

AlertStatus = Literal["open", "acknowledged", "expected", "resolved", "confirming"]
AlertKind = Literal["regression", "improvement", "stopped"]
Resolution = Literal[
    "stepped_back", "withdrawn", "manual", "not_confirmed", "unconfirmed", "resumed"
]
IncidentStatus = Literal["open", "resolved"]
Note = Annotated[str, StringConstraints(max_length=2000)]
Matcher = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class Change(BaseModel):
    before: Any = None
    after: Any = None


def changes(diff: dict[str, dict[str, Any]] | None) -> dict[str, Change] | None:
    """A stored {key: {before, after}} diff (a cause) as the API shows it."""
    return {key: Change(**change) for key, change in diff.items()} if diff else None


class RunRef(BaseModel):
    uuid: uuid_mod.UUID
    started_at: dt.datetime
    labels: dict[str, str]
    environment_id: int | None


class AlertRead(BaseModel):
    id: int
    status: AlertStatus
    resolution: Resolution | None
    kind: AlertKind
    series: SeriesRef
    incident_id: int | None
    before: float = Field(description="level before the change, in the series' unit")
    after: float = Field(description="level after the change (fixed once confirmed)")
    change_pct: float | None
    confidence: float
    tentative: bool = Field(description="fewer than 6 points follow the change: it may move")
    points_after: int
    cause: dict[str, Change] | None = Field(
        description="environment/label keys that changed with the step (dotted names)"
    )
    change_at: dt.datetime
    change_run: RunRef = Field(description="the first run after the change")
    previous_run: RunRef | None = Field(description="the last run before the change")
    resolved_by_run: RunRef | None
    note: str | None
    status_changed_at: dt.datetime
    status_changed_by: str | None
    created_at: dt.datetime
    updated_at: dt.datetime
    resolved_at: dt.datetime | None
    confirmation: ConfirmationRead | None = Field(
        default=None,
        description="the re-run of a regression on a scheduled series before it alerts "
        "(status confirming until its verdict)",
    )


class AlertPage(BaseModel):
    items: list[AlertRead]
    next_cursor: str | None = Field(description="pass as cursor to get the next page")
    counts: dict[str, int] = Field(description="alerts per status under the other filters")


class AlertPoints(BaseModel):
    """The series around the change, as columns; `change_index` is the first point after it."""

    started_at: list[dt.datetime]
    value: list[float]
    p5: list[float]
    p95: list[float]
    run_uuid: list[uuid_mod.UUID]
    change_index: int | None


class Differences(BaseModel):
    """What differs between the last run before the change and the first one after it."""

    environment: dict[str, Change]
    parameters: dict[str, Change]
    labels: dict[str, Change]
    durability: dict[str, Change]


class AlertDetail(AlertRead):
    points: AlertPoints
    differences: Differences


class StatusUpdate(StrictModel):
    """A person's triage: acknowledge, mark expected (say why in the note), reopen, resolve."""

    status: AlertStatus
    note: Note | None = None


class IncidentRead(BaseModel):
    id: int
    title: str
    status: IncidentStatus
    agent: str | None
    cause: dict[str, Change] | None
    opened_at: dt.datetime
    resolved_at: dt.datetime | None
    updated_at: dt.datetime
    alert_counts: dict[str, int] = Field(description="the incident's alerts per status")


class IncidentPage(BaseModel):
    items: list[IncidentRead]
    next_cursor: str | None


class IncidentDetail(IncidentRead):
    alerts: list[AlertRead]


class RuleBase(StrictModel):
    name: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    workload: Matcher | None = None
    metric: Matcher | None = None
    agent: Matcher | None = None
    label_key: Matcher | None = None
    label_value: Annotated[str, StringConstraints(max_length=256)] | None = None
    series_id: int | None = None
    min_change_pct: float | None = Field(default=None, ge=0, le=1000)
    min_confidence: float | None = Field(default=None, gt=0, lt=1)
    mute: bool = False
    note: Note | None = None

    @model_validator(mode="after")
    def _label_pair(self) -> RuleBase:
        if self.label_value is not None and self.label_key is None:
            raise ValueError("label_value needs label_key")
        return self


class RuleCreate(RuleBase):
    """Matchers left empty match every series; the rule with most matchers set wins."""


class RuleRead(RuleBase):
    id: int
    created_at: dt.datetime
    updated_at: dt.datetime


class RuleList(BaseModel):
    items: list[RuleRead]
    defaults: dict[str, float] = Field(description="thresholds when no rule matches")


class SeriesChangePoint(BaseModel):
    run_uuid: uuid_mod.UUID = Field(description="the first run after the change")
    started_at: dt.datetime
    before: float
    after: float
    change_pct: float | None
    confidence: float
    kind: AlertKind
    tentative: bool
    cause: dict[str, Change] | None
    alert_id: int | None = Field(description="the alert this change opened, if any")


class SeriesChangePoints(BaseModel):
    """Change points the detector finds in the newest `points` points of a series (both
    regressions and improvements, at the detector's default confidence)."""

    series_id: int
    points: int
    change_points: list[SeriesChangePoint]
