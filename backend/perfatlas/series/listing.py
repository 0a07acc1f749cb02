"""The series list in an order other than the ids': by name, points, newest point or open
alerts. Those keys are not columns of `series` (points and newest come from explore's digests,
alerts from their table), so the matching series' keys are read whole and sorted here; a
cursor is the last key given out, so that a page goes on after it whatever came in between
(keyset, not offsets). What is read grows with the matching series, not with their runs.

Reference-only series (published figures, `runs.reference`: one point per column) go after
the series with a history of their own in every order but the name's: a list opened on them
hides what this machine measured."""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Sequence
from typing import Any

import orjson
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.alerts.enums import AlertStatus
from perfatlas.alerts.models import Alert
from perfatlas.core.errors import Invalid
from perfatlas.core.records import EPOCH
from perfatlas.core.trust import CONFIRMING, REFERENCE
from perfatlas.runs.models import Result, Series
from perfatlas.series import rolled as series_rolled

# The orders of the series list (`sort=`); "id", the order they first appeared, is the API's
# default (older clients walk its integer cursors).
SORTS = ("id", "newest", "alerts", "points", "name")

_FEW = 500  # a page of the list, at most
# Each series' count, newest start and whether every point is a reference run's, in one
# statement, for every series of a sorted list: the ids joined as a set (a hash join), where
# `= ANY` compared each digest with each of 10,000 ids (175 ms for the list at 10,000 series).
_KEYS_SQL = f"""
WITH wanted AS (SELECT DISTINCT unnest(%(ids)s::int[]) AS series_id),
folded AS (
  SELECT d.series_id, sum(d.count) AS n, max({series_rolled.NEWEST_START_SQL}) AS last,
         bool_and(d.flags & {REFERENCE} <> 0) AS reference
  FROM explore_digests d JOIN wanted USING (series_id) GROUP BY d.series_id
), pending AS (
  SELECT x.series_id, count(*) AS n, max(x.started_at) AS last,
         bool_and(x.flags & {REFERENCE} <> 0) AS reference
  FROM rollup_pending p JOIN results x ON x.run_id = p.run_id JOIN wanted USING (series_id)
  WHERE x.flags & {CONFIRMING} = 0 GROUP BY x.series_id
)
SELECT series_id, folded.n, folded.last, pending.n, pending.last, folded.reference,
       pending.reference
FROM folded FULL JOIN pending USING (series_id)
"""
# Every point of the series is a reference run's: its digests' flags all carry REFERENCE (a
# digest's flags are its results' OR'd), and so do its pending results.
_REFERENCE_SQL = f"""
SELECT series_id, bool_and(flags & {REFERENCE} <> 0) FROM (
  SELECT series_id, flags FROM explore_digests WHERE series_id = ANY(%(ids)s)
  UNION ALL
  SELECT x.series_id, x.flags FROM rollup_pending p JOIN results x ON x.run_id = p.run_id
  WHERE x.series_id = ANY(%(ids)s) AND x.flags & {CONFIRMING} = 0
) AS parts GROUP BY series_id
"""


def open_alerts(session: Session, series_ids: Sequence[int]) -> dict[int, int]:
    """Each series' count of open alerts (only the series that have some). For many series
    every open alert is counted and the others left here: open alerts are few (triage closes
    them), and a list of thousands of ids is a statement of thousands of parameters."""
    if not series_ids:
        return {}
    query = select(Alert.series_id, func.count()).where(Alert.status == AlertStatus.open.value)
    if len(series_ids) <= _FEW:
        query = query.where(Alert.series_id.in_(series_ids))
    wanted = set(series_ids)
    return {
        series_id: int(n)
        for series_id, n in session.execute(query.group_by(Alert.series_id))
        if series_id in wanted
    }


def reference_only(session: Session, series_ids: Sequence[int]) -> set[int]:
    if not series_ids:
        return set()
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        raw: Any = connection.connection.driver_connection
        rows = raw.execute(_REFERENCE_SQL, {"ids": list(series_ids)})
        return {series_id for series_id, only in rows if only}
    every_one = func.min(Result.flags.op("&")(REFERENCE))
    return {
        series_id
        for series_id, least in connection.execute(
            select(Result.series_id, every_one)
            .where(Result.series_id.in_(series_ids), Result.flags.op("&")(CONFIRMING) == 0)
            .group_by(Result.series_id)
        )
        if least
    }


# Each series' count of points, newest start (microseconds since the epoch: datetimes are made
# for a page's series only) and whether it is reference-only.
Keys = dict[int, tuple[int, int | None, bool]]
_MICROSECOND = dt.timedelta(microseconds=1)


def _micros(t: dt.datetime | None) -> int | None:
    return None if t is None else (t - EPOCH) // _MICROSECOND


