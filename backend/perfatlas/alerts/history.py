"""What a check reads of a series: its newest points, as columns (a Window), and, for the few
series with something to reconcile, the points themselves; the runs' labels are read only for
the points a cause is looked for at (analysis.causes.context_indices)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from perfatlas.alerts.reconcile import Point
from perfatlas.core.db import BINARY_RESULTS
from perfatlas.core.trust import NOT_DETECTED
from perfatlas.runs.models import Result, Run

# The results detection leaves out, as their trust bits say (core.trust.NOT_DETECTED): a
# confirmation job's runs (alternating candidate and baseline) are no history, and reference
# figures (published, entered by hand) are never detected on. Written `< 1`, not `= 0`: the
# planner takes `flags & ... = 0` for one row in two hundred, and would then read a series'
# every result to sort them, not its newest few from the index.
_DETECTED = f"flags & {NOT_DETECTED} < 1"


@dataclass(slots=True)
class Window:
    """A series' newest points as columns, oldest first: what the detector reads of every
    series checked. `points()` makes Points of them for the series that need reconciling."""

    run_ids: list[int] = field(default_factory=list)
    started: list[dt.datetime] = field(default_factory=list)
    # Each run's samples, or its value alone when it has none.
    samples: list[list[float]] = field(default_factory=list)
    environment_ids: list[int | None] = field(default_factory=list)

    def points(self) -> list[Point]:
        """The points, their times in UTC, without their runs' labels (`complete` adds them)."""
        return [
            Point(run_id, _utc(started), samples, env_id, {})
            for run_id, started, samples, env_id in zip(
                self.run_ids, self.started, self.samples, self.environment_ids, strict=True
            )
        ]


def _utc(moment: dt.datetime) -> dt.datetime:
    if moment.tzinfo is None:  # SQLite keeps no zone
        return moment.replace(tzinfo=dt.UTC)
    return moment if moment.tzinfo is dt.UTC else moment.astimezone(dt.UTC)


# What a point is read from: its run, time, value, samples and environment.
_POINT = (Result.run_id, Result.started_at, Result.value, Result.samples, Result.environment_id)


def _history(window: int) -> Any:
    """The newest `window` points of one series (`series_id`), newest first."""
    return (
        select(*_POINT)
        .where(text(_DETECTED))
        .order_by(Result.started_at.desc(), Result.run_id.desc())
        .limit(window)
    )


# The same on PostgreSQL for a whole chunk of series in one statement, one row a series: its
# points' columns as arrays (oldest first) and its samples as one JSON array of arrays, read in
# the binary format. A row per point cost more to fetch and unpack than to find: 200 points of
# 200 series are 40,000 rows.
_ORDER = "ORDER BY started_at, run_id"
_PG_WINDOWS_SQL = (
    "SELECT s.id, w.run_ids, w.started, w.vals, w.samples, w.envs"
    " FROM unnest(CAST(:ids AS integer[])) AS s(id) CROSS JOIN LATERAL"
    f" (SELECT array_agg(run_id {_ORDER}) AS run_ids,"
    f"   array_agg(started_at {_ORDER}) AS started,"
    f"   array_agg(value {_ORDER}) AS vals,"
    f"   '[' || string_agg(coalesce(samples::text, 'null'), ',' {_ORDER}) || ']' AS samples,"
    f"   array_agg(environment_id {_ORDER}) AS envs"
    "  FROM (SELECT run_id, started_at, value, samples, environment_id FROM results"
    f"   WHERE series_id = s.id AND {_DETECTED}{{until}}"
    "   ORDER BY started_at DESC, run_id DESC LIMIT :window) AS newest) AS w"
)
_PG_WINDOWS = text(_PG_WINDOWS_SQL.format(until=""))
# The same, of the points that started before :until (a window further back in a series).
_PG_WINDOWS_UNTIL = text(_PG_WINDOWS_SQL.format(until=" AND started_at < :until"))


def load_windows(
    session: Session, series_ids: Sequence[int], window: int, until: dt.datetime | None = None
) -> dict[int, Window]:
    """The newest `window` points of each series (that started before `until`, when given),
    oldest first (an empty Window for a series with none)."""
    found: dict[int, Window] = {sid: Window() for sid in series_ids}
    if not series_ids:
        return found
    if session.get_bind().dialect.name == "postgresql":
        rows_of_series = session.execute(
            _PG_WINDOWS if until is None else _PG_WINDOWS_UNTIL,
            {"ids": list(series_ids), "window": window}
            | ({} if until is None else {"until": until}),
            execution_options={BINARY_RESULTS: True},
        )
        for sid, run_ids, started, values, samples, env_ids in rows_of_series:
            if run_ids is None:  # no point: the aggregates of no row
                continue
            found[sid] = Window(
                run_ids, started,
                [s or [v] for s, v in zip(orjson.loads(samples), values, strict=True)], env_ids,
            )  # fmt: skip
        return found
    for sid in series_ids:
        query = _history(window).where(Result.series_id == sid)
        if until is not None:
            query = query.where(Result.started_at < until)
        rows = list(session.execute(query))
        rows.reverse()
        found[sid] = Window(
            [r[0] for r in rows], [r[1] for r in rows],
            [list(r[3] or ()) or [r[2]] for r in rows], [r[4] for r in rows],
        )  # fmt: skip
    return found


def complete(session: Session, lists: Iterable[Sequence[Point]]) -> None:
    """Each point's run labels, read once per run."""
    points = [p for ps in lists for p in ps]
    wanted = sorted({p.run_id for p in points})
    labels: dict[int, dict[str, str]] = {}
    for start in range(0, len(wanted), 1000):
        chunk = wanted[start : start + 1000]
        for run_id, run_labels in session.execute(
            select(Run.id, Run.labels).where(Run.id.in_(chunk))
        ):
            labels[run_id] = run_labels
    for p in points:
        p.labels = dict(labels.get(p.run_id) or {})


def load_following(session: Session, series_id: int, since: dt.datetime, count: int) -> list[Point]:
    """One series' oldest `count` points that started at or after `since`, oldest first, as
    Window.points() makes them: what follows a window further back."""
    rows = session.execute(
        select(*_POINT)
        .where(Result.series_id == series_id, Result.started_at >= since, text(_DETECTED))
        .order_by(Result.started_at, Result.run_id)
        .limit(count)
    )
    return [
        Point(run_id, _utc(started), list(samples or ()) or [value], env_id, {})
        for run_id, started, value, samples, env_id in rows
    ]


def load_points(
    session: Session, series_id: int, window: int, until: dt.datetime | None = None
) -> list[Point]:
    """One series' newest `window` points (before `until`, when given), oldest first, as
    Window.points() makes them."""
    return load_windows(session, [series_id], window, until)[series_id].points()
