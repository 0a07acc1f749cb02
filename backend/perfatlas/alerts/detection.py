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

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from perfatlas.alerts import history, stopped
from perfatlas.alerts.enums import AlertKind
from perfatlas.alerts.models import Alert, AlertRule
from perfatlas.alerts.reconcile import Point, Report, reconcile
from perfatlas.alerts.rules import thresholds_for
from perfatlas.analysis.detector import (
    CONFIRM_POINTS,
    ChangePoint,
    attach_causes,
    context_indices,
    detect,
    detect_many,
)
from perfatlas.core.config import Settings
from perfatlas.runs.models import Environment, Result, Run, Series

# A task that hits one of these (two checks racing on one series, a dropped connection) is
# retried; the second attempt sees what the first one committed.
RETRYABLE = (IntegrityError, OperationalError)
# Environment keys that are measurements, not configuration (older agents sent them).
VOLATILE_KEYS = ("statvfs.f_bfree", "statvfs.f_bavail", "statvfs.f_ffree", "statvfs.f_favail")
SERIES_CHUNK = 200


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


def _with_causes(
    session: Session, found: Sequence[tuple[Sequence[Point], Sequence[ChangePoint]]]
) -> list[list[ChangePoint]]:
    """Each series' change points with their causes (analysis.causes), from the labels and
    environments of the points next to them, read here for every series at once, and of no
    other point."""
    nears = [context_indices(cps, len(points)) for points, cps in found]
    history.complete(
        session, [[points[i] for i in near] for (points, _), near in zip(found, nears, strict=True)]
    )
    envs = _environments(
        session,
        (points[i].environment_id for (points, _), near in zip(found, nears, strict=True)
         for i in near),
    )  # fmt: skip
    out = []
    for (points, cps), near in zip(found, nears, strict=True):
        contexts: list[dict[str, Any] | None] = [None] * len(points)
        for i in near:
            env_id = points[i].environment_id
            contexts[i] = {"environment": envs.get(env_id, {}) if env_id else {},
                           "labels": points[i].labels}  # fmt: skip
        out.append(attach_causes(cps, contexts))
    return out


def change_points(
    session: Session, series: Series, window: int, until: dt.datetime | None = None
) -> tuple[list[Point], list[ChangePoint]]:
    """The newest `window` points of one series (before `until`, when given) and the changes
    in them, causes attached (improvements too, at the detector's default confidence).

    A window further back is looked at with the points that follow it (CONFIRM_POINTS of
    them), so that a change near its end is judged, and its level after read, as it was once
    those points had come, not left tentative for want of them; a change among them is the
    next window's, and left out."""
    points = history.load_points(session, series.id, window, until)
    following = (
        [] if until is None else history.load_following(session, series.id, until, CONFIRM_POINTS)
    )
    seen = points + following
    cps = detect([p.samples for p in seen], series.direction)  # type: ignore[arg-type]
    (caused,) = _with_causes(session, [(seen, cps)])
    within = [cp for cp in caused if cp.index < len(points)]
    return points, within


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
        windows = history.load_windows(session, chunk, window)
        loaded = [
            (series, windows[series.id])
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
            [(w.samples, series.direction) for series, w in loaded],  # type: ignore[misc]
            min_confidence=floor,
        )
        report.series += len(loaded)
        changed = [
            (series, w.points(), cps)
            for (series, w), cps in zip(loaded, found, strict=True)
            if cps or series.id in alerted
        ]
        caused = _with_causes(session, [(points, cps) for _, points, cps in changed])
        for (series, points, _), cps in zip(changed, caused, strict=True):
            limits = thresholds_for(series, series.agent.name, rules, settings)
            reconcile(session, series, points, cps, limits, settings, report)
        # A series that had stopped reporting and has a run again.
        report.resolved += stopped.resume(
            session, [s.id for s, _ in loaded], settings=settings, delays=report.notifications
        )
        session.commit()
    return report
