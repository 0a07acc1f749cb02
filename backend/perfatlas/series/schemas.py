"""Bodies of the series API: a series with its point count, the list's page, and its points
as columns."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod

from pydantic import BaseModel

from perfatlas.runs.schemas import SeriesRef


class SeriesRead(SeriesRef):
    points: int
    last_at: dt.datetime | None


class SeriesListed(SeriesRead):
    open_alerts: int  # its alerts with status open
    # Every point is a reference run's (published figures, runs.reference).
    reference: bool


class SeriesPage(BaseModel):
    items: list[SeriesListed]
    # An id for sort=id (the default); an opaque string for the other orders.
    next_cursor: int | str | None
    total: int  # series matching the filters, on every page


class VersionSpan(BaseModel):
    """The points from index `at` on (until the next span's) have these version labels: the
    labels the series key leaves out (version, fs_version, kernel...) and the environment's
    kernel."""

    at: int
    labels: dict[str, str]


class SeriesPoints(BaseModel):
    series: SeriesRead
    # Whether the series has points older than the first returned, in the range asked for: the
    # next older window is `until` = the first `t` (plus a microsecond, so that points sharing
    # that time are not skipped).
    older: bool = False
    t: list[dt.datetime]
    value: list[float]
    # Every column unless `fields` names the ones wanted.
    run: list[uuid_mod.UUID] | None = None
    n: list[int] | None = None
    min: list[float] | None = None
    max: list[float] | None = None
    p5: list[float] | None = None
    p95: list[float] | None = None
    environment_id: list[int | None] | None = None
    samples: list[list[float]] | None = None
    # Asked for by name (`fields=versions`): the spans of the points' version labels.
    versions: list[VersionSpan] | None = None
