"""Explore and compare responses."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from typing import Any

from pydantic import BaseModel, Field


class ExplorePoint(BaseModel):
    x: float | str | None
    n: int = Field(description="how many runs the point summarises")
    median: float
    mean: float
    min: float
    max: float
    p5: float
    p95: float
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
