"""Explore: a metric against any dimension, one trace per group.

On PostgreSQL the aggregation runs in the database; SQLite, the embedded default, gets the same
numbers from a streamed Python aggregation."""

from __future__ import annotations

import math
import uuid as uuid_mod
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Select, String, func, null, select
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session
from sqlalchemy.sql.util import find_tables

from perfatlas.agents.models import Agent
from perfatlas.core.pagination import parse_pairs
from perfatlas.explore.schemas import (
    ExplorePoint,
    ExploreRead,
    ExploreTrace,
)
from perfatlas.runs.dimensions import TIME, dimension
from perfatlas.runs.models import Environment, Result, Run
from perfatlas.runs.stats import quantile

RUNS_PER_POINT = 20
MAX_TIME_POINTS = 50_000


def _base_query(
    session: Session, columns: Sequence[Any], *, workload: str, metric: str, filters: Sequence[str]
) -> Select[Any]:
    dialect = session.get_bind().dialect.name
    conditions = [
        dimension(name, dialect, field="filter").in_(wanted)
        for name, wanted in parse_pairs("filter", filters).items()
    ]
    # Join only what the columns and filters refer to: at a million results every join
    # that is not needed costs a scan.
    tables = {t for c in [*columns, *conditions] for t in find_tables(c, check_columns=True)}
    query = select(*columns).select_from(Result)
    if tables & {Run.__table__, Agent.__table__, Environment.__table__}:
        query = query.join(Run, Run.id == Result.run_id)
    if Agent.__table__ in tables:
        query = query.join(Agent, Agent.id == Run.agent_id)
    if Environment.__table__ in tables:
        query = query.outerjoin(Environment, Environment.id == Run.environment_id)
    return query.where(Result.workload == workload, Result.metric == metric, *conditions)


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


def explore(
    session: Session,
    *,
    workload: str,
    metric: str,
    x: str,
    group: str | None = None,
    filters: Sequence[str] = (),
) -> ExploreRead:
    dialect = session.get_bind().dialect.name
    unit_row = session.execute(
        select(Result.unit, Result.direction)
        .where(Result.workload == workload, Result.metric == metric)
        .limit(1)
    ).first()
    group_expr = dimension(group, dialect, field="group") if group else None
    if x == TIME:
        traces, truncated = _explore_time(
            session, workload=workload, metric=metric, group_expr=group_expr, filters=filters
        )
        numeric = False
    else:
        x_expr = dimension(x, dialect, field="x")
        if dialect == "postgresql":
            rows = _explore_grouped_sql(
                session, workload=workload, metric=metric, x_expr=x_expr, group_expr=group_expr,
                filters=filters,
            )  # fmt: skip
        else:
            rows = _explore_grouped_python(
                session, workload=workload, metric=metric, x_expr=x_expr, group_expr=group_expr,
                filters=filters,
            )  # fmt: skip
        rows = list(rows)
        numeric = bool(rows) and all(_number(r[0]) is not None for r in rows if r[0] is not None)
        traces = defaultdict(list)
        for x_value, g, n, median, mean, lo, hi, p5, p95, run_ids in rows:
            shown_x = _number(x_value) if numeric and x_value is not None else x_value
            traces[g].append(
                ExplorePoint(
                    x=shown_x,
                    n=n,
                    median=median,
                    mean=mean,
                    min=lo,
                    max=hi,
                    p5=p5,
                    p95=p95,
                    runs=list(run_ids)[:RUNS_PER_POINT],
                )
            )
        truncated = False
    return ExploreRead(
        workload=workload,
        metric=metric,
        unit=unit_row[0] if unit_row else None,
        direction=unit_row[1] if unit_row else None,
        x=x,
        group=group,
        x_numeric=numeric,
        traces=_sort_traces(traces, numeric),
        truncated=truncated,
    )


def _explore_grouped_sql(
    session: Session,
    *,
    workload: str,
    metric: str,
    x_expr: Any,
    group_expr: Any,
    filters: Sequence[str],
) -> Iterable[tuple[Any, ...]]:
    g = group_expr if group_expr is not None else null().cast(String)
    columns = [
        x_expr.label("x"),
        g.label("g"),
        func.count().label("n"),
        func.percentile_cont(0.5).within_group(Result.value).label("median"),
        func.avg(Result.value).label("mean"),
        func.min(Result.value).label("min"),
        func.max(Result.value).label("max"),
        func.percentile_cont(0.05).within_group(Result.value).label("p5"),
        func.percentile_cont(0.95).within_group(Result.value).label("p95"),
        func.array_agg(aggregate_order_by(Result.run_uuid, Result.started_at.desc()))[
            1:RUNS_PER_POINT
        ].label("runs"),
    ]
    query = _base_query(session, columns, workload=workload, metric=metric, filters=filters)
    query = query.group_by(x_expr, g) if group_expr is not None else query.group_by(x_expr)
    return session.execute(query).all()


def _explore_grouped_python(
    session: Session,
    *,
    workload: str,
    metric: str,
    x_expr: Any,
    group_expr: Any,
    filters: Sequence[str],
) -> Iterable[tuple[Any, ...]]:
    g = group_expr if group_expr is not None else null().cast(String)
    query = _base_query(
        session,
        [x_expr, g, Result.value, Result.run_uuid],
        workload=workload,
        metric=metric,
        filters=filters,
    ).order_by(Result.started_at.desc())
    cells: dict[tuple[Any, Any], tuple[list[float], list[uuid_mod.UUID]]] = {}
    for x_value, g_value, value, run_uuid in session.execute(query).yield_per(5000):
        values, uuids = cells.setdefault((x_value, g_value), ([], []))
        values.append(value)
        if len(uuids) < RUNS_PER_POINT:
            uuids.append(run_uuid)
    for (x_value, g_value), (values, uuids) in cells.items():
        values.sort()
        yield (
            x_value, g_value, len(values), quantile(values, 0.5), math.fsum(values) / len(values),
            values[0], values[-1], quantile(values, 0.05), quantile(values, 0.95), uuids,
        )  # fmt: skip


def _explore_time(
    session: Session, *, workload: str, metric: str, group_expr: Any, filters: Sequence[str]
) -> tuple[dict[Any, list[ExplorePoint]], bool]:
    g = group_expr if group_expr is not None else null().cast(String)
    columns = [
        Result.started_at, g, Result.n, Result.value, Result.mean, Result.min, Result.max,
        Result.p5, Result.p95, Result.run_uuid,
    ]  # fmt: skip
    query = (
        _base_query(session, columns, workload=workload, metric=metric, filters=filters)
        .order_by(Result.started_at.desc())
        .limit(MAX_TIME_POINTS + 1)
    )
    traces: dict[Any, list[ExplorePoint]] = defaultdict(list)
    rows = session.execute(query)
    for count, (started, g_value, n, value, mean, lo, hi, p5, p95, run_uuid) in enumerate(rows, 1):
        if count > MAX_TIME_POINTS:
            return traces, True
        traces[g_value].append(
            ExplorePoint(
                x=started.isoformat(),
                n=n,
                median=value,
                mean=mean,
                min=lo,
                max=hi,
                p5=p5,
                p95=p95,
                runs=[run_uuid],
            )
        )
    return traces, False
