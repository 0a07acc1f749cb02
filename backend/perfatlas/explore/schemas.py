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
    median_low: float | None = Field(
        default=None,
        description="a 95 % interval of the median, low end: for 6 runs or more the order "
        "statistic of the runs' values that bounds it (distribution-free); for fewer, the "
        "smallest repetition (Compare's rule at three repetitions); null when the median comes "
        "from sketches",
    )
    median_high: float | None = Field(default=None, description="that interval's high end")
    mixes: dict[str, list[str | None]] = Field(
        default_factory=dict,
        description="the dimensions left varying among the runs behind the point that the "
        "request did not choose (not x, group, a split or a filter's one value), each with its "
        "values (at most 12): parameters (param.NAME), durability facts, agent, target, fs_type, "
        "labels (label.NAME); empty when the runs are alike in all of them",
    )
    durability: list[str] = Field(
        default_factory=list,
        description="durability notes of the runs behind the point (see durability_reasons): "
        "memory_backed, no_flush",
    )


class ExploreTrace(BaseModel):
    group: str | None = Field(
        description="the trace's name: the group's value, and the split's values after it "
        "(agent-a · fsync=file); null without group or split"
    )
    points: list[ExplorePoint]
    group_value: str | None = Field(
        default=None, description="the value of the request's group dimension alone"
    )
    split: dict[str, str | None] = Field(
        default_factory=dict,
        description="the values of the dimensions the trace is split by (see split_by)",
    )
    mixes: dict[str, list[str | None]] = Field(
        default_factory=dict,
        description="the dimensions its points pool (as each point's mixes), with their values",
    )


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
    split_by: list[str] = Field(
        default_factory=list,
        description="the dimensions traces are split by besides the group: those asked (split=) "
        "and, unless split=none, every parameter and durability fact that would otherwise vary "
        "among the runs behind a point (x = time: along a trace)",
    )
    pooled: list[str] = Field(
        default_factory=list,
        description="the dimensions some point pools (left varying behind it): labels, agents, "
        "targets, filesystems, and what the request pooled on purpose (pool=)",
    )
    durability_reasons: dict[str, str] = Field(
        default_factory=dict, description="what each durability note of a point means"
    )


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
    agents: list[str] = Field(
        default_factory=list, description="the agents that stored runs of it, in natural order"
    )


class Catalog(BaseModel):
    """What there is to explore: the choices for workload, metric, x, group and filters."""

    workloads: list[CatalogWorkload]
    dimensions: list[str] = Field(description="built-in dimensions, besides parameters and labels")
