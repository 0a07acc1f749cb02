"""Explore and compare responses."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from typing import Any

from pydantic import BaseModel, Field


class ExplorePoint(BaseModel):
    """One point: the runs with this x and group value (README.md, Explore aggregates)."""

    x: float | str | None
    n: int = Field(description="how many runs the point summarises")
    repetitions: int = Field(description="how many samples (repetitions) those runs hold")
    median: float = Field(description="the median of the runs' values")
    mean: float = Field(description="the mean of every repetition")
    min: float = Field(description="the smallest repetition")
    max: float = Field(description="the largest repetition")
    p5: float = Field(description="the 5th percentile of the runs' p5 (one run: its own p5)")
    p95: float = Field(description="the 95th percentile of the runs' p95 (one run: its own p95)")
    flags: list[str] = Field(
        description="trust flags of the results behind it (see flag_reasons); empty when clean"
    )
    runs: list[uuid_mod.UUID] = Field(description="the newest runs behind the point (at most 20)")


class ExploreTrace(BaseModel):
    group: str | None
    points: list[ExplorePoint]


class ExploreRead(BaseModel):
    workload: str
    metric: str
    unit: str | None
    direction: str | None
    x: str
    group: str | None
    x_numeric: bool = Field(description="true when every x is a number (plot on a numeric axis)")
    traces: list[ExploreTrace]
    truncated: bool = Field(description="x=time only: more points matched than were returned")
    flag_reasons: dict[str, str] = Field(description="what each trust flag means, by name")
    note: str | None = Field(
        default=None, description="why there are no traces (no such workload or metric, or "
        "nothing matches the filters)",
    )  # fmt: skip


class CompareRun(BaseModel):
    uuid: uuid_mod.UUID
    workload: str
    agent: str
    target: str
    started_at: dt.datetime
    status: str
    parameters: dict[str, Any]
    labels: dict[str, str]
    fsync_policy: str | None
    o_direct: bool | None
    sync_mount: bool | None
    write_cache: str | None
    flush_to_device: bool | None
    memory_backed: bool | None
    cold_method: str | None
    environment_id: int | None


class CompareMetric(BaseModel):
    metric: str
    unit: str
    direction: str
    values: list[float | None] = Field(description="one per run, in the order of runs")
    spread: list[list[float] | None] = Field(description="[min, max] of each run's samples")
    diff_pct: list[float | None] = Field(description="change against the first run, in percent")
    better: list[bool | None] = Field(description="true where the run beats the first run")


class Difference(BaseModel):
    key: str
    values: list[Any]


class CompareRead(BaseModel):
    runs: list[CompareRun]
    metrics: list[CompareMetric]
    durability_differs: bool
    warning: str | None = Field(description="why the runs are not comparable as equals, if so")
    durability: list[Difference]
    parameters: list[Difference]
    labels: list[Difference]
    environment: list[Difference]


class CatalogMetric(BaseModel):
    name: str
    unit: str
    direction: str


class CatalogWorkload(BaseModel):
    name: str
    runs: int
    metrics: list[CatalogMetric]
    parameters: dict[str, list[Any]] = Field(description="each parameter with the values seen")
    labels: dict[str, list[str]] = Field(description="each label with the values seen")


class Catalog(BaseModel):
    """What there is to explore: the choices for workload, metric, x, group and filters."""

    workloads: list[CatalogWorkload]
    dimensions: list[str] = Field(description="built-in dimensions, besides parameters and labels")


class AgentRead(BaseModel):
    name: str
    labels: dict[str, Any]
    version: str | None
    last_seen_at: dt.datetime | None
    runs: int
