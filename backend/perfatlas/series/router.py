"""HTTP routes of series: the list and a series' points."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from perfatlas.api.deps import ReadPrincipal, SessionDep, SettingsDep
from perfatlas.core.inputs import UTCTime
from perfatlas.runs.models import Series
from perfatlas.series import service
from perfatlas.series.schemas import SeriesListed, SeriesPage, SeriesPoints, SeriesRead

router = APIRouter(tags=["runs"])
# The series list's orders (series/listing.py SORTS).
SeriesSort = Literal["id", "newest", "alerts", "points", "name"]


def _series_read(series: Series, points: int, last_at: dt.datetime | None) -> SeriesRead:
    return SeriesRead(
        id=series.id, workload=series.workload, metric=series.metric, unit=series.unit,
        direction=series.direction, agent=series.agent.name, target=series.target,
        parameters=series.parameters, labels=series.labels, points=points, last_at=last_at,
    )  # fmt: skip


@router.get("/series", operation_id="list_series", response_model=SeriesPage)
def list_series(
    session: SessionDep,
    _: ReadPrincipal,
    workload: str | None = None,
    metric: str | None = None,
    agent: str | None = None,
    sort: Annotated[
        SeriesSort,
        Query(
            description="id (the order they first appeared), newest (newest point first), "
            "alerts (most open alerts first), points (most first), name (workload, metric, "
            "agent, target); reference-only series last but by name"
        ),
    ] = "id",
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(description="next_cursor of the page before")] = None,
) -> SeriesPage:
    """List series (one metric's history for one set of dimensions) with their point counts."""
    rows, next_cursor, total = service.list_series(
        session, workload=workload, metric=metric, agent=agent, limit=limit, cursor=cursor,
        sort=sort,
    )  # fmt: skip
    items = [
        SeriesListed(
            **_series_read(s, points, last_at).model_dump(),
            open_alerts=alerts,
            reference=reference,
        )
        for s, points, last_at, alerts, reference in rows
    ]
    return SeriesPage(items=items, next_cursor=next_cursor, total=total)


@router.get(
    "/series/{series_id}/points", operation_id="get_series_points", response_model=SeriesPoints
)
def get_series_points(
    series_id: int,
    session: SessionDep,
    settings: SettingsDep,
    _: ReadPrincipal,
    since: UTCTime | None = None,
    until: UTCTime | None = None,
    limit: Annotated[int, Query(ge=1, le=100_000)] = 10_000,
    samples: bool = False,
    fields: Annotated[
        list[str] | None,
        Query(
            description="the columns wanted besides t and value, comma-separated or repeated "
            f"({', '.join(service.OPTIONAL_POINT_COLUMNS)}); every one but versions when left out"
        ),
    ] = None,
) -> Response:
    """A series' newest points (oldest first), as columns ready to plot."""
    wanted = None if fields is None else [f.strip() for v in fields for f in v.split(",") if f]
    content = service.points_json(
        session, series_id=series_id, since=since, until=until, limit=limit,
        with_samples=samples, fields=wanted, version_names=settings.series_ignore_labels,
    )  # fmt: skip
    return Response(content=content, media_type="application/json")
