"""Resolving explore's x, group and filters to SQL, refusing names that mean nothing here.

A name is valid when it is a built-in, `env.KEY` for a key of some stored environment,
`param.NAME` for a parameter of the workload's results of the metric (read from their
series, which hold every parameter), `label.NAME` for a label of one of the workload's runs,
or a bare NAME that is one of those parameters (first) or labels. Anything else is a 422
naming the field: an unknown name would otherwise answer one `null` group as if it were fine."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Boolean, and_, exists, func, or_, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.core import units
from perfatlas.core.errors import Invalid
from perfatlas.core.pagination import parse_pairs
from perfatlas.runs import dimensions as dims
from perfatlas.runs.dimensions import TIME, Dimension
from perfatlas.runs.models import Environment, Result, Run, Series

MAX_NAME = 64


@dataclass(frozen=True)
class Scope:
    session: Session
    workload: str
    metric: str

    @property
    def dialect(self) -> str:
        return self.session.get_bind().dialect.name


def _has_key(
    scope: Scope, column: Any, key: str, where: Sequence[Any], newest_first: Any = None
) -> bool:
    if scope.dialect == "postgresql":
        has = column.op("?", return_type=Boolean)(key)
    else:
        has = func.json_type(column, dims.json_path(key)).is_not(None)
    if newest_first is None:
        return bool(scope.session.scalar(select(exists().where(*where, has))))
    # Walking an index newest first stops at the first match (a name in use is in recent
    # runs); EXISTS would make PostgreSQL collect every run of the workload first.
    first = select(column.table.c.id).where(*where, has).order_by(newest_first.desc()).limit(1)
    return scope.session.scalar(first) is not None


def _is_param(scope: Scope, key: str) -> bool:
    # Series hold every parameter of their runs and are few: a cheap, exact check.
    where = [Series.workload == scope.workload, Series.metric == scope.metric]
    return _has_key(scope, Series.parameters, key, where)


def _is_label(scope: Scope, key: str) -> bool:
    # Series leave version labels out, so labels are looked up on the runs themselves.
    return _has_key(
        scope, Run.labels, key, [Run.workload == scope.workload], newest_first=Run.started_at
    )


def _is_env(scope: Scope, key: str) -> bool:
    return _has_key(scope, Environment.data, key, [])


def resolve(scope: Scope, name: str, *, field: str) -> Dimension:
    """The dimension `name` of this workload, or a 422 on `field` saying why not."""
    if name in dims.BUILTIN:
        return dims.builtin(name)
    if name == TIME:
        raise Invalid(field, "time is only an x axis or a filter (time:FROM..TO)")
    if not name or len(name) > MAX_NAME:
        raise Invalid(field, f"{name[:MAX_NAME]!r} is not a dimension")
    prefix, dot, rest = name.partition(".")
    where = f"the {scope.workload!r} results of {scope.metric!r}"
    if dot and rest and prefix in ("param", "label", "env"):
        if prefix == "param" and _is_param(scope, rest):
            return dims.param(rest, scope.dialect)
        if prefix == "label" and _is_label(scope, rest):
            return dims.label(rest, scope.dialect)
        if prefix == "env" and _is_env(scope, rest):
            return dims.env(rest, scope.dialect)
        kind = {"param": "parameter", "label": "label", "env": "environment key"}[prefix]
        raise Invalid(field, f"{name!r}: no {kind} {rest!r} in {where}")
    if _is_param(scope, name):
        return dims.param(name, scope.dialect)
    if _is_label(scope, name):
        return dims.label(name, scope.dialect)
    raise Invalid(
        field,
        f"{name!r} is not a dimension of {where}: use a built-in ({', '.join(dims.BUILTIN)}), "
        "time, one of their parameters or labels, or param.NAME, label.NAME, env.KEY",
    )


def _instant(text: str, field: str) -> dt.datetime | None:
    if not text:
        return None
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError as exc:
        raise Invalid(field, f"{text!r} is not an ISO 8601 date or time") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


TimeRange = tuple[dt.datetime | None, dt.datetime | None]


def _time_ranges(values: Sequence[str], field: str) -> list[TimeRange]:
    """time:FROM..TO, either end optional: started at or after FROM and before TO."""
    ranges = []
    for value in values:
        start_text, sep, end_text = value.partition("..")
        if not sep:
            raise Invalid(field, f"time:{value} is not of the form time:FROM..TO (ISO 8601)")
        ranges.append((_instant(start_text, field), _instant(end_text, field)))
    return ranges


def _time_condition(ranges: Sequence[TimeRange]) -> ColumnElement[bool]:
    conditions = []
    for start, end in ranges:
        parts = []
        if start is not None:
            parts.append(Result.started_at >= start)
        if end is not None:
            parts.append(Result.started_at < end)
        conditions.append(and_(*parts) if parts else Result.started_at.is_not(None))
    return or_(*conditions)


@dataclass(frozen=True)
class Filters:
    conditions: list[ColumnElement[bool]]
    tables: frozenset[str]
    # The same, as each filtered dimension with its values and the time conditions.
    matched: list[tuple[Dimension, list[str]]]
    times: list[ColumnElement[bool]]
    # The time filter's ranges (any of them), or None without one.
    ranges: list[TimeRange] | None = None


def filters(scope: Scope, items: Sequence[str], *, field: str = "filter") -> Filters:
    conditions: list[ColumnElement[bool]] = []
    tables: set[str] = set()
    matched: list[tuple[Dimension, list[str]]] = []
    times: list[ColumnElement[bool]] = []
    ranges: list[TimeRange] | None = None
    for name, wanted in parse_pairs(field, items).items():
        if name == TIME:
            ranges = _time_ranges(wanted, field)
            times.append(_time_condition(ranges))
            conditions.append(times[-1])
            continue
        dimension = resolve(scope, name, field=field)
        # Sizes and durations as people write them (segsize:128k), matched as stored (131072).
        wanted = units.filter_values(dimension.name, list(wanted), field=field)
        matched.append((dimension, list(wanted)))
        conditions.append(dimension.expr.in_(wanted))
        tables |= dimension.tables
    return Filters(conditions, frozenset(tables), matched, times, ranges)


@dataclass(frozen=True)
class Reading:
    """What explore reads: its x and group (None: time, no group), the filters' conditions and
    the tables besides results that they need."""

    x: Dimension | None
    group: Dimension | None
    conditions: list[ColumnElement[bool]]
    tables: frozenset[str]
    # The conditions without the time filter's, and its ranges (None: no time filter): the
    # rollups' records are split by their start time instead (explore/rolled.py).
    untimed: list[ColumnElement[bool]]
    ranges: list[TimeRange] | None


def reading(x: Dimension | None, group: Dimension | None, matched: Filters) -> Reading:
    """x, group and filters together. When the runs are needed only for what the results'
    series also hold (parameters, the target), those are read from the series: the join hashes
    a metric's few series instead of every run of the workload (at 1,000,000 results, a third
    of the query's time)."""
    chosen = [d for d in (x, group) if d is not None] + [d for d, _ in matched.matched]
    spare = all(d.of_series is not None for d in chosen if dims.RUNS in d.tables)

    def pick(d: Dimension) -> Dimension:
        return d.on_series() if spare and dims.RUNS in d.tables else d

    filtered = [(pick(d), wanted) for d, wanted in matched.matched]
    tables: set[str] = set()
    for d in [pick(d) for d in chosen]:
        tables |= d.tables
    untimed: list[ColumnElement[bool]] = [d.expr.in_(wanted) for d, wanted in filtered]
    return Reading(
        x=pick(x) if x else None, group=pick(group) if group else None,
        conditions=[*matched.times, *untimed], tables=frozenset(tables), untimed=untimed,
        ranges=matched.ranges,
    )  # fmt: skip
