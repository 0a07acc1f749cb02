"""Folding pending runs into explore's rollups, off the upload path.

Ingest marks each new run pending (`rollup_pending`, in the run's own transaction). A fold takes
a batch of pending runs, files each under its variant (`run_variants`, inserted when new),
appends its results' records to the head chunk of their (series, variant) rollup, opening a
new chunk when the head is full, and deletes the batch's pending rows, all in one
transaction: a run is either pending or folded in any snapshot, never both, never neither.

One fold at a time writes (a transaction-level advisory lock on PostgreSQL; SQLite has one
writer anyway, and the fold starts with its write): every batch touches most heads of the
series it covers, so concurrent folds would only wait for each other's row locks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Table, and_, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from perfatlas.core.canonical import content_hash
from perfatlas.core.records import PG_RECORD_SQL, RECORD, from_postgresql, pack, unpack
from perfatlas.core.trust import CONFIRMING
from perfatlas.rollups import digests
from perfatlas.rollups.models import VARIANT_FIELDS, ChunkBounds, ExploreRollup, RunVariant
from perfatlas.runs.models import Result, RollupPending, Run

# Records per chunk: appending rewrites the head, so this bounds what one append rewrites
# (CHUNK_RECORDS x 80 bytes), while explore reads one row per chunk. 20 keeps a row under
# PostgreSQL's TOAST threshold (about 2 kB): with 512 a head grew to 40 kB out of line, every
# append wrote it anew, and a fold of 10 million results left 45 GB of dead TOAST behind for 0.8
# GB of records. Inline, an update rewrites 2 kB at most, in place when the page has room.
# Changing it takes a migration that folds the rollups again (as 0014 did): a full chunk has its
# row in explore_chunk_bounds, written when the fold fills it, and a series' newest points read
# no full chunk without one (series/rolled.py).
CHUNK_RECORDS = 20
BATCH_RUNS = 1000
# pg_try_advisory_xact_lock's key for folds ("rollups" in ASCII, as a number).
FOLD_LOCK = 0x726F6C6C757073
KEYS_PER_QUERY = 900

_RUN_FIELDS = [getattr(Run, name) for name in VARIANT_FIELDS]
_RESULT_FIELDS = [
    Result.value, Result.p5, Result.p95, Result.mean, Result.min, Result.max, Result.started_at,
    Result.run_uuid, Result.n, Result.flags,
]  # fmt: skip


def variant_key(fields: Sequence[Any]) -> str:
    """The hash of a variant's fields (in VARIANT_FIELDS order)."""
    return content_hash(list(fields))


