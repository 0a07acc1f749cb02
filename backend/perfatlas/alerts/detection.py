"""Checking series: load the newest points of each series, run the detector over them, and
reconcile its change points with the stored alerts. The entry points of the worker's tasks and
of `perfatlas check`.

Everything here is re-derivable from the results, so a check run twice (a task delivered
again, the nightly pass after the on-ingest one) changes nothing the second time."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from collections.abc import Iterable, Sequence
from typing import Any

import orjson
from sqlalchemy import DateTime, Float, Integer, String, column, select, text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from perfatlas.alerts import stopped
from perfatlas.alerts.enums import AlertKind
from perfatlas.alerts.models import Alert, AlertRule
from perfatlas.alerts.reconcile import Point, Report, reconcile
from perfatlas.alerts.rules import thresholds_for
from perfatlas.analysis.detector import ChangePoint, attach_causes, detect, detect_many
from perfatlas.core.config import Settings
from perfatlas.runs.models import Environment, Result, Run, Series
from perfatlas.runs.trust import NOT_DETECTED

# A task that hits one of these (two checks racing on one series, a dropped connection) is
# retried; the second attempt sees what the first one committed.
RETRYABLE = (IntegrityError, OperationalError)
# Environment keys that are measurements, not configuration (older agents sent them).
VOLATILE_KEYS = ("statvfs.f_bfree", "statvfs.f_bavail", "statvfs.f_ffree", "statvfs.f_favail")
SERIES_CHUNK = 200


def _load_points(session: Session, series_id: int, window: int) -> list[Point]:
    points = _load_many(session, [series_id], window)[series_id]
    _complete(session, [points])
    return points


# The results detection leaves out, as their trust bits say (runs.trust.NOT_DETECTED): a
# confirmation job's runs (alternating candidate and baseline) are no history, and reference
# figures (published, entered by hand) are never detected on. Written `< 1`, not `= 0`: the
# planner takes `flags & ... = 0` for one row in two hundred, and would then read a series'
# every result to sort them, not its newest few from the index.
_DETECTED = f"flags & {NOT_DETECTED} < 1"


def _history(window: int) -> Any:
    """The newest `window` points of one series (`series_id`), newest first."""
    return (
        select(
            Result.series_id, Result.run_id, Result.started_at, Result.value, Result.samples,
            Result.environment_id,
        )
        .where(text(_DETECTED))
        .order_by(Result.started_at.desc(), Result.run_id.desc())
        .limit(window)
    )  # fmt: skip


# The same on PostgreSQL for a whole chunk of series in one statement, the samples as text
# (decoded here).
_PG_HISTORY = text(
    "SELECT s.id, p.run_id, p.started_at, p.value, p.samples::text, p.environment_id"
    " FROM unnest(CAST(:ids AS integer[])) AS s(id) CROSS JOIN LATERAL"
    " (SELECT run_id, started_at, value, samples, environment_id FROM results"
    f"  WHERE series_id = s.id AND {_DETECTED}"
    "  ORDER BY started_at DESC, run_id DESC LIMIT :window) AS p"
).columns(
    # The time as the driver gives it (aware, in the session's zone): made UTC by _complete,
    # only for the points it is read of (a type decorator per row cost a sixth of a check).
    column("id", Integer), column("run_id", Integer), column("started_at", DateTime(timezone=True)),
    column("value", Float), column("samples", String), column("environment_id", Integer),
)  # fmt: skip


def _load_many(session: Session, series_ids: Sequence[int], window: int) -> dict[int, list[Point]]:
    """The newest `window` points of each series, oldest first, without their runs' labels
    (_complete: only the series with something to reconcile need them)."""
    found: dict[int, list[Point]] = {sid: [] for sid in series_ids}
    if not series_ids:
        return found
    if session.get_bind().dialect.name == "postgresql":
        rows = session.execute(_PG_HISTORY, {"ids": list(series_ids), "window": window}).all()
        for sid, run_id, started_at, value, samples, env_id in rows:
            found[sid].append(
                Point(run_id, started_at, orjson.loads(samples) or [value], env_id, {})
            )
    else:
        for sid in series_ids:
            found[sid] = [
                Point(run_id, started_at, list(samples) or [value], env_id, {})
                for _, run_id, started_at, value, samples, env_id in session.execute(
                    _history(window).where(Result.series_id == sid)
                )
            ]
    for points in found.values():
        points.reverse()
    return found


def _complete(session: Session, lists: Iterable[Sequence[Point]]) -> None:
    """Each point's run labels, read once per run, and its time in UTC."""
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
        if p.started_at.tzinfo is None:  # SQLite keeps no zone
            p.started_at = p.started_at.replace(tzinfo=dt.UTC)
        elif p.started_at.tzinfo is not dt.UTC:
            p.started_at = p.started_at.astimezone(dt.UTC)


