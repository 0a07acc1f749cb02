"""Explore's digests: per (series, variant), what a point needs of its folded results in a size
that grows with neither (models.ExploreDigest): the count, the repetitions, the sum of the
means times their repetitions, min, max, the flags, the newest runs, and a quantile sketch
(core/sketch.py) each of the values, the p5 and the p95.

The fold keeps them with the rollups (fold.py `_append`), and explore reads them instead of the
records when a plot covers more results than `PERFATLAS_EXPLORE_EXACT_RESULTS` (explore/
sketched.py): every number of a point is then exact but the median, p5 and p95, which are
within sketch.ALPHA (docs/explore.md, "Explore's numbers")."""

from __future__ import annotations

import math
import uuid as uuid_mod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session

from perfatlas.core import sketch
from perfatlas.core.records import (
    MEDIAN_INTERVAL_RUNS,
    RUNS_PER_POINT,
    Summary,
    newest_records,
    uuids,
)
from perfatlas.rollups.models import ExploreDigest

# A newest run as a digest keeps it: its start (µs since the epoch) and uuid halves.
NEWEST = np.dtype([("started", "<i8"), ("hi", "<u8"), ("lo", "<u8")])
# The sketched fields of a record and the columns their sketches are stored in.
SKETCHED = (("value", "value_sketch"), ("p5", "p5_sketch"), ("p95", "p95_sketch"))
KEYS_PER_QUERY = 900


@dataclass(slots=True)
class Digest:
    count: int
    repetitions: int
    mean_sum: float
    min: float
    max: float
    flags: int
    newest: bytes
    value_sketch: bytes
    p5_sketch: bytes
    p95_sketch: bytes


COLUMNS: tuple[str, ...] = tuple(Digest.__slots__)


@dataclass(slots=True)
class Stored:
    """A pair's stored digest, and where its head chunk of explore_rollups is."""

    digest: Digest
    head_chunk: int
    head_count: int