def history_keys(session: Session, series_ids: Sequence[int], history_sizes: Any) -> Keys:
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        references = reference_only(session, series_ids)
        return {
            series_id: (n, _micros(last), series_id in references)
            for series_id, (n, last) in history_sizes(session, series_ids).items()
        }
    raw: Any = connection.connection.driver_connection
    keys: Keys = {}
    for series_id, n, last, pending, pending_last, folded_ref, pending_ref in raw.execute(
        _KEYS_SQL, {"ids": list(series_ids)}
    ):
        newest = last if pending_last is None else max(last or 0, _micros(pending_last) or 0)
        parts = [r for r in (folded_ref, pending_ref) if r is not None]
        keys[series_id] = (int(n or 0) + int(pending or 0), newest, bool(parts) and all(parts))
    return keys


def sort_key(
    sort: str,
    *,
    series_id: int,
    name: tuple[str, str, str, str],
    points: int,
    last_us: int | None,
    alerts: int,
    reference: bool,
) -> tuple[Any, ...]:
    """The key a series sorts by, ascending, ending with its id (every key is unique)."""
    # Newest first; a series without points after every one with.
    newest = (int(reference), last_us is None, -(last_us or 0))
    if sort == "newest":
        return (*newest, -series_id)
    if sort == "alerts":
        return (-alerts, *newest, -series_id)
    if sort == "points":
        return (-points, int(reference), series_id)
    if sort == "name":
        return (*name, series_id)
    return (series_id,)


def encode(sort: str, key: tuple[Any, ...]) -> str:
    return base64.urlsafe_b64encode(orjson.dumps([sort, *key])).decode()


def decode(sort: str, cursor: str) -> tuple[Any, ...]:
    try:
        given, *key = orjson.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, TypeError) as exc:
        raise Invalid("query.cursor", "not a cursor this API gave out") from exc
    if given != sort:
        raise Invalid("query.cursor", f"a cursor of the order {given!r}, not of sort={sort}")
    # Compared with the keys made here: its fields must be of their kinds (bool is an int).
    if [type(k) is str for k in key] != [kind is str for kind in _SHAPES[sort]] or not all(
        isinstance(k, kind) for k, kind in zip(key, _SHAPES[sort], strict=True)
    ):
        raise Invalid("query.cursor", "not a cursor this API gave out")
    return tuple(key)


_SHAPES: dict[str, tuple[type, ...]] = {
    "newest": (int, int, int, int),
    "alerts": (int, int, int, int, int),
    "points": (int, int, int),
    "name": (str, str, str, str, int),
}


def sorted_page(
    session: Session,
    *,
    matching: list[Any],
    sort: str,
    limit: int,
    cursor: str | None,
    history_sizes: Any,
) -> tuple[list[tuple[Series, int, dt.datetime | None, int, bool]], str | None, int]:
    """A page of the matching series in `sort` order after `cursor`, each with its points,
    newest start, open alerts and whether it is reference-only; the cursor after the page's
    last series (None on the last page); and how many series match."""
    after = decode(sort, cursor) if cursor else None
    # By Core, not the ORM: 10,000 rows cost the ORM's result handling 65 ms.
    rows = (
        session.connection()
        .execute(
            select(Series.id, Series.workload, Series.metric, Agent.name, Series.target)
            .join(Agent, Agent.id == Series.agent_id)
            .where(*matching)
        )
        .all()
    )
    ids = [row[0] for row in rows]
    keys = history_keys(session, ids, history_sizes)
    alerts = open_alerts(session, ids)
    references = {series_id for series_id, (_, _, reference) in keys.items() if reference}
    keyed = []
    for series_id, workload, metric, agent, target in rows:
        points, last_us, _ = keys.get(series_id, (0, None, False))
        key = sort_key(
            sort, series_id=series_id, name=(workload, metric, agent, target), points=points,
            last_us=last_us, alerts=alerts.get(series_id, 0), reference=series_id in references,
        )  # fmt: skip
        # (A cursor's key, read back from JSON, is a list: compared as a tuple.)
        if after is None or list(key) > list(after):
            keyed.append((key, series_id, points, last_us))
    keyed.sort()
    page = keyed[:limit]
    next_cursor = encode(sort, page[-1][0]) if len(keyed) > limit else None
    by_id = {s.id: s for s in session.scalars(select(Series).where(Series.id.in_(
        [series_id for _, series_id, _, _ in page]
    )))}  # fmt: skip
    return (
        [
            (
                by_id[i],
                n,
                None if last is None else EPOCH + last * _MICROSECOND,
                alerts.get(i, 0),
                i in references,
            )
            for _, i, n, last in page
        ],
        next_cursor,
        len(rows),
    )
