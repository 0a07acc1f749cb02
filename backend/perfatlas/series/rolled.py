"""A series' newest points from explore's rollups (PostgreSQL): the chunks that can hold them and
the results of the runs still pending, read in one statement, so in one snapshot.

A folded result is a fixed-size record in a chunk of its (series, variant) rollup
(core/records.py RECORD). Ten thousand points are some five hundred rows of packed records,
which numpy reads as they come, where the results' covering index gives ten thousand entries
that PostgreSQL serializes field by field.

Which chunks: each pair's head (its digest says which), and the full chunks (rollups/models.py
ChunkBounds) whose latest start is at or after F. Any set of chunks holding `limit` records or
more holds as many that started at or after the earliest start among them; F is that start for
the full chunks with the latest starts, just enough of them (`limit` / CHUNK_RECORDS). So the
series' newest `limit` records all started at or after F, and a full chunk that holds one has
its latest start at or after F. When the full chunks hold fewer than `limit`, all are read.
Both lookups are index ranges: what is read grows with `limit` and with the series' variants
(a head each, up to CHUNK_RECORDS records), not with the series' length. The series' count is
its digests' and the pending runs'; its newest start is among the records read, which are
sorted here.

How they are read: a row per chunk, then one for the pending results and the count. The
chunks aggregated into one 800 kB value took twice as long to arrive as 500 rows of 1.6 kB. Each
chunk is looked up by its key (LATERAL ... LIMIT 1) because the statement is prepared once a
connection has run it five times (api.deps.get_session keeps prepared statements), and the
generic plan of a plain join merged every rollup row of the series with the chosen chunks:
what grows with the series' length, 6 ms instead of 0.3 for ten points at 1 M results."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg

from perfatlas.core.records import (
    EPOCH,
    PG_RECORD,
    PG_RECORD_SQL,
    RECORD,
    from_postgresql_fields,
)
from perfatlas.core.trust import CONFIRMING
from perfatlas.rollups import fold

# A pending result as the database packs it: PG_RECORD, then its environment (0: none).
_PG_POINT = np.dtype([*PG_RECORD.descr, ("environment_id", ">i4")])

_SQL = f"""
WITH top AS (
  SELECT count, first_started FROM explore_chunk_bounds WHERE series_id = %(series_id)s
  ORDER BY last_started DESC LIMIT %(chunks)s
), floor AS (
  SELECT CASE WHEN sum(count) >= %(limit)s THEN min(first_started) END AS f FROM top
), chosen AS (
  SELECT variant_id, chunk FROM explore_chunk_bounds
  WHERE series_id = %(series_id)s
    AND last_started >= coalesce((SELECT f FROM floor), -9223372036854775808)
  UNION
  SELECT variant_id, head_chunk FROM explore_digests WHERE series_id = %(series_id)s
)
SELECT r.records, r.count, coalesce(v.environment_id, 0), NULL::bigint, chosen.variant_id
FROM chosen
CROSS JOIN LATERAL (
  SELECT records, count FROM explore_rollups
  WHERE series_id = %(series_id)s AND variant_id = chosen.variant_id AND chunk = chosen.chunk
  LIMIT 1
) r
JOIN run_variants v ON v.id = chosen.variant_id
UNION ALL
SELECT (
  SELECT string_agg({PG_RECORD_SQL} || int4send(coalesce(environment_id, 0)), ''::bytea)
  FROM rollup_pending p JOIN results x ON x.run_id = p.run_id
  WHERE metric = (SELECT metric FROM series WHERE id = %(series_id)s)
    AND series_id = %(series_id)s AND flags & {CONFIRMING} = 0
), NULL, NULL, (SELECT coalesce(sum(count), 0) FROM explore_digests WHERE series_id = %(series_id)s),
  NULL