def _chunks(items: Sequence[Any], size: int = KEYS_PER_QUERY) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _postgresql(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def _cursor(session: Session) -> Any:
    """A cursor of the session's own connection (PostgreSQL), in its transaction. Statements
    through it are sent with prepare=False: psycopg prepares a statement run five times, and
    PostgreSQL's generic plan for the heads' lookup, made while the rollups were few, scanned
    the whole table once per pair as they grew (a fold of 1,000 runs took minutes)."""
    return session.connection().connection.driver_connection.cursor()  # type: ignore[union-attr]


# The oldest pending rows, locked, then deleted by their ids: two statements, sent unprepared
# (see _cursor), so that the delete's array is a constant the planner hashes or looks up in
# the index. Written `DELETE … WHERE run_id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)`, the
# planner may run the subquery again for every pending row (a nested semi-join, chosen when the
# statistics say the table is nearly empty, as they do after the upkeep's VACUUM of the drained
# queue, autovacuum being late or off), and each run of it passes over the rows the statement
# has deleted already and returns the next ones: the batch took every pending row, not
# `limit`, in time quadratic in them (4.5 s for 6,000 rows). A one-statement form with the ids
# as `ARRAY(SELECT …)` is computed once, but the planner cannot hash a parameter's array, and
# under the same statistics compared each row with every id (30-40 ms for 6,000 rows).
_PENDING_OLDEST = (
    "SELECT run_id FROM rollup_pending ORDER BY run_id LIMIT %(limit)s FOR UPDATE SKIP LOCKED"
)
_PENDING_DELETE = "DELETE FROM rollup_pending WHERE run_id = ANY(%(runs)s)"


def _take(session: Session, limit: int) -> list[int]:
    """Delete up to `limit` pending rows (oldest run first) and return their run ids; they come
    back if the transaction rolls back. Other folds' rows are skipped on PostgreSQL."""
    if _postgresql(session):
        with _cursor(session) as cur:
            taken = [
                row[0] for row in cur.execute(_PENDING_OLDEST, {"limit": limit}, prepare=False)
            ]
            if taken:
                cur.execute(_PENDING_DELETE, {"runs": taken}, prepare=False)
        return sorted(taken)
    oldest = select(RollupPending.run_id).order_by(RollupPending.run_id).limit(limit)
    taken_rows = session.execute(
        delete(RollupPending)
        .where(RollupPending.run_id.in_(oldest.scalar_subquery()))
        .returning(RollupPending.run_id)
    )
    return sorted(taken_rows.scalars())


def _variant_ids(session: Session, hashes: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for part in _chunks(hashes):
        statement = select(RunVariant.hash, RunVariant.id).where(RunVariant.hash.in_(part))
        found.update((digest, variant_id) for digest, variant_id in session.execute(statement))
    return found


def _variants(session: Session, rows: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Ids of the variants with these hashes, inserting the missing ones in hash order."""
    found = _variant_ids(session, sorted(rows))
    missing = [rows[h] for h in sorted(rows) if h not in found]
    if missing:
        ins = (postgresql.insert if _postgresql(session) else sqlite.insert)(RunVariant)
        session.execute(ins.on_conflict_do_nothing(index_elements=["hash"]), missing)
        found.update(_variant_ids(session, [row["hash"] for row in missing]))
    return found


def _heads(
    session: Session, pairs: set[tuple[int, int]]
) -> dict[tuple[int, int], tuple[int, int, bytes | None]]:
    """SQLite: (chunk, count, records) of the head chunk of each (series, variant) pair (on
    PostgreSQL the pair's digest says where its head is, and an append needs no records)."""
    rollup = ExploreRollup
    columns: list[Any] = [
        rollup.series_id, rollup.variant_id, rollup.chunk, rollup.count, rollup.records
    ]  # fmt: skip
    heads: dict[tuple[int, int], tuple[int, int, bytes | None]] = {}
    for part in _chunks(sorted({series for series, _ in pairs})):
        newest = (
            select(rollup.series_id, rollup.variant_id, func.max(rollup.chunk).label("chunk"))
            .where(rollup.series_id.in_(part))
            .group_by(rollup.series_id, rollup.variant_id)
            .subquery()
        )
        statement = select(*columns).join(
            newest,
            and_(
                newest.c.series_id == rollup.series_id,
                newest.c.variant_id == rollup.variant_id,
                newest.c.chunk == rollup.chunk,
            ),
        )
        for row in session.execute(statement):
            key = (row[0], row[1])
            if key in pairs:
                heads[key] = (row[2], row[3], row[4])
    return heads


def fold_batch(session: Session, *, limit: int = BATCH_RUNS) -> int | None:
    """Fold up to `limit` pending runs in the caller's transaction (the caller commits).
    Returns how many pending runs were taken (0: none left), or None when another fold holds
    the lock (it carries on with what is pending)."""
    pg = _postgresql(session)
    if pg and not session.scalar(select(func.pg_try_advisory_xact_lock(FOLD_LOCK))):
        return None
    run_ids = _take(session, limit)
    if not run_ids:
        return 0
    variant_of_run: dict[int, str] = {}
    variant_rows: dict[str, dict[str, Any]] = {}
    for part in _chunks(run_ids):
        for run_id, *fields in session.execute(
            select(Run.id, *_RUN_FIELDS).where(Run.id.in_(part), Run.confirming.is_(False))
        ):
            digest = variant_key(fields)
            variant_of_run[run_id] = digest
            if digest not in variant_rows:
                variant_rows[digest] = {
                    "hash": digest,
                    **dict(zip(VARIANT_FIELDS, fields, strict=True)),
                }
    if not variant_of_run:
        return len(run_ids)
    variant_ids = _variants(session, variant_rows)
    folded = sorted(variant_of_run)
    read = _read_packed if pg else _read_rows
    records, series_of, run_of, names = read(session, folded)
    if len(records):
        variant_by_run = {run: variant_ids[digest] for run, digest in variant_of_run.items()}
        variants = np.array([variant_by_run[int(r)] for r in run_of], dtype=np.int64)
        _append(session, records, series_of, variants, names, pg)
    return len(run_ids)


_PG_RESULTS = (
    f"SELECT run_id, series_id, workload, metric, {PG_RECORD_SQL} "
    f"FROM results WHERE run_id = ANY(%(runs)s) AND flags & {CONFIRMING} = 0"
)

Read = tuple[
    np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], dict[int, tuple[str, str]]
]


def _read_packed(session: Session, run_ids: list[int]) -> Read:
    """PostgreSQL: the runs' results as records packed by the database (records.PG_RECORD), with
    each one's series and run, and the series' names: no Python object per field."""
    with _cursor(session) as cur:
        rows = cur.execute(_PG_RESULTS, {"runs": run_ids}, prepare=False).fetchall()
    names = {series_id: (workload, metric) for _, series_id, workload, metric, _ in rows}
    records = from_postgresql(b"".join(row[4] for row in rows))
    return (
        records, np.array([row[1] for row in rows], dtype=np.int64),
        np.array([row[0] for row in rows], dtype=np.int64), names,
    )  # fmt: skip


def _read_rows(session: Session, run_ids: list[int]) -> Read:
    rows: list[tuple[Any, ...]] = []
    series: list[int] = []
    runs: list[int] = []
    names: dict[int, tuple[str, str]] = {}
    for part in _chunks(run_ids):
        statement = select(
            Result.run_id, Result.series_id, Result.workload, Result.metric, *_RESULT_FIELDS
        ).where(Result.run_id.in_(part), Result.flags.op("&")(CONFIRMING) == 0)
        for run_id, series_id, workload, metric, *fields in session.execute(statement):
            rows.append(tuple(fields))
            series.append(series_id)
            runs.append(run_id)
            names[series_id] = (workload, metric)
    return pack(rows), np.array(series, dtype=np.int64), np.array(runs, dtype=np.int64), names


def _append(
    session: Session,
    records: np.ndarray[Any, Any],
    series: np.ndarray[Any, Any],
    variants: np.ndarray[Any, Any],
    names: dict[int, tuple[str, str]],
    pg: bool,
) -> None:
    """Append the records (of the given series and variants) to their pairs' head chunks, and
    fold them into the pairs' digests (digests.py)."""
    # By pair, then oldest first within a pair (readers do not depend on the order; it keeps
    # a chunk tidy), so that what a fold writes it writes in key order.
    order = np.lexsort((records["lo"], records["hi"], records["started"], variants, series))
    records, series, variants = records[order], series[order], variants[order]
    data = records.tobytes()
    bounds = np.flatnonzero((series[1:] != series[:-1]) | (variants[1:] != variants[:-1])) + 1
    cuts = [int(i) for i in bounds]
    starts, ends = [0, *cuts], [*cuts, len(records)]
    pairs = [(int(series[i]), int(variants[i])) for i in starts]
    stored = digests.read(session, pairs, pg)
    heads: dict[tuple[int, int], tuple[int, int, bytes | None]]
    if pg:  # where each pair's head chunk is: its digest says (they are written together)
        heads = {pair: (kept.head_chunk, kept.head_count, None) for pair, kept in stored.items()}
    else:
        heads = _heads(session, set(pairs))
    # Each pair's head chunk and its count after this append, for its digest.
    new_heads: dict[tuple[int, int], tuple[int, int]] = {}
    updates: list[dict[str, Any]] = []
    inserts: list[dict[str, Any]] = []
    size = RECORD.itemsize
    # The chunks this append fills, with their records (for their bounds).
    filled: list[tuple[int, int, int, bytes]] = []
    for (series_id, variant_id), first, end in zip(pairs, starts, ends, strict=True):
        count = end - first
        chunk, used, head = heads.get((series_id, variant_id), (-1, CHUNK_RECORDS, None))
        room = min(CHUNK_RECORDS - used, count)
        if room > 0:
            updates.append(
                {"s": series_id, "v": variant_id, "c": chunk, "n": used + room,
                 "added": room, "r": data[first * size : (first + room) * size], "head": head}
            )  # fmt: skip
            new_heads[(series_id, variant_id)] = (chunk, used + room)
        for start in range(max(room, 0), count, CHUNK_RECORDS):
            chunk += 1
            piece = data[
                (first + start) * size : (first + min(start + CHUNK_RECORDS, count)) * size
            ]
            workload, metric = names[series_id]
            if len(piece) // size == CHUNK_RECORDS:
                filled.append((series_id, variant_id, chunk, piece))
            inserts.append(
                {"series_id": series_id, "variant_id": variant_id, "chunk": chunk,
                 "workload": workload, "metric": metric, "count": len(piece) // size,
                 "records": piece}
            )  # fmt: skip
            new_heads[(series_id, variant_id)] = (chunk, len(piece) // size)
    if updates and pg:
        # One statement for every head, straight through the driver: the appended records
        # travel as one bytea, each head's part found by its offset (arrays of 10,000 small
        # bytea values cost more to render than the update costs to run).
        blob = b"".join(u["r"] for u in updates)
        offsets, at = [], 1
        for u in updates:
            offsets.append(at)
            at += len(u["r"])
        with _cursor(session) as cur:
            cur.execute(
                "UPDATE explore_rollups AS r SET records = r.records || "
                "substring(%(blob)s::bytea FROM v.at FOR v.size), count = r.count + v.added "
                "FROM unnest(%(s)s::int[], %(v)s::int[], %(c)s::int[], %(at)s::int[], "
                "%(size)s::int[], %(a)s::int[]) AS v(series_id, variant_id, chunk, at, size, added) "
                "WHERE r.series_id = v.series_id AND r.variant_id = v.variant_id "
                "AND r.chunk = v.chunk RETURNING r.series_id, r.variant_id, r.chunk, "
                "CASE WHEN r.count = %(full)s THEN r.records END",
                {
                    "blob": blob, "s": [u["s"] for u in updates],
                    "v": [u["v"] for u in updates], "c": [u["c"] for u in updates],
                    "at": offsets, "size": [len(u["r"]) for u in updates],
                    "a": [u["added"] for u in updates], "full": CHUNK_RECORDS,
                },
                prepare=False,
            )  # fmt: skip
            filled += [row for row in cur.fetchall() if row[3] is not None]
    elif updates:
        filled += [
            (u["s"], u["v"], u["c"], u["head"] + u["r"]) for u in updates
            if u["n"] == CHUNK_RECORDS
        ]  # fmt: skip
        # SQLite's || makes text of blobs: the head is rewritten whole.
        table = ExploreRollup.__table__
        assert isinstance(table, Table)
        session.execute(
            update(table)
            .where(
                table.c.series_id == bindparam("s"), table.c.variant_id == bindparam("v"),
                table.c.chunk == bindparam("c"),
            )
            .values(count=bindparam("n"), records=bindparam("whole")),
            [
                {"s": u["s"], "v": u["v"], "c": u["c"], "n": u["n"], "whole": u["head"] + u["r"]}
                for u in updates
            ],
        )  # fmt: skip
    if inserts:
        session.execute(insert(ExploreRollup), inserts)
    if filled:
        session.execute(insert(ChunkBounds), [_bounds(*chunk) for chunk in filled])
    digests.keep(session, records, pairs, starts, ends, names, pg, stored, new_heads)


def _bounds(series_id: int, variant_id: int, chunk: int, records: bytes) -> dict[str, Any]:
    """A full chunk's row of explore_chunk_bounds."""
    started = unpack(records)["started"]
    return {
        "series_id": series_id, "variant_id": variant_id, "chunk": chunk,
        "count": len(started), "first_started": int(started.min()),
        "last_started": int(started.max()),
    }  # fmt: skip


def pending_count(session: Session) -> int:
    return int(session.scalar(select(func.count()).select_from(RollupPending)) or 0)


def folded_count(session: Session) -> int:
    """How many records the rollups hold."""
    return int(session.scalar(select(func.coalesce(func.sum(ExploreRollup.count), 0))) or 0)


__all__ = ["BATCH_RUNS", "CHUNK_RECORDS", "fold_batch", "folded_count", "pending_count"]
