"""Explore, catalog and agents responses."""

from __future__ import annotations

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
