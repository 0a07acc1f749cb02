"""Explore's points from the digests (rollups/digests.py) and the results of runs still pending,
for plots that cover more results than an exact answer reads quickly.

One statement reads both, as explore/rolled.py reads the rollups: one snapshot, so a run is in a
digest or pending, never both, never neither. A point's digests are merged, the pending runs'
results sketched on the way: every figure is exact but the median, p5 and p95, which are within
core.sketch.ALPHA of the exact figure (docs/explore.md, "Explore's numbers"). What the digests
cannot split, a time filter, is for the exact path."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import (
    LargeBinary,
    case,
    false,
    func,
    literal,
    literal_column,
    null,
    union_all,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.core.db import BINARY_RESULTS
from perfatlas.core.records import from_postgresql, pack
from perfatlas.explore.aggregate import Cell
from perfatlas.explore.rolled import (
    RECORD_COLUMNS,
    Rolled,
    cell_of,
    kept,
    over_variants,
    pending_packed,
    pending_rows,
)
from perfatlas.rollups.digests import COLUMNS, Digest, digests_of, summarize
from perfatlas.rollups.models import ExploreDigest


@dataclass
class _Point:
    digests: list[Digest] = field(default_factory=list)
    parts: list[np.ndarray[Any, Any]] = field(default_factory=list)
    pending: list[tuple[Any, ...]] = field(default_factory=list)
    tentative: bool = False


def _digest_columns(read: Rolled, pg: bool) -> list[ColumnElement[Any]]:
    """The digests' side after x and g, as the pending side's columns line up: on PostgreSQL one
    row per point, the digests' numbers aggregated by the database (the sketches and newest runs
    joined end to end, the sums of means as an array for math.fsum); on SQLite one row per
    digest."""
    condition = kept(read)
    table = ExploreDigest
    if not pg:
        count: ColumnElement[Any] = table.count.expression
        if condition is not None:
            count = case((condition, table.count), else_=null())
        return [
            table.series_id, null().label("records"), *[null() for _ in RECORD_COLUMNS],
            count.label("count"), *[getattr(table, c) for c in COLUMNS[1:]],
        ]  # fmt: skip
    empty = literal(b"", LargeBinary)
    aggregates: list[Any] = [
        func.sum(table.count), func.sum(table.repetitions), func.array_agg(table.mean_sum),
        func.min(table.min), func.max(table.max), func.bit_or(table.flags),
        *[func.string_agg(getattr(table, c), empty, type_=LargeBinary) for c in COLUMNS[6:]],
    ]  # fmt: skip
    tentative = read.query.tentative
    marked: Any = func.bool_or(table.series_id.in_(sorted(tentative)) if tentative else false())
    if condition is not None:
        aggregates = [a.filter(condition) for a in aggregates]
        marked = marked.filter(condition)
    return [null().label("series_id"), null().label("records"), null(), marked, *aggregates]


def grouped(session: Session, read: Rolled) -> list[Cell]:
    """Every point of x (and group) from the digests and the pending runs (no time filter)."""
    assert read.ranges is None, "a time filter splits records, which digests cannot"
    query = read.query
    group = query.group if query.group is not None else false()
    pg = session.get_bind().dialect.name == "postgresql"
    spare = 2 if pg else len(RECORD_COLUMNS)  # the pending side's columns after `records`
    pending = (pending_packed if pg else pending_rows)(query, group).add_columns(
        *[null() for _ in COLUMNS]
    )
    digests = over_variants(read, group, ExploreDigest, _digest_columns(read, pg))
    if pg:  # by x and g, by position: each rendering of a dimension has bind parameters of its own
        digests = digests.group_by(literal_column("1"), literal_column("2"))
    statement = union_all(pending, digests)
    points: dict[tuple[Any, Any], _Point] = {}
    options = {BINARY_RESULTS: True} if pg else {}
    for x, g, series_id, _, *rest in session.execute(statement, execution_options=options).all():
        given, digest = rest[:spare], rest[spare:]
        if digest[0] is None and given[0] is None:
            continue  # digests the filters leave out
        point = points.setdefault((x, g), _Point())
        if digest[0] is not None:
            if pg:  # the point's digests aggregated: one digest of their parts end to end
                digest[2] = math.fsum(digest[2])
                point.tentative = point.tentative or bool(given[1])
            else:
                point.tentative = point.tentative or series_id in query.tentative
            point.digests.append(Digest(*digest))
        elif pg:  # the pending runs' results of the point, packed (explore/rolled.py)
            point.parts.append(from_postgresql(given[0]))
            point.tentative = point.tentative or bool(given[1])
        else:
            point.pending.append(tuple(given))
            point.tentative = point.tentative or series_id in query.tentative
    every: list[Digest] = []
    owner: list[int] = []
    for index, point in enumerate(points.values()):
        if point.pending:
            point.parts.append(pack(point.pending))
        if point.parts:
            records = np.concatenate(point.parts)
            # digests_of keeps the newest of records in start order.
            records = records[np.lexsort((records["lo"], records["hi"], records["started"]))]
            point.digests.extend(digests_of(records, [0], [len(records)]))
        every.extend(point.digests)
        owner.extend([index] * len(point.digests))
    numbers = summarize(every, owner, len(points)) if points else []
    return [
        cell_of(query, x, g, summary, point.tentative)
        for ((x, g), point), summary in zip(points.items(), numbers, strict=True)
    ]
