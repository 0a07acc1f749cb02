"""Schedules: writing them (in the caller's transaction; `save` commits), reading them with
their matching agents and last firing, the preview, and the firings' history."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.agents.service import matching, selects
from perfatlas.core.errors import Conflict, NotFound
from perfatlas.core.models import utcnow
from perfatlas.core.pagination import decode_cursor, encode_cursor
from perfatlas.core.workload import WorkloadSpec
from perfatlas.jobs.enums import FINAL, JobStatus
from perfatlas.jobs.models import Job
from perfatlas.schedules.firing import fire, stored_when
from perfatlas.schedules.models import Schedule
from perfatlas.schedules.schemas import (
    Firing,
    FiringJob,
    FiringPage,
    FiringSummary,
    ScheduleCreate,
    SchedulePreview,
    SchedulePreviewIn,
    ScheduleRead,
    ScheduleUpdate,
)
from perfatlas.schedules.timing import When, WhenKind, parse_when, parse_zone

PREVIEW_FIRINGS = 5


def _when(when: str, timezone: str, now: dt.datetime) -> When:
    return parse_when(when, parse_zone(timezone), now=now)


def get_schedule(session: Session, schedule_id: int) -> Schedule:
    schedule = session.get(Schedule, schedule_id)
    if schedule is None:
        raise NotFound(f"no schedule {schedule_id}")
    return schedule


def _check_name(session: Session, name: str, *, other_than: int | None = None) -> None:
    query = select(Schedule.id).where(Schedule.name == name)
    if other_than is not None:
        query = query.where(Schedule.id != other_than)
    if session.scalars(query).first() is not None:
        raise Conflict(f"body.name: a schedule named {name!r} exists")


def _save(session: Session, schedule: Schedule) -> None:
    """Commit the work; a name a concurrent request took meanwhile is a 409."""
    name = schedule.name
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise Conflict(f"body.name: a schedule named {name!r} exists") from None


def _fire_now(session: Session, schedule: Schedule, now: dt.datetime) -> None:
    """A "now" schedule fires in the transaction that makes (or resumes) it: its jobs exist
    when the response returns."""
    if schedule.when.strip() == "now" and not schedule.paused:
        fire(session, schedule=schedule, now=now)


def _create(session: Session, *, data: ScheduleCreate) -> Schedule:
    now = utcnow()
    when = _when(data.when, data.timezone, now)
    _check_name(session, data.name)
    schedule = Schedule(
        name=data.name, spec=data.spec.model_dump(mode="json"), agents=list(data.agents),
        when=data.when.strip(), timezone=data.timezone, paused=data.paused,
        next_fire_at=when.first(now), created_at=now, updated_at=now,
    )  # fmt: skip
    session.add(schedule)
    session.flush()
    _fire_now(session, schedule, now)
    return schedule


def _update(session: Session, *, schedule_id: int, data: ScheduleUpdate) -> Schedule:
    """Change any of the fields. A new `when` or `timezone` recomputes `next_fire_at` (from
    now: firings missed meanwhile are not made)."""
    schedule = get_schedule(session, schedule_id)
    now = utcnow()
    if data.when is not None or data.timezone is not None:
        when = _when(data.when or schedule.when, data.timezone or schedule.timezone, now)
        schedule.when = (data.when or schedule.when).strip()
        schedule.timezone = data.timezone or schedule.timezone
        schedule.next_fire_at = when.first(now)
    if data.name is not None and data.name != schedule.name:
        _check_name(session, data.name, other_than=schedule.id)
        schedule.name = data.name
    if data.spec is not None:
        schedule.spec = data.spec.model_dump(mode="json")
    if data.agents is not None:
        schedule.agents = list(data.agents)
    if data.paused is not None and data.paused != schedule.paused:
        _set_paused(schedule, paused=data.paused, now=now)
    schedule.updated_at = now
    session.flush()
    _fire_now(session, schedule, now)
    return schedule


def cron_firings(schedule: Schedule, *, after: dt.datetime, count: int) -> list[dt.datetime] | None:
    """The schedule's next `count` firings after `after` as its stored `when` and zone say them
    (fewer when its cron runs out), whether paused or not; None for a schedule that is not a
    cron (now, once)."""
    when = stored_when(schedule)
    if when.kind != WhenKind.cron:
        return None
    firings: list[dt.datetime] = []
    at: dt.datetime | None = after
    while at is not None and len(firings) < count:
        at = when.after(at)
        if at is not None:
            firings.append(at)
    return firings


def _set_paused(schedule: Schedule, *, paused: bool, now: dt.datetime) -> None:
    schedule.paused = paused
    if not paused:
        # A cron skips the firings it missed while paused; a one-off not yet made fires.
        when = stored_when(schedule)
        if when.kind == WhenKind.cron:
            schedule.next_fire_at = when.first(now)


def _pause(session: Session, *, schedule_id: int, paused: bool) -> Schedule:
    """Pause (no firing until resumed) or resume a schedule; the same state again is a no-op."""
    schedule = get_schedule(session, schedule_id)
    if schedule.paused != paused:
        now = utcnow()
        _set_paused(schedule, paused=paused, now=now)
        schedule.updated_at = now
        session.flush()
        _fire_now(session, schedule, now)
    return schedule


def _delete(session: Session, *, schedule_id: int) -> None:
    """Delete a schedule: its queued jobs are cancelled; its jobs (the history) stay, with
    schedule_id NULL. Jobs an agent is running carry on."""
    schedule = get_schedule(session, schedule_id)
    now = utcnow()
    session.execute(
        update(Job)
        .where(Job.schedule_id == schedule.id, Job.status == JobStatus.queued)
        .values(status=JobStatus.cancelled, finished_at=now)
    )
    # As the foreign key's ON DELETE SET NULL does, also where (SQLite) it is not enforced.
    session.execute(update(Job).where(Job.schedule_id == schedule.id).values(schedule_id=None))
    session.delete(schedule)
    session.flush()


def preview(session: Session, *, data: SchedulePreviewIn) -> SchedulePreview:
    now = utcnow()
    when = _when(data.when, data.timezone, now)
    agents = [a.name for a in matching(session, data.agents)]
    per_agent = data.spec.points()
    return SchedulePreview(
        runs_per_agent=per_agent,
        matching_agents=agents,
        runs_total=per_agent * len(agents),
        next_firings=when.upcoming(now, PREVIEW_FIRINGS),
    )


# ---- reading ---------------------------------------------------------------------------


def _enrolled(session: Session) -> list[Agent]:
    return list(
        session.scalars(
            select(Agent)
            .where(Agent.enrolled_at.is_not(None), Agent.revoked_at.is_(None))
            .order_by(Agent.name)
        )
    )


def _last_firing(session: Session, schedule: Schedule) -> FiringSummary | None:
    latest = session.scalar(select(func.max(Job.fire_at)).where(Job.schedule_id == schedule.id))
    if latest is None or (schedule.last_fired_at is not None and schedule.last_fired_at > latest):
        # Fired with no agent matching: no jobs.
        if schedule.last_fired_at is None:
            return None
        return FiringSummary(fire_at=schedule.last_fired_at, jobs={})
    counts = session.execute(
        select(Job.status, func.count())
        .where(Job.schedule_id == schedule.id, Job.fire_at == latest)
        .group_by(Job.status)
    )
    return FiringSummary(fire_at=latest, jobs={status: n for status, n in counts})


def to_read(
    session: Session, schedule: Schedule, *, enrolled: Sequence[Agent] | None = None
) -> ScheduleRead:
    spec = WorkloadSpec.model_validate(schedule.spec)
    agents = _enrolled(session) if enrolled is None else enrolled
    return ScheduleRead(
        id=schedule.id, name=schedule.name, spec=spec, agents=schedule.agents,
        when=schedule.when, timezone=schedule.timezone, paused=schedule.paused,
        next_fire_at=schedule.next_fire_at, last_fired_at=schedule.last_fired_at,
        created_at=schedule.created_at, updated_at=schedule.updated_at,
        matching_agents=[a.name for a in agents if selects(a, schedule.agents)],
        runs_per_agent=spec.points(), last_firing=_last_firing(session, schedule),
    )  # fmt: skip


def list_schedules(session: Session) -> list[ScheduleRead]:
    enrolled = _enrolled(session)
    schedules = session.scalars(select(Schedule).order_by(Schedule.name))
    return [to_read(session, s, enrolled=enrolled) for s in schedules]


def firings(session: Session, *, schedule_id: int, cursor: str | None, limit: int) -> FiringPage:
    """The schedule's firings with their jobs, newest first; `cursor` continues a page."""
    schedule = get_schedule(session, schedule_id)
    times_query = (
        select(Job.fire_at)
        .where(Job.schedule_id == schedule.id, Job.fire_at.is_not(None))
        .group_by(Job.fire_at)
        .order_by(Job.fire_at.desc())
        .limit(limit + 1)
    )
    if cursor is not None:
        before, _ = decode_cursor(cursor)
        times_query = times_query.where(Job.fire_at < before)
    times = [t for t in session.scalars(times_query) if t is not None]
    more = len(times) > limit
    times = times[:limit]
    rows = session.execute(
        select(Job, Agent.name)
        .join(Agent, Agent.id == Job.agent_id)
        .where(Job.schedule_id == schedule.id, Job.fire_at.in_(times))
        .order_by(Agent.name)
    )
    by_time: dict[dt.datetime, list[FiringJob]] = {t: [] for t in times}
    for job, agent in rows:
        assert job.fire_at is not None
        by_time[job.fire_at].append(
            FiringJob(id=job.id, agent=agent, status=job.status, percent=_percent(job))
        )
    return FiringPage(
        items=[Firing(fire_at=t, jobs=by_time[t]) for t in times],
        next_cursor=encode_cursor(times[-1], schedule.id) if more else None,
    )


