"""Stopped reporting: a series that a cron schedule feeds (its runs came from the schedule's
jobs, the schedule is not paused, it still picks the series' agent and target) and that has
had no run for STOPPED_PERIODS of the schedule's firings raises a `stopped` alert; the alert
is resolved (`resumed`) when a run of the series comes again. The beat pass (and detection,
when a run arrives) call this; both are idempotent."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence

from pydantic import ValidationError
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.agents.service import selects
from perfatlas.alerts import incidents
from perfatlas.alerts.enums import DETECTOR, AlertKind, AlertStatus, Resolution
from perfatlas.alerts.models import Alert
from perfatlas.alerts.status import resolve
from perfatlas.core.config import Settings
from perfatlas.core.errors import DomainError
from perfatlas.core.models import utcnow
from perfatlas.core.trust import NOT_DETECTED
from perfatlas.core.workload import WorkloadSpec
from perfatlas.jobs.enums import JobKind
from perfatlas.jobs.models import Job
from perfatlas.runs.models import Result, Run, Series
from perfatlas.schedules.models import Schedule
from perfatlas.schedules.service import cron_firings

log = logging.getLogger(__name__)

STOPPED_PERIODS = 2
# Series fed by a schedule: those with a run of one of its jobs made within this long.
LOOKBACK = dt.timedelta(days=30)
# A firing's run may take a while to arrive: at most this long is waited for after the last
# missed firing (and at most half a period).
GRACE = dt.timedelta(minutes=30)


def _history() -> ColumnElement[bool]:
    # Neither a confirmation's runs nor reference figures say the series is still fed.
    return Result.flags.op("&")(NOT_DETECTED) == 0


def _last_point(session: Session, series_id: int) -> tuple[dt.datetime, int] | None:
    row = session.execute(
        select(Result.started_at, Result.run_id)
        .where(Result.series_id == series_id, _history())
        .order_by(Result.started_at.desc(), Result.run_id.desc())
        .limit(1)
    ).first()
    return (row[0], row[1]) if row else None


def _fed_series(session: Session, schedule: Schedule, now: dt.datetime) -> list[Series]:
    jobs = select(Job.id).where(
        Job.schedule_id == schedule.id,
        Job.kind == JobKind.run.value,
        Job.created_at >= now - LOOKBACK,
    )
    ids = select(Result.series_id).join(Run, Run.id == Result.run_id).where(Run.job_id.in_(jobs))
    return list(session.scalars(select(Series).where(Series.id.in_(ids.distinct()))))


def _still_fed(schedule: Schedule, spec: WorkloadSpec, series: Series) -> bool:
    agent = series.agent
    return (
        agent.enrolled_at is not None
        and agent.revoked_at is None
        and selects(agent, schedule.agents)
        and series.target in spec.targets
    )


def _silent_since(schedule: Schedule, last_at: dt.datetime, now: dt.datetime) -> dt.datetime | None:
    """The first missed firing, when STOPPED_PERIODS firings after `last_at` have passed
    (with their grace); else None."""
    firings = cron_firings(schedule, after=last_at, count=STOPPED_PERIODS + 1)
    if firings is None or len(firings) < STOPPED_PERIODS + 1:
        return None
    period = firings[STOPPED_PERIODS] - firings[STOPPED_PERIODS - 1]
    grace = min(GRACE, period / 2)
    return firings[0] if now >= firings[STOPPED_PERIODS - 1] + grace else None


def _raise(
    session: Session,
    series: Series,
    last_run_id: int,
    since: dt.datetime,
    settings: Settings,
    delays: list[float],
) -> bool:
    known = session.scalar(
        select(func.count())
        .select_from(Alert)
        .where(
            Alert.series_id == series.id,
            Alert.kind == AlertKind.stopped.value,
            Alert.change_run_id == last_run_id,
        )
    )
    if known:
        return False  # raised already (perhaps resolved by a person since)
    value = session.scalar(
        select(Result.value).where(Result.run_id == last_run_id, Result.series_id == series.id)
    )
    now = utcnow()
    alert = Alert(
        series_id=series.id, kind=AlertKind.stopped.value, change_run_id=last_run_id,
        previous_run_id=last_run_id, change_at=since, before=value or 0.0, after=value or 0.0,
        change_pct=None, confidence=1.0, tentative=False, points_after=0,
        status=AlertStatus.open.value, version=1, created_at=now, updated_at=now,
        status_changed_at=now, status_changed_by=DETECTOR,
        note=f"no run since {since:%Y-%m-%d %H:%M} UTC, though a schedule should feed it",
    )  # fmt: skip
    session.add(alert)
    session.flush()
    incidents.assign(session, alert, series, settings, delays)
    return True


def resume(
    session: Session, series_ids: Sequence[int], *, settings: Settings, delays: list[float]
) -> int:
    """Resolve the open `stopped` alerts of these series that have a run after the silence."""
    if not series_ids:
        return 0
    resolved = 0
    for alert in session.scalars(
        select(Alert)
        .where(
            Alert.series_id.in_(list(series_ids)),
            Alert.kind == AlertKind.stopped.value,
            Alert.status != AlertStatus.resolved.value,
        )
        .with_for_update(of=Alert)
    ).all():
        last = _last_point(session, alert.series_id)
        if last is None or last[1] == alert.change_run_id:
            continue
        resolve(alert, Resolution.resumed, run_id=last[1])
        session.flush()
        if alert.incident_id is not None:
            incidents.settle(session, alert.incident_id, settings, delays)
        resolved += 1
    return resolved


def check(
    session: Session, *, settings: Settings, delays: list[float], now: dt.datetime | None = None
) -> dict[str, int]:
    """The beat pass over every unpaused cron schedule's series (in the caller's transaction)."""
    now = now or utcnow()
    raised = resumed = 0
    schedules = session.scalars(
        select(Schedule).where(Schedule.paused.is_(False), Schedule.when.like("cron:%"))
    ).all()
    for schedule in schedules:
        try:
            spec = WorkloadSpec.model_validate(schedule.spec)
        except ValidationError:
            continue
        fed = _fed_series(session, schedule, now)
        resumed += resume(session, [s.id for s in fed], settings=settings, delays=delays)
        for series in fed:
            if not _still_fed(schedule, spec, series):
                continue
            last = _last_point(session, series.id)
            if last is None:
                continue
            try:
                since = _silent_since(schedule, last[0], now)
            except DomainError:  # a time zone gone from the system's database
                log.exception("schedule %s: cannot read its times", schedule.id)
                break
            if since is not None:
                raised += _raise(session, series, last[1], since, settings, delays)
    session.flush()
    return {"stopped": raised, "resumed": resumed}
