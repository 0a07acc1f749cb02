"""Explore's points from the rollups (rollups/models.py) and the results of runs still pending.

One statement reads both, so it sees one snapshot: the rollup rows of the metric's series
(joined to their series for parameters and the target, to their variant for labels, status and
durability, and to its agent and environment where a dimension needs them), and, the old way,
the results of the runs the worker has not folded yet. A run is either pending or folded in any
snapshot, so the points are exact whatever the fold's lag. The records of each point are merged
here (core/records.py); a time filter splits the rollups' records by their start time."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import (
    LargeBinary,
    Select,
    and_,
    case,
    false,
    func,
    literal,
    null,
    select,
    union_all,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql import visitors
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.agents.models import Agent
from perfatlas.core import memory
from perfatlas.core.db import BINARY_RESULTS
from perfatlas.core.records import (
    Summary,
    from_postgresql,
    micros,
    newest_of,
    pack,
    summarize_many,
    unpack,
    within,
)
from perfatlas.explore.aggregate import Cell, Query, select_results, tentative_of
from perfatlas.explore.dims import TimeRange
from perfatlas.rollups.models import ExploreDigest, ExploreRollup, RunVariant
from perfatlas.runs.dimensions import AGENTS, ENVIRONMENTS
from perfatlas.runs.models import Environment, Result, RollupPending, Run, Series

_VARIANT = RunVariant.__table__.c
_SERIES = Series.__table__.c
# Where a column of runs or results is found on the rollups' side.
_RUN_COLUMNS = {name: _VARIANT[name] for name in (
    "agent_id", "environment_id", "status", "target", "labels", "fsync_policy", "o_direct",
    "sync_mount", "write_cache", "flush_to_device", "memory_backed", "cold_method",
)}  # fmt: skip
_RUN_COLUMNS["parameters"] = _SERIES.parameters
_RESULT_COLUMNS = {
    "workload": _SERIES.workload,
    "agent_id": _VARIANT.agent_id,
    "environment_id": _VARIANT.environment_id,
}
RECORD_COLUMNS = [
    Result.value, Result.p5, Result.p95, Result.mean, Result.min, Result.max, Result.started_at,
    Result.run_uuid, Result.n, Result.flags,
]  # fmt: skip


class NotRolledUp(ValueError):
    """A dimension reads a column of runs or results that the rollups do not hold."""


def on_variant(expr: ColumnElement[Any]) -> ColumnElement[Any]:
    """A dimension's expression over runs and results, rewritten over the rollups' variants and
    series (what a series fixes from the series, the rest from the variant)."""

    def replace(element: Any, **_: Any) -> Any:
        table = getattr(element, "table", None)
        name = getattr(table, "name", None)
        if name == Run.__tablename__:
            if element.name not in _RUN_COLUMNS:
                raise NotRolledUp(f"runs.{element.name}")
            return _RUN_COLUMNS[element.name]
        if name == Result.__tablename__:
            if element.name not in _RESULT_COLUMNS:
                raise NotRolledUp(f"results.{element.name}")
            return _RESULT_COLUMNS[element.name]
        return None

    return visitors.replacement_traverse(expr, {}, replace)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Rolled:
    """What explore/service.py hands over: the query (over results, for pending runs) and the
    time filter's ranges (None: none), which the rollups' side applies to its records."""

    query: Query
    untimed: list[ColumnElement[bool]]
    ranges: list[TimeRange] | None


def pending_rows(query: Query, group: ColumnElement[Any]) -> Select[Any]:
    """SQLite: the pending runs' results one per row, packed here."""
    assert query.x is not None
    columns = [query.x.label("x"), group.label("g"), Result.series_id, null().label("records"),
               *RECORD_COLUMNS]  # fmt: skip
    return select_results(query, columns).join(RollupPending, RollupPending.run_id == Result.run_id)


def pending_packed(query: Query, group: ColumnElement[Any]) -> Select[Any]:
    """PostgreSQL: the pending runs' results packed by the database, one row per point (each
    result as its fields' binary forms end to end, PG_RECORD), and whether one of them is on a
    series with a tentative alert: a backlog of a million results reads in a tenth of the time
    that loading each as a row of Python objects takes."""
    assert query.x is not None
    parts: list[ColumnElement[Any]] = [
        *(func.float8send(c) for c in RECORD_COLUMNS[:6]),
        func.timestamptz_send(Result.started_at), func.uuid_send(Result.run_uuid),
        func.int4send(Result.n), func.int2send(Result.flags),
    ]  # fmt: skip
    record = parts[0]
    for part in parts[1:]:
        record = record.op("||", return_type=LargeBinary)(part)
    keys = [query.x] if query.group is None else [query.x, query.group]
    columns = [
        query.x.label("x"), group.label("g"), null().label("series_id"),
        null().label("records"),
        func.string_agg(record, literal(b"", LargeBinary), type_=LargeBinary).label("packed"),
        func.bool_or(tentative_of(query)).label("tentative"),
    ]  # fmt: skip
    return (
        select_results(query, columns)
        .join(RollupPending, RollupPending.run_id == Result.run_id)
        .group_by(*keys)
    )


def kept(read: Rolled) -> ColumnElement[bool] | None:
    """The filters over the rollups' variants and series (None: no filter). They choose rows in
    the select list, not the WHERE clause: the planner takes a filter on the variants' labels for
    one row in a hundred and would then probe the metric's rollups once per variant; the rows
    of one metric, hashed against the small tables, are few enough to read whole (filtered rows
    come back without their numbers)."""
    conditions = [on_variant(c) for c in read.untimed]
    return and_(*conditions) if conditions else None


