"""A series' points as columns: on PostgreSQL from explore's rollups and the pending runs
(series/rolled.py), or, for a time range or with samples, one row of binary arrays read from
the results' covering index; rows on SQLite."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
import psycopg
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from perfatlas.core import pgarrays
from perfatlas.core.errors import Invalid
from perfatlas.core.trust import CONFIRMING
from perfatlas.runs import versions
from perfatlas.runs.models import Result
from perfatlas.series import rolled as series_rolled

POINT_COLUMNS = ("t", "run", "value", "n", "min", "max", "p5", "p95", "environment_id")
# Every point has its time and value; the other columns can be left out (`fields`). "versions"
# is no column: the spans of the points' version labels (runs/versions.py), only when asked.
OPTIONAL_POINT_COLUMNS = (*(c for c in POINT_COLUMNS if c not in ("t", "value")), versions.VERSIONS)
_POINT_SOURCES: dict[str, Any] = {
    "t": Result.started_at, "run": Result.run_uuid, "value": Result.value, "n": Result.n,
    "min": Result.min, "max": Result.max, "p5": Result.p5, "p95": Result.p95,
    "environment_id": Result.environment_id,
}  # fmt: skip
# How each column comes out of `array_send(array_agg(column))` on PostgreSQL.
_PG_POINT_DECODERS: dict[str, Any] = {
    "t": pgarrays.timestamps, "run": pgarrays.uuids, "value": pgarrays.floats,
    "n": pgarrays.ints, "min": pgarrays.floats, "max": pgarrays.floats, "p5": pgarrays.floats,
    "p95": pgarrays.floats, "environment_id": pgarrays.ints,
}  # fmt: skip
# The columns are written with these options: numpy arrays as JSON arrays, and naive
# datetime64 (UTC) with its offset, as an aware datetime is written.
POINTS_JSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NAIVE_UTC
_NUMPY_TIME_LIMIT = np.datetime64("9999-01-01T00:00:00", "us")
_PG_POINTS_SQL: dict[tuple[tuple[str, ...], bool, bool, bool], str] = {}


@dataclass(frozen=True, slots=True)
class SeriesPoints:
    # One sequence per field, for orjson.dumps(..., option=POINTS_JSON_OPTIONS): numpy arrays
    # and JSON fragments on PostgreSQL, lists on SQLite.
    columns: dict[str, Any]
    total: int  # points in the whole series
    last_at: dt.datetime | None
    # Points older than the first returned are there, in the range asked for (past `limit`).
    older: bool


def series_points(
    session: Session,
    *,
    series_id: int,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    limit: int = 10_000,
    with_samples: bool = False,
    fields: Iterable[str] | None = None,
    version_names: Collection[str] = (),
) -> SeriesPoints:
    """The newest `limit` points, oldest first, as columns: t, value and the `fields` asked
    for (every column when None; "versions" only when named, with `version_names` the labels
    that name a version). Read from the covering index (samples from the table)."""
    wanted = set(POINT_COLUMNS if fields is None else fields) | {"t", "value"}
    unknown = wanted - {*POINT_COLUMNS, versions.VERSIONS}
    if unknown:
        raise Invalid(
            "fields",
            f"unknown column {sorted(unknown)[0]!r}; one of {', '.join(OPTIONAL_POINT_COLUMNS)}",
        )
    asked = {*wanted}
    if versions.VERSIONS in wanted:  # the runs' uuids are read too, to find their labels
        wanted = (wanted - {versions.VERSIONS}) | {"run"}
    names = tuple(c for c in POINT_COLUMNS if c in wanted)
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        raw = connection.connection.driver_connection
        if since is None and until is None and not with_samples:
            by_variant = versions.VERSIONS in asked
            rolled, total, last_at = series_rolled.newest_points(
                raw,  # type: ignore[arg-type]
                (*names, "variant_id") if by_variant else names,
                series_id=series_id,
                limit=limit,
            )
            if by_variant:
                spans = versions.from_variants(
                    connection, rolled.pop("variant_id"), rolled["run"], version_names
                )
                rolled = _leave_run_unless(asked, rolled)
                rolled[versions.VERSIONS] = spans
            return SeriesPoints(_for_json(rolled), total, last_at, total > len(rolled["t"]))
        ranged = _by_runs(asked, version_names, connection, _pg_series_points(
            raw,  # type: ignore[arg-type]
            names,
            series_id=series_id,
            since=since,
            until=until,
            limit=limit,
            with_samples=with_samples,
        ))  # fmt: skip
        return SeriesPoints(_for_json(ranged.columns), ranged.total, ranged.last_at, ranged.older)
    sources = [_POINT_SOURCES[c] for c in names]
    if with_samples:
        names, sources = (*names, "samples"), [*sources, Result.samples]
    # A confirmation job's runs are not part of the history (runs.confirming).
    history = (Result.series_id == series_id, Result.flags.op("&")(CONFIRMING) == 0)
    query = select(*sources).where(*history)
    if since:
        query = query.where(Result.started_at >= since)
    if until:
        query = query.where(Result.started_at < until)
    # One point more than asked for, to know whether there are older ones.
    query = query.order_by(Result.started_at.desc()).limit(limit + 1)
    rows = connection.execute(query).all()
    older = len(rows) > limit
    rows = list(reversed(rows[:limit]))
    if "run" in names:  # ties in time by run, as series/rolled.py orders them
        t, run = names.index("t"), names.index("run")
        rows.sort(key=lambda row: (row[t], str(row[run])))
    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in names]
    total, last_at = connection.execute(
        select(func.count(), func.max(Result.started_at)).where(*history)
    ).one()
    return _by_runs(
        asked, version_names, connection,
        SeriesPoints(dict(zip(names, columns, strict=True)), total, last_at, older),
    )  # fmt: skip


def _leave_run_unless(asked: set[str], columns: dict[str, Any]) -> dict[str, Any]:
    return columns if "run" in asked else {k: v for k, v in columns.items() if k != "run"}


def _by_runs(
    asked: set[str], version_names: Collection[str], connection: Any, points: SeriesPoints
) -> SeriesPoints:
    """The points with their versions' spans read from their runs, when asked for."""
    if versions.VERSIONS not in asked:
        return points
    runs = versions.as_uuids(points.columns["run"])
    columns = _leave_run_unless(asked, points.columns)
    columns[versions.VERSIONS] = versions.from_runs(connection, runs, version_names)
    return SeriesPoints(columns, points.total, points.last_at, points.older)