def _environments(session: Session, ids: Iterable[int | None]) -> dict[int, dict[str, Any]]:
    wanted = sorted({i for i in ids if i is not None})
    if not wanted:
        return {}
    out = {}
    for env_id, data in session.execute(
        select(Environment.id, Environment.data).where(Environment.id.in_(wanted))
    ):
        clean = dict(data or {})
        statvfs = clean.get("statvfs")
        if isinstance(statvfs, dict):
            clean["statvfs"] = {
                k: v for k, v in statvfs.items() if f"statvfs.{k}" not in VOLATILE_KEYS
            }
        out[env_id] = clean
    return out


def _contexts(points: Sequence[Point], envs: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "environment": envs.get(p.environment_id, {}) if p.environment_id else {},
            "labels": p.labels,
        }
        for p in points
    ]


def change_points(
    session: Session, series: Series, window: int
) -> tuple[list[Point], list[ChangePoint]]:
    """The newest `window` points of one series and the changes in them, causes attached
    (improvements too, at the detector's default confidence)."""
    points = _load_points(session, series.id, window)
    cps = detect([p.samples for p in points], series.direction)  # type: ignore[arg-type]
    envs = _environments(session, (p.environment_id for p in points))
    return points, attach_causes(cps, _contexts(points, envs))


def series_for_runs(session: Session, run_uuids: Sequence[str]) -> list[int]:
    uuids = []
    for value in run_uuids:
        try:
            uuids.append(uuid_mod.UUID(str(value)))
        except ValueError:
            continue
    if not uuids:
        return []
    run_ids = select(Run.id).where(Run.uuid.in_(uuids))
    return sorted(
        session.scalars(select(Result.series_id).where(Result.run_id.in_(run_ids)).distinct())
    )


def check_runs(session: Session, run_uuids: Sequence[str], *, settings: Settings) -> Report:
    """The on-ingest check: the series of these runs, over their newest detect_window points."""
    return check_series(
        session, series_for_runs(session, run_uuids), settings=settings,
        window=settings.detect_window,
    )  # fmt: skip


def check_all(session: Session, *, settings: Settings, window: int) -> Report:
    """The nightly pass over every series."""
    ids = list(session.scalars(select(Series.id).order_by(Series.id)))
    return check_series(session, ids, settings=settings, window=window)


def check_series(
    session: Session, series_ids: Sequence[int], *, settings: Settings, window: int
) -> Report:
    report = Report()
    rules = list(session.scalars(select(AlertRule)))
    floor = min([settings.alert_min_confidence, *(r.min_confidence or 1.0 for r in rules)])
    for start in range(0, len(series_ids), SERIES_CHUNK):
        chunk = series_ids[start : start + SERIES_CHUNK]
        points_of = _load_many(session, chunk, window)
        loaded = [
            (series, points_of[series.id])
            for series in session.scalars(select(Series).where(Series.id.in_(chunk)))
        ]
        # Series with a detector's alert: the others, with no change found, have nothing to
        # reconcile (most series, most of the time).
        alerted = set(
            session.scalars(
                select(Alert.series_id)
                .where(Alert.series_id.in_(chunk), Alert.kind != AlertKind.stopped.value)
                .distinct()
            )
        )
        found = detect_many(
            [([p.samples for p in points], series.direction) for series, points in loaded],  # type: ignore[misc]
            min_confidence=floor,
        )
        report.series += len(loaded)
        changed = [
            (series, points, cps)
            for (series, points), cps in zip(loaded, found, strict=True)
            if cps or series.id in alerted
        ]
        _complete(session, (points for _, points, _ in changed))
        envs = _environments(session, (p.environment_id for _, pts, _ in changed for p in pts))
        for series, points, cps in changed:
            cps = attach_causes(cps, _contexts(points, envs))
            limits = thresholds_for(series, series.agent.name, rules, settings)
            reconcile(session, series, points, cps, limits, settings, report)
        # A series that had stopped reporting and has a run again.
        report.resolved += stopped.resume(
            session, [s.id for s, _ in loaded], settings=settings, delays=report.notifications
        )
        session.commit()
    return report
