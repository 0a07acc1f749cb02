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
from perfatlas.runs.models import Result, Series
from perfatlas.runs.trust import CONFIRMING, REFERENCE

# The orders of the series list (`sort=`); "id", the order they first appeared, is the API's
# default (older clients walk its integer cursors).
SORTS = ("id", "newest", "alerts", "points", "name")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

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
    """Each series' count of open alerts (only the series that have some)."""
    if not series_ids:
        return {}
    rows = session.execute(
        select(Alert.series_id, func.count())
        .where(Alert.status == AlertStatus.open.value, Alert.series_id.in_(series_ids))
        .group_by(Alert.series_id)
    )
    return {series_id: int(n) for series_id, n in rows}


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


def sort_key(
    sort: str,
    *,
    series_id: int,
    name: tuple[str, str, str, str],
    points: int,
    last_at: dt.datetime | None,
    alerts: int,
    reference: bool,
) -> tuple[Any, ...]:
    """The key a series sorts by, ascending, ending with its id (every key is unique)."""
    # Newest first; a series without points after every one with.
    age = -1 if last_at is None else (_EPOCH - last_at) // dt.timedelta(microseconds=1)
    newest = (int(reference), last_at is None, age)
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
    rows = session.execute(
        select(Series.id, Series.workload, Series.metric, Agent.name, Series.target)
        .join(Agent, Agent.id == Series.agent_id)
        .where(*matching)
    ).all()
    ids = [row[0] for row in rows]
    sizes = history_sizes(session, ids)
    alerts = open_alerts(session, ids)
    references = reference_only(session, ids)
    keyed = []
    for series_id, workload, metric, agent, target in rows:
        points, last_at = sizes.get(series_id, (0, None))
        key = sort_key(
            sort, series_id=series_id, name=(workload, metric, agent, target), points=points, last_at=last_at,
            alerts=alerts.get(series_id, 0), reference=series_id in references,
        )  # fmt: skip
        # (A cursor's key, read back from JSON, is a list: compared as a tuple.)
        if after is None or list(key) > list(after):
            keyed.append((key, series_id, points, last_at))
    keyed.sort()
    page = keyed[:limit]
    next_cursor = encode(sort, page[-1][0]) if len(keyed) > limit else None
    by_id = {s.id: s for s in session.scalars(select(Series).where(Series.id.in_(
        [series_id for _, series_id, _, _ in page]
    )))}  # fmt: skip
    return (
        [(by_id[i], n, last, alerts.get(i, 0), i in references) for _, i, n, last in page],
        next_cursor,
        len(rows),
    )
