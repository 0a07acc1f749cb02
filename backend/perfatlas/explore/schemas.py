"""Explore, catalog and agents responses."""

from __future__ import annotations

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
    approximate: bool = Field(
        default=False,
        description="the plot covers more results than the server computes exactly by default "
        "(PERFATLAS_EXPLORE_EXACT_RESULTS): each point's median, p5 and p95 come from quantile "
        "sketches, within quantile_error of the exact figure, relatively; every other figure is "
        "exact. Ask exact=true for exact medians and percentiles.",
    )
    quantile_error: float | None = Field(
        default=None,
        description="when approximate: the largest relative error of a median, p5 or p95",
    )
    note: str | None = Field(
        default=None, description="why there are no traces (no such workload or metric, or "
        "nothing matches the filters)",
    )  # fmt: skip


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
