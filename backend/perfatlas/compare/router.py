"""Compare routes: runs side by side, groups paired series by series, and their CSV."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from perfatlas.api.deps import ReadPrincipal, SessionDep
from perfatlas.compare import answers
from perfatlas.compare.schemas import CompareRead, GroupCompareRead
from perfatlas.core.significance import DEFAULT_MIN_EFFECT_PCT

router = APIRouter(tags=["compare"])

RunsQuery = Annotated[
    list[str],
    Query(description="run uuids, repeated or comma-separated; the first is the baseline"),
]
MetricQuery = Annotated[
    list[str],
    Query(
        description="the metrics to show: names or globs (`*.seconds`), repeated or "
        "comma-separated; every metric when absent"
    ),
]
MinEffect = Annotated[
    float,
    Query(
        ge=0, le=1000,
        description="the smallest change, in percent, called better or worse; a smaller one "
        "is within noise even when the test finds it",
    ),
]  # fmt: skip
ValueQuery = Annotated[
    list[str],
    Query(
        min_length=1, description="the groups: values of `by`, repeated; the first is the baseline"
    ),
]
FilterQuery = Annotated[
    list[str],
    Query(description="dimension:value, repeatable; several values of one dimension mean any"),
]
PairIgnoreQuery = Annotated[
    list[str] | None,
    Query(
        description="series keys left out of the pairing besides `by` (agent, target, "
        "param.NAME, label.NAME or a bare name), repeated or comma-separated; default: target "
        "for environment dimensions (fs_type, kernel, device, mount_options, env.KEY, ...), "
        "a filesystem label (fs, filesystem, or values that name filesystems) and target, "
        "nothing otherwise; the labels that say where a run came from (firstrun, study) are "
        "left out too; `none` leaves nothing out"
    ),
]


@router.get("/compare", operation_id="compare", response_model=CompareRead)
def compare(
    session: SessionDep,
    _: ReadPrincipal,
    runs: RunsQuery,
    metric: MetricQuery = [],  # noqa: B006
    min_effect: MinEffect = DEFAULT_MIN_EFFECT_PCT,
) -> CompareRead:
    """Runs side by side: every metric in phase order, its change against the first run with
    the 95 % interval and whether it is larger than the noise, trust flags, what differs."""
    return answers.compare_runs(session, runs=runs, metric=metric, min_effect_pct=min_effect)


@router.get("/compare.csv", operation_id="compare_csv", response_class=Response)
def compare_csv(
    session: SessionDep,
    _: ReadPrincipal,
    runs: RunsQuery,
    metric: MetricQuery = [],  # noqa: B006
    min_effect: MinEffect = DEFAULT_MIN_EFFECT_PCT,
) -> Response:
    """The compare table as CSV: metrics as rows, runs as columns, then the changes."""
    return answers.compare_runs_csv(session, runs=runs, metric=metric, min_effect_pct=min_effect)


@router.get("/compare/groups", operation_id="compare_groups", response_model=GroupCompareRead)
def compare_groups(
    session: SessionDep,
    _: ReadPrincipal,
    workload: str,
    by: Annotated[str, Query(description="the compared dimension (fs_version, kernel, ...)")],
    value: ValueQuery,
    metric: MetricQuery = [],  # noqa: B006
    filter: FilterQuery = [],  # noqa: B006
    pair_ignore: PairIgnoreQuery = None,
    min_effect: MinEffect = DEFAULT_MIN_EFFECT_PCT,
) -> GroupCompareRead:
    """Groups of runs (one per value of `by`, the first the baseline), paired series by
    series: per metric the median of the per-series changes, how many series agree, the
    per-group values, and a warning when the groups differ in durability facts."""
    return answers.compare_groups(
        session, workload=workload, by=by, values=value, metric=metric, filters=filter,
        pair_ignore=pair_ignore, min_effect_pct=min_effect,
    )  # fmt: skip


@router.get("/compare/groups.csv", operation_id="compare_groups_csv", response_class=Response)
def compare_groups_csv(
    session: SessionDep,
    _: ReadPrincipal,
    workload: str,
    by: str,
    value: ValueQuery,
    metric: MetricQuery = [],  # noqa: B006
    filter: FilterQuery = [],  # noqa: B006
    pair_ignore: PairIgnoreQuery = None,
    min_effect: MinEffect = DEFAULT_MIN_EFFECT_PCT,
) -> Response:
    """The group compare as CSV: one row per metric (every series together), then one row
    per metric and pair of series."""
    return answers.compare_groups_csv(
        session, workload=workload, by=by, values=value, metric=metric, filters=filter,
        pair_ignore=pair_ignore, min_effect_pct=min_effect,
    )  # fmt: skip
