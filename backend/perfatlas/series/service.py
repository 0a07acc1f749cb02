"""What routes and other domains read of series: the series list (with point counts, newest
start, open alerts), a series' header, and its points (series/points.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import orjson
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.core.errors import Invalid, NotFound
from perfatlas.core.inputs import INT32_MAX
from perfatlas.core.trust import CONFIRMING
from perfatlas.runs.models import Result, Series
from perfatlas.series import listing as series_list
from perfatlas.series import rolled as series_rolled
from perfatlas.series.points import (
    OPTIONAL_POINT_COLUMNS,
    POINT_COLUMNS,
    POINTS_JSON_OPTIONS,
    SeriesPoints,
    series_points,
)
from perfatlas.series.schemas import SeriesRead

__all__ = [
    "OPTIONAL_POINT_COLUMNS",
    "POINTS_JSON_OPTIONS",
    "POINT_COLUMNS",
    "SeriesPoints",
    "history_sizes",
    "list_series",
    "points_json",
    "series_header",
    "series_points",
]


def list_series(
    session: Session,
    *,
    workload: str | None = None,
    metric: str | None = None,
    agent: str | None = None,
    limit: int = 50,
    cursor: int | str | None = None,
    sort: str = "id",
) -> tuple[list[tuple[Series, int, dt.datetime | None, int, bool]], int | str | None, int]:
    """A page of the series matching the filters, in `sort` order (series_list.SORTS; "id":
    id order after `cursor`, an id), each with its count of points, newest start, open alerts
    and whether it is reference-only; the cursor to go on from (None on the last page); and
    how many series match in all (a count of series, which grows with them, not with their
    runs)."""
    matching = []
    if workload:
        matching.append(Series.workload == workload)
    if metric:
        matching.append(Series.metric == metric)
    if agent:
        matching.append(Series.agent_id.in_(select(Agent.id).where(Agent.name == agent)))
    if sort != "id":
        return series_list.sorted_page(
            session, matching=matching, sort=sort, limit=limit,
            cursor=None if cursor is None else str(cursor), history_sizes=history_sizes,
        )  # fmt: skip
    if isinstance(cursor, str):
        if not cursor.isdigit() or int(cursor) > INT32_MAX:
            raise Invalid(
                "query.cursor", f"{cursor[:40]} is not a series id (sort=id goes on from one)"
            )
        cursor = int(cursor)
    query = select(Series).where(*matching)
    if cursor is not None:
        query = query.where(Series.id > cursor)
    rows = list(session.scalars(query.order_by(Series.id).limit(limit + 1)))
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = rows[-1].id
    if cursor is None and next_cursor is None:
        total = len(rows)  # the whole of it is on this page
    else:
        total = session.scalar(select(func.count()).select_from(Series).where(*matching)) or 0
    ids = [s.id for s in rows]
    sizes = history_sizes(session, ids)
    alerts = series_list.open_alerts(session, ids)
    references = series_list.reference_only(session, ids)
    return (
        [(s, *sizes.get(s.id, (0, None)), alerts.get(s.id, 0), s.id in references) for s in rows],
        next_cursor,
        total,
    )


def history_sizes(
    session: Session, series_ids: Sequence[int]
) -> dict[int, tuple[int, dt.datetime | None]]:
    """Each series' count of points and newest start (a confirmation job's runs are in no
    history). On PostgreSQL from its digests and its pending runs' results
    (series/rolled.py), so that what is read grows with the series' variants, not with
    their length; on SQLite from the results."""
    if not series_ids:
        return {}
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        raw = connection.connection.driver_connection
        return series_rolled.history_sizes(raw, series_ids)  # type: ignore[arg-type]
    return {
        series_id: (n, last)
        for series_id, n, last in connection.execute(
            select(Result.series_id, func.count(), func.max(Result.started_at))
            .where(Result.series_id.in_(series_ids), Result.flags.op("&")(CONFIRMING) == 0)
            .group_by(Result.series_id)
        )
    }


_SERIES = Series.__table__.c
_HEADER = select(
    _SERIES.id, _SERIES.workload, _SERIES.metric, _SERIES.unit, _SERIES.direction,
    Agent.__table__.c.name.label("agent"), _SERIES.target, _SERIES.parameters, _SERIES.labels,
).join_from(Series.__table__, Agent.__table__, _SERIES.agent_id == Agent.__table__.c.id)  # fmt: skip


def series_header(session: Session, *, series_id: int) -> Any:
    """What a series' answers say of it (id, workload, metric, unit, direction, agent, target,
    parameters, labels), as a row: read by Core, for the series points' route, where loading
    the entity and its agent cost more than the statement."""
    row = session.connection().execute(_HEADER.where(_SERIES.id == series_id)).first()
    if row is None:
        raise NotFound(f"no series with id {series_id}")
    return row


def points_json(
    session: Session,
    *,
    series_id: int,
    since: dt.datetime | None,
    until: dt.datetime | None,
    limit: int,
    with_samples: bool,
    fields: Sequence[str] | None,
    version_names: Sequence[str],
) -> bytes:
    """The series points' answer as JSON: its header and its newest points (oldest first) as
    columns; ends the session's read."""
    series = series_header(session, series_id=series_id)
    points = series_points(
        session, series_id=series_id, since=since, until=until, limit=limit,
        with_samples=with_samples, fields=fields, version_names=version_names,
    )  # fmt: skip
    # The read is over: ended here, in this thread, the session's closing needs no trip to
    # another; with a COMMIT, as api.deps.get_session ends a read, so that its statements stay
    # prepared.
    session.commit()
    header = SeriesRead(**series._asdict(), points=points.total, last_at=points.last_at).model_dump(
        mode="json"
    )
    # orjson rather than the response model: validating 10,000 points through Pydantic would
    # cost more than reading them.
    return orjson.dumps(
        {"series": header, "older": points.older, **points.columns}, option=POINTS_JSON_OPTIONS
    )