def over_variants(
    read: Rolled,
    group: ColumnElement[Any],
    table: type[ExploreRollup] | type[ExploreDigest],
    columns: Sequence[Any],
) -> Select[Any]:
    """x, g and `columns` of the metric's rows of `table` (explore_rollups or explore_digests),
    joined to their series and variant (and its agent and environment when a dimension needs
    them)."""
    query = read.query
    assert query.x is not None
    keys = [on_variant(query.x).label("x"), on_variant(group).label("g")]
    return variant_rows(read, table, [*keys, *columns])


def variant_rows(
    read: Rolled, table: type[ExploreRollup] | type[ExploreDigest], columns: Sequence[Any]
) -> Select[Any]:
    """`columns` of the metric's rows of `table`, joined as over_variants joins them."""
    query = read.query
    statement = (
        select(*columns)
        .select_from(table)
        .join(
            Series,
            and_(
                Series.id == table.series_id,
                Series.workload == query.workload,
                Series.metric == query.metric,
            ),
        )
        .join(RunVariant, RunVariant.id == table.variant_id)
    )  # fmt: skip
    if AGENTS in query.tables:
        statement = statement.join(Agent, Agent.id == RunVariant.agent_id)
    if ENVIRONMENTS in query.tables:
        statement = statement.outerjoin(Environment, Environment.id == RunVariant.environment_id)
    return statement.where(table.workload == query.workload, table.metric == query.metric)


def _rollups(read: Rolled, group: ColumnElement[Any], postgresql: bool) -> Select[Any]:
    condition = kept(read)
    records: ColumnElement[Any] = ExploreRollup.records.expression
    if condition is not None:
        records = case((condition, ExploreRollup.records), else_=null())
    spare = 2 if postgresql else len(RECORD_COLUMNS)  # the pending side's other columns
    columns = [ExploreRollup.series_id, records.label("records"), *[null() for _ in range(spare)]]
    return over_variants(read, group, ExploreRollup, columns)


@dataclass
class _Point:
    # Packed records, gathered as bytes and read once at the end (concatenating record arrays
    # one by one costs numpy a dtype promotion each; a list of parts joined at the end holds
    # every record twice).
    records: bytearray = field(default_factory=bytearray)
    pending: list[tuple[Any, ...]] = field(default_factory=list)
    tentative: bool = False


def grouped(session: Session, read: Rolled) -> Iterator[Cell]:
    """Every point of x (and group) with its numbers, from rollups and pending runs."""
    query = read.query
    group = query.group if query.group is not None else false()
    pg = session.get_bind().dialect.name == "postgresql"
    pending = pending_packed(query, group) if pg else pending_rows(query, group)
    statement = union_all(pending, _rollups(read, group, pg))
    ranges = None
    if read.ranges is not None:
        ranges = [
            (None if a is None else micros(a), None if b is None else micros(b))
            for a, b in read.ranges
        ]
    points: dict[tuple[Any, Any], _Point] = {}
    # Rollup rows in PostgreSQL's binary format: as text, each record's bytes travel hex encoded
    # (twice the size, and encoded and decoded on the way): a third of the query's time.
    options = {BINARY_RESULTS: True} if pg else {}
    # Rows are made a few hundred at a time (fetchmany: one at a time cost a call each), not all
    # at once (.all()): a metric's rollups at 10 M results are tens of megabytes. (A server-side
    # cursor held less still, but cost 15-20 ms a query.)
    result = session.execute(statement, execution_options=options)
    for x, g, series_id, records, *rest in itertools.chain.from_iterable(result.partitions(500)):
        if records is None and rest[0] is None:
            continue  # rollups the filters leave out
        point = points.get((x, g))
        if point is None:
            point = points[(x, g)] = _Point()
        if records is None:  # pending runs' results, filtered (time too) in SQL
            if pg:
                point.records += from_postgresql(rest[0]).tobytes()
                point.tentative = point.tentative or bool(rest[1])
            else:  # a result's fields (its value is never NULL)
                point.pending.append(tuple(rest))
                point.tentative = point.tentative or series_id in query.tentative
            continue
        if ranges is not None:
            rows = unpack(records)
            rows = rows[within(rows, ranges)]
            if not len(rows):
                continue
            records = rows.tobytes()
        point.records += records
        if series_id in query.tentative:
            point.tentative = True
    bytes_read = 0
    batch: list[tuple[Any, Any, bool, np.ndarray[Any, Any]]] = []
    held = 0
    for (x, g), point in points.items():
        if point.pending:
            point.records += pack(point.pending).tobytes()
        if not point.records:
            continue
        bytes_read += len(point.records)
        held += len(point.records)
        batch.append((x, g, point.tentative, unpack(point.records)))
        point.records = bytearray()
        if held >= BATCH_BYTES:
            yield from _cells(query, batch)
            batch, held = [], 0
    yield from _cells(query, batch)
    points.clear()
    memory.release_after(bytes_read)


# Points are summarised in batches of about this many bytes of records: their newest runs are
# found by one sort per batch (records.newest_of), and a batch's records are all in memory.
BATCH_BYTES = 8 * 2**20


def _cells(
    query: Query, batch: list[tuple[Any, Any, bool, np.ndarray[Any, Any]]]
) -> Iterator[Cell]:
    parts = [records for *_, records in batch]
    numbers = summarize_many(parts, newest_of(parts))
    for (x, g, tentative, _), summary in zip(batch, numbers, strict=True):
        yield cell_of(query, x, g, summary, tentative)


def cell_of(query: Query, x: Any, g: Any, numbers: Summary, tentative: bool) -> Cell:
    return Cell(
        **vars(numbers), x=x, group=g if query.group is not None else None, tentative=tentative
    )
