"""Compare responses: runs side by side, and groups of runs paired series by series."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from typing import Any, Literal

from pydantic import BaseModel, Field

from perfatlas.runs.schemas import DurabilityFacts

VerdictName = Literal["better", "worse", "noise", "few", "missing", "not_comparable"]


class ChangeRead(BaseModel):
    """One side against the baseline, judged on the samples (compare/stats.py)."""

    change_pct: float | None = Field(description="median against the baseline's median, in %")
    ci_low_pct: float | None = Field(description="lower bound of the 95 % interval of the change")
    ci_high_pct: float | None = Field(description="upper bound of the 95 % interval of the change")
    n_base: int = Field(description="samples on the baseline side")
    n: int = Field(description="samples on this side")
    verdict: VerdictName = Field(
        description="better / worse (real: the interval excludes zero and the change is at "
        "least min_effect_pct), noise (within noise), few (not enough repetitions to test), "
        "missing, not_comparable (one side is memory-backed or does not flush to the device "
        "and the other does: never better or worse; `reason` names the fact)"
    )
    reason: str | None = Field(
        default=None, description="why the change is not judged (verdict not_comparable)"
    )


class CompareRun(DurabilityFacts):
    uuid: uuid_mod.UUID
    workload: str
    agent: str
    target: str
    started_at: dt.datetime
    status: str
    parameters: dict[str, Any]
    labels: dict[str, str]
    environment_id: int | None


class CompareMetric(BaseModel):
    metric: str
    unit: str
    direction: str
    values: list[float | None] = Field(description="one per run, in the order of runs")
    spread: list[list[float] | None] = Field(description="[min, max] of each run's samples")
    n: list[int | None] = Field(description="samples (repetitions) behind each value")
    diff_pct: list[float | None] = Field(description="change against the first run, in percent")
    better: list[bool | None] = Field(
        description="which way the difference points (true: the run beats the first run), "
        "real or not: changes[i].verdict says whether it is larger than the noise"
    )
    changes: list[ChangeRead | None] = Field(
        description="each run against the first (null for the first): interval and verdict"
    )
    flags: list[list[str]] = Field(
        description="each value's trust flags (short_phase, busy, few_repetitions, "
        "tentative_alert); the reasons are in the response's `reasons`"
    )


class Difference(BaseModel):
    key: str
    values: list[Any]


class CompareRead(BaseModel):
    runs: list[CompareRun]
    metrics: list[CompareMetric] = Field(description="in the workload's phase order")
    min_effect_pct: float = Field(description="the smallest change called better or worse")
    confidence: float = Field(description="of the interval of each change")
    durability_differs: bool
    warning: str | None = Field(description="why the runs are not comparable as equals, if so")
    durability: list[Difference]
    parameters: list[Difference]
    labels: list[Difference]
    environment: list[Difference]
    reasons: dict[str, str] = Field(description="what each trust flag and verdict means")


class PairCell(BaseModel):
    """One group's side of one pair: every sample of the pair's runs in that group."""

    value: float | None = Field(description="median of the samples")
    n: int = Field(description="samples")
    runs: int
    flags: list[str]
    change: ChangeRead | None = Field(description="against the baseline group; null there")


class GroupPair(BaseModel):
    """Series that share everything but the compared dimension (and the ignored keys)."""

    key: dict[str, Any] = Field(description="what the series of the pair share")
    cells: list[PairCell | None] = Field(description="one per group value; null when absent")


class GroupCell(BaseModel):
    """One metric in one group: its value, and for the other groups the per-series change."""

    value: float | None = Field(
        description="median of the per-series medians in this group: when several series "
        "differ in level (GroupMetric.varying), a pooled figure no run has; the metric's "
        "`split` gives each homogeneous subset its own values"
    )
    series: int = Field(description="series (pairing keys) with runs in this group")
    runs: int
    samples: int
    flags: list[str] = Field(description="trust flags of any result behind the cell")
    change_pct: float | None = Field(
        description="median of the per-series changes against the baseline, in %"
    )
    pairs: int = Field(description="series present in this group and in the baseline")
    tested: int = Field(description="pairs with enough repetitions on both sides to test")
    agree: int = Field(description="pairs significant in the direction of the median change")
    better: int
    worse: int
    lowest_pct: float | None = Field(description="the lowest per-series change")
    highest_pct: float | None = Field(description="the highest per-series change")
    verdict: VerdictName | Literal["mixed"] | None = Field(
        description="better / worse when most tested pairs are; mixed; noise; few; "
        "not_comparable when every pair differs in durability; null for the baseline"
    )
    not_comparable: int = Field(
        default=0, description="pairs not comparable (durability), left out of the change"
    )
    reason: str | None = Field(
        default=None, description="the durability fact that makes pairs not comparable"
    )


class SplitSubset(BaseModel):
    """The pairs whose series have one value of the split dimension."""

    value: str
    cells: list[GroupCell] = Field(description="one per group value, as GroupMetric.cells")


class GroupSplit(BaseModel):
    """The headline per subset, when the per-series verdicts disagree: split by the series key
    (parameter, label, agent, target) or durability fact whose values best separate them."""

    dimension: str = Field(description="a parameter or label name, agent, target or a fact")
    subsets: list[SplitSubset]


class GroupMetric(BaseModel):
    metric: str
    unit: str
    direction: str
    cells: list[GroupCell] = Field(
        description="one per group value, the baseline first: every pair pooled"
    )
    pairs: list[GroupPair]
    varying: list[str] = Field(
        default_factory=list,
        description="series keys and durability facts whose values differ between the pairs: "
        "what the pooled cells mix",
    )
    split: GroupSplit | None = Field(
        default=None,
        description="when the pairs' verdicts disagree: the headline per subset of pairs",
    )


class GroupInfo(BaseModel):
    value: str
    runs: int
    durability: dict[str, list[Any]] = Field(description="each durability fact's values seen")


class GroupCompareRead(BaseModel):
    workload: str
    by: str
    values: list[str] = Field(description="the groups, the baseline first")
    filters: list[str]
    pair_ignore: list[str] = Field(
        description="series keys left out of the pairing, besides the compared dimension"
    )
    min_effect_pct: float
    confidence: float
    groups: list[GroupInfo]
    metrics: list[GroupMetric] = Field(description="in the workload's phase order")
    durability_differs: bool
    warning: str | None
    durability: list[Difference] = Field(description="facts whose values differ between groups")
    reasons: dict[str, str]
    pair_hint: list[str] | None = Field(
        default=None,
        description="when a group has no series in common with the baseline: the pair_ignore "
        "that pairs them (the current one and the series keys in which they differ)",
    )