def _percent(job: Job) -> float | None:
    if job.status == JobStatus.succeeded:
        return 100.0
    given = (job.progress or {}).get("percent")
    if isinstance(given, int | float) and not isinstance(given, bool):
        return float(given)
    return 0.0 if job.status not in FINAL else None


# ---- what the routes call: each commits, and answers the schedule as read ----------------


def create_schedule(session: Session, *, data: ScheduleCreate) -> ScheduleRead:
    schedule = _create(session, data=data)
    _save(session, schedule)
    return to_read(session, schedule)


def read_schedule(session: Session, *, schedule_id: int) -> ScheduleRead:
    return to_read(session, get_schedule(session, schedule_id))


def update_schedule(session: Session, *, schedule_id: int, data: ScheduleUpdate) -> ScheduleRead:
    schedule = _update(session, schedule_id=schedule_id, data=data)
    _save(session, schedule)
    return to_read(session, schedule)


def pause_schedule(session: Session, *, schedule_id: int, paused: bool) -> ScheduleRead:
    schedule = _pause(session, schedule_id=schedule_id, paused=paused)
    _save(session, schedule)
    return to_read(session, schedule)


def delete_schedule(session: Session, *, schedule_id: int) -> None:
    _delete(session, schedule_id=schedule_id)
    session.commit()
