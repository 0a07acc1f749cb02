"""A series' newest points from explore's rollups (PostgreSQL): the chunks that can hold them and
the results of the runs still pending, read in one statement, so in one snapshot.

A folded result is a fixed-size record in a chunk of its (series, variant) rollup
(rollups/records.py RECORD). Ten thousand points are some five hundred rows of packed records,
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
sorted here."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import psycopg

from perfatlas.core import pgarrays
from perfatlas.rollups import fold
from perfatlas.rollups.records import (
    EPOCH,
    PG_RECORD,
    PG_RECORD_SQL,
    RECORD,
    from_postgresql_fields,
)
from perfatlas.runs.trust import CONFIRMING

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
), pending AS (
  SELECT string_agg({PG_RECORD_SQL} || int4send(coalesce(environment_id, 0)), ''::bytea)
    AS packed
  FROM rollup_pending p JOIN results x ON x.run_id = p.run_id
  WHERE metric = (SELECT metric FROM series WHERE id = %(series_id)s)
    AND series_id = %(series_id)s AND flags & {CONFIRMING} = 0
)
SELECT string_agg(r.records, ''::bytea), array_send(array_agg(r.count)),
       array_send(array_agg(coalesce(v.environment_id, 0))),
       (SELECT coalesce(sum(count), 0) FROM explore_digests WHERE series_id = %(series_id)s),
       (SELECT packed FROM pending)
FROM chosen
JOIN explore_rollups r
  ON r.series_id = %(series_id)s AND r.variant_id = chosen.variant_id AND r.chunk = chosen.chunk
JOIN run_variants v ON v.id = chosen.variant_id
"""


def newest_points(
    raw: psycopg.Connection[Any], names: tuple[str, ...], *, series_id: int, limit: int
) -> tuple[dict[str, Any], int, dt.datetime | None]:
    """The series' newest `limit` points, oldest first, as numpy columns (`names`; "run" as (n,
    16) uuid bytes, "environment_id" as a list when one is missing), the whole series' count
    and its newest start."""
    chunks = -(-limit // fold.CHUNK_RECORDS)
    with raw.cursor(binary=True) as cur:
        row = cur.execute(
            _SQL, {"series_id": series_id, "limit": limit, "chunks": chunks}
        ).fetchone()
    assert row is not None  # an aggregate without GROUP BY always answers one row
    packed, counts, environments, folded, pending = row
    given = np.frombuffer(pending or b"", dtype=_PG_POINT)
    late = from_postgresql_fields(given)
    folded_records = np.frombuffer(packed or b"", dtype=RECORD)
    # Most series have no pending run: then the records are read where they arrived.
    records = np.concatenate([folded_records, late]) if len(late) else folded_records
    environment = np.repeat(
        np.asarray(pgarrays.ints(environments)), np.asarray(pgarrays.ints(counts))
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
        elif name == "n":
            columns[name] = records["n"].take(order).astype(np.int64)
        else:
            columns[name] = records[name].take(order)
    last_at = None if last is None else EPOCH + dt.timedelta(microseconds=last)
    return columns, int(folded) + len(late), last_at
