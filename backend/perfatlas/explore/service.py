"""Explore: a metric against any dimension, one trace per group.

Explore validates the request (explore/dims.py), then computes the points from the rollups and
the results of runs not folded yet (explore/rolled.py), the same on PostgreSQL and SQLite; x =
time reads the results themselves, one point per run (explore/aggregate.py timeline)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from perfatlas.alerts.queries import tentative_series_of_metric
from perfatlas.core.errors import Invalid
from perfatlas.core.natural import plain_number
from perfatlas.core.sketch import ALPHA
from perfatlas.core.trust import CONFIRMING, FLAG_NAMES, REASONS, flag_names
from perfatlas.explore import aggregate, dims, mixes, ordering, rolled, sketched
from perfatlas.explore.schemas import (
    ExplorePoint,
    ExploreRead,
    ExploreTrace,
)
from perfatlas.runs.dimensions import TIME
from perfatlas.runs.models import Result

MAX_TIME_POINTS = 50_000
# A plot of at most this many results is computed from their records, exactly; a larger one
# from the digests (rollups/digests.py), its medians and percentiles within ALPHA, unless the
# request asks for exact figures (PERFATLAS_EXPLORE_EXACT_RESULTS sets it for a server).
EXACT_RESULTS = 50_000
# Confirmation runs are never in explore's points (runs.confirming), so never their flag.
FLAG_REASONS = {
    name: REASONS[name]
    for name in [*FLAG_NAMES.values(), "tentative_alert"]
    if name != FLAG_NAMES[CONFIRMING]
}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _sort_traces(traces: dict[Any, list[ExplorePoint]], numeric: bool) -> list[ExploreTrace]:
    def x_key(point: ExplorePoint) -> tuple[int, Any]:
        if point.x is None:
            return (1, "")
        return (0, float(point.x)) if numeric else (0, str(point.x))

    def group_key(group: Any) -> tuple[int, Any]:
        if group is None:
            return (2, "")
        number = _number(group)
        return (0, number) if number is not None else (1, str(group))

    return [
        ExploreTrace(group=None if g is None else str(g), points=sorted(points, key=x_key))
        for g, points in sorted(traces.items(), key=lambda item: group_key(item[0]))
    ]


def _one(field: str, value: str) -> str:
    if "," in value:
        # Names cannot hold a comma (runs/schemas.py NAME_PATTERN): this asks for several.
        raise Invalid(field, f"one {field} at a time, not {value!r}")
    return value


METRIC_GROUP = "metric"
MAX_METRICS = 12


def metric_names(metric: str | Sequence[str]) -> list[str]:
    """The metrics asked for: repeated, comma-separated or both; each once, in order."""
    items = [metric] if isinstance(metric, str) else list(metric)
    names: list[str] = []
    for item in items:
        for part in item.split(","):
            if part.strip() and part.strip() not in names:
                names.append(part.strip())
    return names


def explore(
    session: Session,
    *,
    workload: str,
    metric: str | Sequence[str],
    x: str,
    group: str | None = None,
    filters: Sequence[str] = (),
    exact: bool = False,
    exact_results: int = EXACT_RESULTS,
    order: Sequence[str] = (),
    default_order: str = "",
    split: Sequence[str] = (),
    pool: Sequence[str] = (),
) -> ExploreRead:
    """One metric, or several with group=metric: each metric's own explore is one trace (one
    per split). `exact`: every figure computed from the records, however many results the plot
    covers. `order`: `dimension:v1,v2,*` items, over the server's `default_order`
    (explore/ordering.py); whatever they leave is in natural order (2.1.9 < 2.1.10). `split`:
    dimensions to split traces by besides those split by default (`none`: no default split);
    `pool`: parameters and durability facts not to split by (explore/mixes.py)."""
    given = ordering.orders(order, default_order)
    names = metric_names(metric)
    limit = None if exact else exact_results
    if group == METRIC_GROUP:
        return ordering.arrange(_by_metric(
            session, workload=workload, metrics=names, x=x, filters=filters, exact_results=limit,
            split=split, pool=pool,
        ), given)  # fmt: skip
    if len(names) > 1:
        raise Invalid(
            "metric", f"several metrics ({', '.join(names)}) plot together only with group=metric"
        )
    return ordering.arrange(_one_metric(
        session, workload=workload, metric=names[0] if names else "", x=x, group=group,
        filters=filters, exact_results=limit, split=split, pool=pool,
    ), given)  # fmt: skip


def _by_metric(
    session: Session,
    *,
    workload: str,
    metrics: list[str],
    x: str,
    filters: Sequence[str],
    exact_results: int | None,
    split: Sequence[str],
    pool: Sequence[str],
) -> ExploreRead:
    if not metrics:
        raise Invalid("metric", "name at least one metric")
    if len(metrics) > MAX_METRICS:
        raise Invalid("metric", f"at most {MAX_METRICS} metrics in one plot")
    answers = [
        _one_metric(
            session,
            workload=workload,
            metric=m,
            x=x,
            group=None,
            filters=filters,
            exact_results=exact_results,
            split=split,
            pool=pool,
        )
        for m in metrics
    ]
    found = [(m, a) for m, a in zip(metrics, answers, strict=True) if a.unit is not None]
    units = sorted({a.unit for _, a in found if a.unit is not None})
    if len(units) > 1:
        named = ", ".join(f"{m} in {a.unit}" for m, a in found)
        raise Invalid("metric", f"metrics of different units cannot share an axis: {named}")
    directions = {a.direction for _, a in found}
    with_points = [a for _, a in found if a.traces]
    answer = ExploreRead(
        workload=workload, metric=",".join(metrics), unit=units[0] if units else None,
        direction=directions.pop() if len(directions) == 1 else None, x=x, group=METRIC_GROUP,
        x_numeric=bool(with_points) and all(a.x_numeric for a in with_points),
        traces=[
            ExploreTrace(
                group=m if t.group is None else f"{m} · {t.group}", points=t.points,
                group_value=m, split=t.split, mixes=t.mixes,
            )
            for m, a in found for t in a.traces
        ],
        truncated=any(a.truncated for a in answers), flag_reasons=FLAG_REASONS,
        split_by=sorted({n for a in answers for n in a.split_by}),
        pooled=sorted({n for a in answers for n in a.pooled}),
        durability_reasons=mixes.DURABILITY_REASONS,
    )  # fmt: skip
    if any(a.approximate for a in answers):
        answer.approximate, answer.quantile_error = True, ALPHA
    missing = [f"{a.note} ({m})" for m, a in zip(metrics, answers, strict=True) if a.note]
    if missing:
        answer.note = "; ".join(missing)
    return answer


def _one_metric(
    session: Session,
    *,
    workload: str,
    metric: str,
    x: str,
    group: str | None = None,
    filters: Sequence[str] = (),
    exact_results: int | None = EXACT_RESULTS,
    split: Sequence[str] = (),
    pool: Sequence[str] = (),
) -> ExploreRead:
    """exact_results: the most results a plot's figures are computed exactly from (None: no
    limit); a larger plot's medians and percentiles come from the digests' sketches."""
    workload, metric = _one("workload", workload), _one("metric", metric)
    if group == TIME:
        raise Invalid("group", "time is only an x axis or a filter (time:FROM..TO)")
    answer = ExploreRead(
        workload=workload, metric=metric, unit=None, direction=None, x=x, group=group,
        x_numeric=False, traces=[], truncated=False, flag_reasons=FLAG_REASONS,
        durability_reasons=mixes.DURABILITY_REASONS,
    )  # fmt: skip
    unit_row = session.execute(
        select(Result.unit, Result.direction)
        .where(Result.workload == workload, Result.metric == metric)
        .limit(1)
    ).first()
    if unit_row is None:
        known = session.scalar(select(exists().where(Result.workload == workload)))
        answer.note = (
            f"no results of metric {metric!r} in workload {workload!r}"
            if known
            else f"no runs of workload {workload!r}"
        )
        return answer
    answer.unit, answer.direction = unit_row
    scope = dims.Scope(session, workload, metric)
    x_dim = None if x == TIME else dims.resolve(scope, x, field="x")
    group_dim = dims.resolve(scope, group, field="group") if group else None
    read = dims.reading(x_dim, group_dim, dims.filters(scope, filters))
    query = aggregate.Query(
        workload=workload, metric=metric, x=read.x.expr if read.x else None,
        group=read.group.expr if read.group else None, conditions=read.conditions,
        tables=read.tables,
        tentative=tentative_series_of_metric(session, workload=workload, metric=metric),
    )  # fmt: skip
    # What each point would pool, and the split that keeps unlike runs apart (explore/mixes.py).
    wanted = mixes.asked(scope, split, pool)
    taken = {d.name for d in (x_dim, group_dim) if d is not None}
    behind = mixes.facts_by_point(
        session, rolled.Rolled(query, untimed=read.untimed, ranges=read.ranges)
    )
    chosen = mixes.choose(behind, wanted, taken)
    held = mixes.pooled(behind, chosen, taken)
    splits = [mixes.dimension(scope, name, wanted) for name in chosen]
    query = mixes.keyed(query, splits)
    answer.split_by = chosen
    if x_dim is None:
        cells = list(aggregate.timeline(session, query, limit=MAX_TIME_POINTS + 1))
        answer.truncated = len(cells) > MAX_TIME_POINTS
        cells = cells[:MAX_TIME_POINTS]
    else:
        rolled_read = rolled.Rolled(query, untimed=read.untimed, ranges=read.ranges)
        cells = []
        # How many results the plot covers: counted by the statement that read the facts.
        if exact_results is not None and read.ranges is None and behind.results > exact_results:
            cells = sketched.grouped(session, rolled_read)
            answer.approximate, answer.quantile_error = True, ALPHA
        if not answer.approximate:
            cells = list(rolled.grouped(session, rolled_read))
    numeric = (
        x_dim is not None
        and bool(cells)
        # As JSON writes numbers: a version such as 6.10 is not the number 6.1.
        and all(plain_number(c.x) is not None for c in cells if c.x is not None)
    )
    traces: dict[Any, list[ExplorePoint]] = defaultdict(list)
    meta: dict[Any, tuple[Any, dict[str, str | None]]] = {}
    for c in cells:
        value, values = c.group, tuple[str | None, ...]()
        if splits:
            value, values = mixes.decode(c.group, group_dim is not None, len(splits))
        name = mixes.named(value, dict(zip(chosen, values, strict=True))) if splits else c.group
        meta[name] = (value, dict(zip(chosen, values, strict=True)))
        key = (None if x_dim is None else _key(c.x), _key(value), values)
        names = flag_names(c.flags) + (["tentative_alert"] if c.tentative else [])
        traces[name].append(
            ExplorePoint(
                x=_number(c.x) if numeric and c.x is not None else c.x, n=c.n,
                repetitions=c.repetitions, median=c.median, mean=c.mean, min=c.min, max=c.max,
                p5=c.p5, p95=c.p95, flags=names, runs=c.runs, median_low=c.median_low,
                median_high=c.median_high, mixes={} if x_dim is None else held.mixes.get(key, {}),
                durability=held.notes.get(key, []),
            )
        )  # fmt: skip
    answer.x_numeric = numeric
    answer.traces = _sort_traces(traces, numeric)
    for trace in answer.traces:
        _describe(trace, meta.get(trace.group), held, timeline=x_dim is None)
    answer.pooled = sorted({n for t in answer.traces for n in t.mixes})
    if not answer.traces:
        answer.note = "no results match the filters"
    return answer


def _key(value: Any) -> str | None:
    return None if value is None else str(value)


def _describe(
    trace: ExploreTrace,
    meta: tuple[Any, dict[str, str | None]] | None,
    held: mixes.Pooled,
    *,
    timeline: bool,
) -> None:
    """A trace's group value, split and what its points pool (x = time: what its line joins,
    and its points' durability notes only where every run of the line shares them)."""
    value, split = meta if meta is not None else (trace.group, {})
    trace.group_value, trace.split = _key(value), split
    if timeline:
        key = (None, _key(value), tuple(split.values()))
        trace.mixes = held.mixes.get(key, {})
        mixed = {"memory_backed": "memory_backed", "no_flush": "flush_to_device"}
        for p in trace.points:
            p.durability = [n for n in p.durability if mixed[n] not in trace.mixes]
        return
    union: dict[str, set[str | None]] = defaultdict(set)
    for p in trace.points:
        for name, values in p.mixes.items():
            union[name] |= set(values)
    trace.mixes = {
        n: sorted(v, key=lambda s: (s is None, s or ""))[: mixes.MAX_VALUES]
        for n, v in sorted(union.items())
    }