"""


def newest_points(
    raw: psycopg.Connection[Any], names: tuple[str, ...], *, series_id: int, limit: int
) -> tuple[dict[str, Any], int, dt.datetime | None]:
    """The series' newest `limit` points, oldest first, as numpy columns (`names`; "run" as (n,
    16) uuid bytes, "environment_id" as a list when one is missing, "variant_id" 0 for a pending
    run's point), the whole series' count and its newest start."""
    chunks = -(-limit // fold.CHUNK_RECORDS)
    with raw.cursor(binary=True) as cur:
        rows = cur.execute(
            _SQL, {"series_id": series_id, "limit": limit, "chunks": chunks}
        ).fetchall()
    # The chunks' rows, then one of the pending results and the series' folded count (the only
    # row without a chunk's count).
    summary = next(row for row in rows if row[1] is None)
    chunks_read = [row for row in rows if row[1] is not None]
    pending, folded = summary[0], summary[3]
    given = np.frombuffer(pending or b"", dtype=_PG_POINT)
    late = from_postgresql_fields(given)
    folded_records = np.frombuffer(b"".join(row[0] for row in chunks_read), dtype=RECORD)
    # Most series have no pending run: then the records are read where they arrived.
    records = np.concatenate([folded_records, late]) if len(late) else folded_records
    environment = np.repeat(
        np.fromiter((row[2] for row in chunks_read), np.int64, len(chunks_read)),
        np.fromiter((row[1] for row in chunks_read), np.int64, len(chunks_read)),
    )
    if len(late):
        environment = np.concatenate([environment, given["environment_id"].astype(np.int64)])
    started = records["started"]
    # The series' newest record is one of its newest `limit`: it was read.
    last = int(started.max()) if len(started) else None
    # Oldest first; ties in start by run, so that the same request reads the same points.
    order = np.argsort(started, kind="stable")
    ordered = started[order]
    if len(ordered) > 1 and bool((ordered[1:] == ordered[:-1]).any()):
        order = np.lexsort((records["lo"], records["hi"], started))
    order = order[-limit:]
    # Each column wanted is gathered on its own: a gather of whole records copies every field
    # of each (twice the time for the UI's five columns).
    columns: dict[str, Any] = {}
    for name in names:
        if name == "t":
            columns[name] = started.take(order).astype(np.int64).view("datetime64[us]")
        elif name == "run":
            halves = np.empty(len(order), dtype=[("hi", ">u8"), ("lo", ">u8")])
            halves["hi"], halves["lo"] = records["hi"].take(order), records["lo"].take(order)
            columns[name] = halves.view(np.uint8).reshape(-1, 16)
        elif name == "environment_id":
            chosen_environment = environment[order]
            columns[name] = (
                [int(e) or None for e in chosen_environment]
                if (chosen_environment == 0).any()
                else chosen_environment
            )
        elif name == "variant_id":  # read only when asked: most reads want no versions
            variants = np.repeat(
                np.fromiter((row[4] for row in chunks_read), np.int64, len(chunks_read)),
                np.fromiter((row[1] for row in chunks_read), np.int64, len(chunks_read)),
            )
            if len(late):
                variants = np.concatenate([variants, np.zeros(len(late), np.int64)])
            columns[name] = variants[order]
        elif name == "n":
            columns[name] = records["n"].take(order).astype(np.int64)
        else:
            columns[name] = records[name].take(order)
    last_at = None if last is None else EPOCH + dt.timedelta(microseconds=last)
    return columns, int(folded) + len(late), last_at


# A digest's newest runs (rollups/digests.py NEWEST) are newest first: its latest start is the
# first record's first field, a little-endian int8 (a fold leaves at least one; NULL, which max
# passes over, for a digest without).
_NEWEST_START = "CASE WHEN length(newest) >= 8 THEN {} END".format(
    " | ".join(f"(get_byte(newest, {i})::int8 << {8 * i})" for i in range(7, -1, -1))
)
# (series/listing.py reads it too.)
NEWEST_START_SQL = _NEWEST_START
_SIZES_SQL = f"""
WITH folded AS (
  SELECT series_id, sum(count) AS n, max({_NEWEST_START}) AS last FROM explore_digests
  WHERE series_id = ANY(%(ids)s) GROUP BY series_id
), pending AS (
  SELECT x.series_id, count(*) AS n, max(x.started_at) AS last
  FROM rollup_pending p JOIN results x ON x.run_id = p.run_id
  WHERE x.series_id = ANY(%(ids)s) AND x.flags & {CONFIRMING} = 0 GROUP BY x.series_id
)
SELECT series_id, folded.n, folded.last, pending.n, pending.last
FROM folded FULL JOIN pending USING (series_id)
"""


def history_sizes(
    raw: psycopg.Connection[Any], series_ids: Sequence[int]
) -> dict[int, tuple[int, dt.datetime | None]]:
    """Each series' count and newest start, from its digests and its pending runs' results,
    in one statement (so one snapshot: a fold committing between two reads would move runs
    from the pending to the digests unseen, or seen twice). What is read grows with the
    series' variants and the pending runs, not with the series' length; summed by PostgreSQL, as
    the digests of fifty short series can be ten times as many rows."""
    sizes: dict[int, tuple[int, dt.datetime | None]] = {}
    for series_id, n, last, pending, pending_last in raw.execute(
        _SIZES_SQL, {"ids": list(series_ids)}
    ):
        folded_last = None if last is None else EPOCH + dt.timedelta(microseconds=last)
        if pending_last is not None:  # in the connection's time zone
            pending_last = pending_last.astimezone(dt.UTC)
        newest = max((t for t in (folded_last, pending_last) if t is not None), default=None)
        sizes[series_id] = (int(n or 0) + int(pending or 0), newest)
    return sizes