def _pg_points_sql(names: tuple[str, ...], *, since: bool, until: bool, samples: bool) -> str:
    """One row: one binary array per column of the newest points, newest first, one point more
    than asked for (when it is there, the series has more points than were asked for)."""
    key = (names, since, until, samples)
    sql = _PG_POINTS_SQL.get(key)
    if sql is None:
        columns = [_POINT_SOURCES[c].key for c in names]
        aggregates = [f"array_send(array_agg({c}))" for c in columns]
        if samples:
            columns.append("samples")
            aggregates.append("array_agg(samples::text)")
        where = [_PG_HISTORY]
        if since:
            where.append("started_at >= %(since)s")
        if until:
            where.append("started_at < %(until)s")
        sql = (
            f"SELECT {', '.join(aggregates)} FROM (SELECT {', '.join(columns)} FROM results"
            f" WHERE {' AND '.join(where)} ORDER BY started_at DESC LIMIT %(limit)s + 1) AS newest"
        )
        _PG_POINTS_SQL[key] = sql
    return sql


# A confirmation job's runs are not part of the history (runs.confirming).
_PG_HISTORY = f"series_id = %(series_id)s AND flags & {CONFIRMING} = 0"
_PG_WHOLE_SQL = f"SELECT count(*), max(started_at) FROM results WHERE {_PG_HISTORY}"


def _pg_series_points(
    raw: psycopg.Connection[Any],
    names: tuple[str, ...],
    *,
    series_id: int,
    since: dt.datetime | None,
    until: dt.datetime | None,
    limit: int,
    with_samples: bool,
) -> SeriesPoints:
    sql = _pg_points_sql(
        names, since=since is not None, until=until is not None, samples=with_samples
    )
    params = {"series_id": series_id, "since": since, "until": until, "limit": limit}
    with raw.cursor(binary=True) as cur:
        arrays = cur.execute(sql, params).fetchone()
        assert arrays is not None  # an aggregate without GROUP BY always answers one row
        decoded = {c: _PG_POINT_DECODERS[c](data) for c, data in zip(names, arrays, strict=False)}
        t = decoded["t"]
        more = len(t) > limit
        last_at: dt.datetime | None
        if since is None and until is None and not more:
            # Every point of the series was read: its count and newest time are at hand.
            total = len(t)
            last_at = t.max().astype(dt.datetime).replace(tzinfo=dt.UTC) if total else None
        else:
            whole = cur.execute(_PG_WHOLE_SQL, params).fetchone()
            assert whole is not None
            total, last_at = whole[0], whole[1].astimezone(dt.UTC) if whole[1] else None
    if more:  # an oldest point, past the newest `limit`, read only to know it is there
        drop = int(np.argmin(t))
        decoded = {c: np.delete(v, drop, axis=0) for c, v in decoded.items()}
        t = decoded["t"]
        if with_samples:
            arrays = [*arrays[:-1], [v for i, v in enumerate(arrays[-1]) if i != drop]]
    # Newest first, as the subquery ordered them: PostgreSQL feeds a plain aggregate over an
    # ordered subquery in that order, and all the aggregates see the same rows in the same
    # order, so the columns stay aligned. The order itself is checked rather than assumed.
    # (Ordered by run too in SQL, a prepared statement's generic plan sorted the whole series.)
    order: Any = slice(None, None, -1)
    if len(t) > 1 and bool((t[1:] > t[:-1]).any()):
        order = np.argsort(t, kind="stable")
    ordered = t[order]
    if "run" in decoded and len(t) > 1 and bool((ordered[1:] == ordered[:-1]).any()):
        # Ties in time by run, as series/rolled.py orders them.
        halves = np.ascontiguousarray(decoded["run"]).view(">u8").reshape(-1, 2)
        order = np.lexsort((halves[:, 1], halves[:, 0], t))

    def arranged(column: Any) -> Any:
        if isinstance(column, list):
            return column[::-1] if isinstance(order, slice) else [column[i] for i in order]
        return np.ascontiguousarray(column[order])

    columns = {c: arranged(v) for c, v in decoded.items()}  # _for_json by the caller
    if with_samples:
        samples = arranged(arrays[-1] or [])
        columns["samples"] = orjson.Fragment(("[" + ",".join(samples) + "]").encode())
    return SeriesPoints(columns, total, last_at, more)


def _for_json(columns: dict[str, Any]) -> dict[str, Any]:
    """Numpy columns as orjson writes them (POINTS_JSON_OPTIONS): the uuids as one JSON
    fragment, and times past orjson's reach as datetimes."""
    t = columns["t"]
    if len(t) and t[-1] >= _NUMPY_TIME_LIMIT:
        # orjson cannot write a datetime64 in year 9999, which a run stored before times were
        # checked may have: as datetimes, such a series stays readable.
        columns["t"] = t.astype(object).tolist()
    if "run" in columns:
        columns["run"] = orjson.Fragment(pgarrays.uuids_json(columns["run"]))
    return columns