def _as_newest(records: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    out = np.empty(len(records), dtype=NEWEST)
    for name in ("started", "hi", "lo"):
        out[name] = records[name]
    return out


def _sketches(
    records: np.ndarray[Any, Any],
    pair_of: np.ndarray[Any, Any],
    pairs: int,
    old: Sequence[Digest | None],
    field: str,
    column: str,
) -> list[bytes]:
    """Each pair's sketch of `field`: its old sketch plus its records' keys."""
    new = sketch.entries(sketch.keys(records[field]), np.ones(len(records), dtype=np.int64))
    stored = [getattr(d, column) if d is not None else b"" for d in old]
    given = np.concatenate([new, sketch.decode(b"".join(stored))])
    owner = np.concatenate([pair_of, _owners(stored, sketch.ENTRY.itemsize)])
    merged = sketch.merge(owner, given)
    bounds = np.searchsorted(merged["owner"], np.arange(pairs + 1))
    plain = np.empty(len(merged), dtype=sketch.ENTRY)
    plain["key"], plain["count"] = merged["key"], merged["count"]
    data = plain.tobytes()
    size = sketch.ENTRY.itemsize
    return [data[bounds[i] * size : bounds[i + 1] * size] for i in range(pairs)]


def _owners(parts: Sequence[bytes], size: int) -> np.ndarray[Any, Any]:
    """The index of the part each record of b"".join(parts) came from."""
    return np.repeat(np.arange(len(parts), dtype=np.int64), _owners_sizes(parts, size))


def _newest_of_pairs(
    records: np.ndarray[Any, Any],
    at: np.ndarray[Any, Any],
    sizes: np.ndarray[Any, Any],
    old: Sequence[Digest | None],
) -> list[bytes]:
    """Each pair's newest runs (NEWEST records, newest first, at most RUNS_PER_POINT): of the
    last RUNS_PER_POINT records of its slice (in start order) and its old digest's."""
    pairs = len(at)
    taken = np.minimum(sizes, RUNS_PER_POINT)
    # The last `taken` indices of each slice, all at once.
    first = np.repeat(at + sizes - taken, taken)
    within = np.arange(int(taken.sum())) - np.repeat(np.cumsum(taken) - taken, taken)
    stored = [d.newest if d is not None else b"" for d in old]
    runs = np.concatenate(
        [_as_newest(records[first + within]), np.frombuffer(b"".join(stored), dtype=NEWEST)]
    )
    owner = np.concatenate([np.repeat(np.arange(pairs), taken), _owners(stored, NEWEST.itemsize)])
    order = np.lexsort((runs["lo"], runs["hi"], runs["started"], owner))
    runs, owner = runs[order], owner[order]
    bounds = np.searchsorted(owner, np.arange(pairs + 1))
    data = runs.tobytes()
    size = NEWEST.itemsize
    out = []
    for i in range(pairs):
        start = max(int(bounds[i]), int(bounds[i + 1]) - RUNS_PER_POINT)
        out.append(
            np.frombuffer(data[start * size : int(bounds[i + 1]) * size], dtype=NEWEST)[
                ::-1
            ].tobytes()
        )
    return out


def digests_of(
    records: np.ndarray[Any, Any],
    starts: Sequence[int],
    ends: Sequence[int],
    old: Sequence[Digest | None] | None = None,
) -> list[Digest]:
    """One digest per slice records[starts[i]:ends[i]] (consecutive, none empty), each merged
    with old[i] when given."""
    pairs = len(starts)
    old = old if old is not None else [None] * pairs
    at = np.asarray(starts, dtype=np.int64)
    sizes = np.asarray(ends, dtype=np.int64) - at
    pair_of = np.repeat(np.arange(pairs), sizes)
    reps = records["n"].astype(np.int64)
    repetitions = np.add.reduceat(reps, at)
    weighted: list[float] = (records["mean"] * reps).tolist()  # type: ignore[assignment]
    low = np.minimum.reduceat(records["min"], at)
    high = np.maximum.reduceat(records["max"], at)
    flags = np.bitwise_or.reduceat(records["flags"].astype(np.int64), at)
    sketches = {
        column: _sketches(records, pair_of, pairs, old, field, column) for field, column in SKETCHED
    }
    newest = _newest_of_pairs(records, at, sizes, old)
    out: list[Digest] = []
    for i in range(pairs):
        first, end = int(starts[i]), int(ends[i])
        digest = Digest(
            count=end - first, repetitions=int(repetitions[i]),
            mean_sum=math.fsum(weighted[first:end]), min=float(low[i]),
            max=float(high[i]), flags=int(flags[i]), newest=newest[i],
            value_sketch=sketches["value_sketch"][i], p5_sketch=sketches["p5_sketch"][i],
            p95_sketch=sketches["p95_sketch"][i],
        )  # fmt: skip
        before = old[i]
        if before is not None:
            digest.count += before.count
            digest.repetitions += before.repetitions
            digest.mean_sum += before.mean_sum
            digest.min = min(digest.min, before.min)
            digest.max = max(digest.max, before.max)
            digest.flags |= before.flags
        out.append(digest)
    return out


def summarize(digests: Sequence[Digest], cell: Sequence[int], cells: int) -> list[Summary]:
    """The numbers of `cells` points, digest i belonging to point cell[i] (each point has at
    least one): exact but for the median, p5 and p95, which come from the merged sketches."""
    owner = np.asarray(cell, dtype=np.int64)
    order = np.argsort(owner, kind="stable")
    starts = np.searchsorted(owner[order], np.arange(cells))

    def column(name: str, dtype: Any) -> np.ndarray[Any, Any]:
        values = np.fromiter((getattr(d, name) for d in digests), dtype=dtype, count=len(digests))
        return values[order]

    count = np.add.reduceat(column("count", np.int64), starts)
    repetitions = np.add.reduceat(column("repetitions", np.int64), starts)
    low = np.minimum.reduceat(column("min", np.float64), starts)
    high = np.maximum.reduceat(column("max", np.float64), starts)
    flags = np.bitwise_or.reduceat(column("flags", np.int64), starts)
    sums: list[float] = column("mean_sum", np.float64).tolist()  # type: ignore[assignment]
    ends: list[int] = [*starts[1:].tolist(), len(digests)]  # type: ignore[misc]
    quantiles = {
        name: _quantiles([getattr(d, name) for d in digests], owner, cells, q)
        for name, q in (("value_sketch", 0.5), ("p5_sketch", 0.05), ("p95_sketch", 0.95))
    }
    newest = _newest_by_cell([d.newest for d in digests], owner, cells)
    out = []
    for i in range(cells):
        # Few runs: the interval of the median is the repetitions' range, which digests hold
        # exactly; more: order statistics, which sketches only approximate (left unknown).
        few = int(count[i]) < MEDIAN_INTERVAL_RUNS
        out.append(
            Summary(
                n=int(count[i]),
                repetitions=int(repetitions[i]),
                median=quantiles["value_sketch"][i],
                mean=math.fsum(sums[starts[i] : ends[i]]) / int(repetitions[i]),
                min=float(low[i]),
                max=float(high[i]),
                p5=quantiles["p5_sketch"][i],
                p95=quantiles["p95_sketch"][i],
                flags=int(flags[i]),
                runs=newest[i],
                median_low=float(low[i]) if few else None,
                median_high=float(high[i]) if few else None,
            )
        )
    return out


def _quantiles(parts: list[bytes], cell: np.ndarray[Any, Any], cells: int, q: float) -> list[float]:
    """Each cell's q-th quantile of the merged sketches of its digests."""
    owner = np.repeat(cell, _owners_sizes(parts, sketch.ENTRY.itemsize))
    merged = sketch.merge(owner, sketch.decode(b"".join(parts)))
    bounds = np.searchsorted(merged["owner"], np.arange(cells + 1))
    return [sketch.quantile(merged[bounds[i] : bounds[i + 1]], q) for i in range(cells)]


def _owners_sizes(parts: Sequence[bytes], size: int) -> np.ndarray[Any, Any]:
    return np.fromiter((len(p) // size for p in parts), dtype=np.int64, count=len(parts))


def _newest_by_cell(
    parts: list[bytes], cell: np.ndarray[Any, Any], cells: int
) -> list[list[uuid_mod.UUID]]:
    """Each cell's newest runs (at most RUNS_PER_POINT, newest first) of its digests' newest."""
    runs = np.frombuffer(b"".join(parts), dtype=NEWEST)
    owner = np.repeat(cell, _owners_sizes(parts, NEWEST.itemsize))
    order = np.argsort(owner, kind="stable")
    runs, owner = runs[order], owner[order]
    bounds = np.searchsorted(owner, np.arange(cells + 1))
    out = []
    for i in range(cells):
        out.append(uuids(newest_records(runs[bounds[i] : bounds[i + 1]])))
    return out


def read(
    session: Session, pairs: Sequence[tuple[int, int]], pg: bool
) -> dict[tuple[int, int], Stored]:
    """The stored digests of these (series, variant) pairs (those that have one)."""
    found: dict[tuple[int, int], Stored] = {}
    if not pairs:
        return found
    fields = [*COLUMNS, "head_chunk", "head_count"]
    if pg:
        raw = session.connection().connection.driver_connection
        with raw.cursor(binary=True) as cur:  # type: ignore[union-attr]
            cur.execute(
                f"SELECT d.series_id, d.variant_id, {', '.join(f'd.{c}' for c in fields)} "
                "FROM unnest(%(s)s::int[], %(v)s::int[]) AS p(series_id, variant_id) "
                "JOIN explore_digests AS d "
                "ON d.series_id = p.series_id AND d.variant_id = p.variant_id",
                {"s": [p[0] for p in pairs], "v": [p[1] for p in pairs]},
                prepare=False,
            )
            rows = cur.fetchall()
    else:
        wanted = set(pairs)
        series = sorted({s for s, _ in pairs})
        table = ExploreDigest
        columns = [getattr(table, c) for c in fields]
        rows = []
        for start in range(0, len(series), KEYS_PER_QUERY):
            part = series[start : start + KEYS_PER_QUERY]
            statement = select(table.series_id, table.variant_id, *columns).where(
                table.series_id.in_(part)
            )
            rows.extend(row for row in session.execute(statement) if (row[0], row[1]) in wanted)
    for series_id, variant_id, *values in rows:
        *digest, head_chunk, head_count = values
        found[(series_id, variant_id)] = Stored(Digest(*digest), head_chunk, head_count)
    return found


_PG_TYPES = {
    "series_id": "int", "variant_id": "int", "workload": "text", "metric": "text",
    "count": "int", "repetitions": "bigint", "mean_sum": "float8", "min": "float8",
    "max": "float8", "flags": "int", "newest": "bytea", "value_sketch": "bytea",
    "p5_sketch": "bytea", "p95_sketch": "bytea", "head_chunk": "int", "head_count": "int",
}  # fmt: skip


def write(session: Session, rows: Sequence[dict[str, Any]], pg: bool) -> None:
    """Insert or replace these digests (rows of ExploreDigest's columns)."""
    if not rows:
        return
    if pg:
        # One statement for every row, each column one array sent in binary (%b): thousands
        # of rows a fold, which one by one cost more than the fold's own work.
        names = list(_PG_TYPES)
        arrays = ", ".join(f"%({n})b::{_PG_TYPES[n]}[]" for n in names)
        updates = ", ".join(f"{n} = excluded.{n}" for n in names[2:])
        cursor = session.connection().connection.driver_connection.cursor()  # type: ignore[union-attr]
        with cursor as cur:
            cur.execute(
                f"INSERT INTO explore_digests ({', '.join(names)}) SELECT * FROM unnest({arrays}) "
                f"ON CONFLICT (series_id, variant_id) DO UPDATE SET {updates}",
                {n: [row[n] for row in rows] for n in names},
                prepare=False,
            )
        return
    insert = sqlite.insert(ExploreDigest)
    statement = insert.on_conflict_do_update(
        index_elements=["series_id", "variant_id"],
        set_={c: insert.excluded[c] for c in [*COLUMNS, "head_chunk", "head_count"]},
    )
    for start in range(0, len(rows), 1000):
        session.execute(statement, list(rows[start : start + 1000]))


def keep(
    session: Session,
    records: np.ndarray[Any, Any],
    pairs: Sequence[tuple[int, int]],
    starts: Sequence[int],
    ends: Sequence[int],
    names: dict[int, tuple[str, str]],
    pg: bool,
    stored: dict[tuple[int, int], Stored],
    heads: dict[tuple[int, int], tuple[int, int]],
) -> None:
    """Fold records (sorted by pair; pair i is records[starts[i]:ends[i]]) into the pairs'
    digests (`stored`, as read()), with where each pair's head chunk now is, in the caller's
    transaction."""
    before = [stored[p].digest if p in stored else None for p in pairs]
    merged = digests_of(records, starts, ends, before)
    rows = []
    for pair, digest in zip(pairs, merged, strict=True):
        workload, metric = names[pair[0]]
        head_chunk, head_count = heads[pair]
        rows.append(
            {"series_id": pair[0], "variant_id": pair[1], "workload": workload, "metric": metric,
             **{c: getattr(digest, c) for c in COLUMNS}, "head_chunk": head_chunk,
             "head_count": head_count}
        )  # fmt: skip
    write(session, rows, pg)
