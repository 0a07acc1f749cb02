"""Firing schedules: one job per matching agent for a due firing, and the beat pass over every
due schedule.

A firing is made at most once: the pass locks each due schedule's row (PostgreSQL: FOR UPDATE
SKIP LOCKED, so a second pass running at the same time skips it), moves `next_fire_at` on only
if it still holds the firing's time (a conditional UPDATE, the guard on SQLite), and the jobs'
unique key (schedule, fire_at, agent) makes a repeated firing add nothing."""

from __future__ import annotations

import datetime as dt
import logging

from pydantic import ValidationError
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from perfatlas.agents.service import matching
from perfatlas.core.errors import DomainError
from perfatlas.core.models import utcnow
from perfatlas.core.workload import WorkloadSpec
from perfatlas.jobs.models import Job
from perfatlas.jobs.service import enqueue
from perfatlas.schedules.models import Schedule
from perfatlas.schedules.timing import When, parse_when, parse_zone

log = logging.getLogger(__name__)

# A one-off firing's jobs not claimed within this long expire (a cron's: at its next firing).
ONE_OFF_EXPIRY = dt.timedelta(hours=24)


def stored_when(schedule: Schedule) -> When:
    """The schedule's `when`, as stored (checked when it was written; not against the clock)."""
    zone = parse_zone(schedule.timezone, field="timezone")
    return parse_when(schedule.when, zone, now=None, field="when")


def fire(session: Session, *, schedule: Schedule, now: dt.datetime) -> list[Job] | None:
    """Make the schedule's due firing, in the caller's transaction: one job per matching agent,
    `next_fire_at` moved on, `last_fired_at` set. A cron that missed several firings fires once,
    for the latest of them. Returns the firing's jobs (None when it was not due, or another
    pass made it first)."""
    due = schedule.next_fire_at
    if due is None or schedule.paused or due > now:
        return None
    when = stored_when(schedule)
    fire_at = when.latest(due, now)
    following = when.after(fire_at)
    # Only if no other pass moved it on meanwhile (the guard where rows are not locked).
    moved = session.execute(
        update(Schedule)
        .where(Schedule.id == schedule.id, Schedule.next_fire_at == due)
        .values(next_fire_at=following, last_fired_at=fire_at, updated_at=Schedule.updated_at)
        .execution_options(synchronize_session=False)
    )
    if moved.rowcount != 1:  # type: ignore[attr-defined]
        session.refresh(schedule)
        return None
    session.refresh(schedule)
    return enqueue(
        session,
        spec=WorkloadSpec.model_validate(schedule.spec),
        agents=matching(session, schedule.agents),
        selector=schedule.agents,
        schedule_id=schedule.id,
        fire_at=fire_at,
        expires_at=following if following is not None else fire_at + ONE_OFF_EXPIRY,
    )


def fire_due(session: Session, *, now: dt.datetime | None = None) -> int:
    """The beat pass: fire every unpaused schedule that is due, each in a transaction of its
    own (committed here). Safe to run twice, and two at once. Returns how many it fired."""
    now = now or utcnow()
    due = (Schedule.paused.is_(False), Schedule.next_fire_at <= now)
    ids = list(session.scalars(select(Schedule.id).where(*due).order_by(Schedule.next_fire_at)))
    session.rollback()
    locking = session.get_bind().dialect.name == "postgresql"
    fired = 0
    for schedule_id in ids:
        query = (
            select(Schedule)
            .where(Schedule.id == schedule_id, *due)
            .execution_options(populate_existing=True)
        )
        if locking:
            query = query.with_for_update(skip_locked=True)
        schedule = session.scalars(query).first()
        if schedule is None:  # another pass holds it, or fired it already
            session.rollback()
            continue
        try:
            jobs = fire(session, schedule=schedule, now=now)
        except (DomainError, ValidationError):
            # Stored values that no longer read (a time zone gone from the system's database):
            # logged, and the others fire.
            session.rollback()
            log.exception("schedule %s cannot fire", schedule_id)
            continue
        session.commit()
        fired += jobs is not None
    return fired
