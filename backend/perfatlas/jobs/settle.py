"""Jobs whose holder is gone: lapsed leases put back in the queue (or failed when they have no
attempts left, or cancelled when a cancel was asked), and queued jobs nobody claimed in time
expired. Every function is one or a few conditional UPDATEs in the caller's transaction, so
that the beat task and the claims may run them at once, and twice."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import and_, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.jobs import wakeup
from perfatlas.jobs.enums import HELD, JobStatus
from perfatlas.jobs.models import Job

HELD_VALUES = [s.value for s in HELD]


def _update(session: Session, where: ColumnElement[bool], **values: object) -> int:
    result = session.execute(
        update(Job).where(where).values(**values).execution_options(synchronize_session=False)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def put_back(
    session: Session, *, where: ColumnElement[bool], now: dt.datetime, error: str
) -> dict[str, int]:
    """Held jobs matching `where` lose their lease: cancelled when a cancel was asked, failed
    with `error` when their attempts are spent, else queued again (for any agent the selector
    picks, unless pinned). Returns how many went where."""
    held = and_(Job.status.in_(HELD_VALUES), where)
    done = {"lease_until": None, "finished_at": now}
    counts = {
        "cancelled": _update(
            session,
            and_(held, Job.cancel_requested_at.is_not(None)),
            status=JobStatus.cancelled.value,
            **done,
        ),
        "failed": _update(
            session,
            and_(held, Job.attempts >= Job.max_attempts),
            status=JobStatus.failed.value,
            error=error,
            **done,
        ),
        "queued": _update(session, held, status=JobStatus.queued.value, lease_until=None),
    }
    if counts["queued"]:
        wakeup.mark_queued(session)
    return counts


def lapsed(now: dt.datetime) -> ColumnElement[bool]:
    return and_(Job.status.in_(HELD_VALUES), Job.lease_until < now)


def recover_lapsed(session: Session, *, now: dt.datetime) -> dict[str, int]:
    """Put back every job whose lease lapsed (its agent died, hangs, or lost the network). On
    PostgreSQL the rows are taken with SKIP LOCKED in id order, so concurrent passes neither
    wait for nor deadlock with each other."""
    query = select(Job.id).where(lapsed(now)).order_by(Job.id)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    ids = list(session.scalars(query))
    if not ids:
        return {"cancelled": 0, "failed": 0, "queued": 0}
    return put_back(
        session,
        where=and_(Job.id.in_(ids), Job.lease_until < now),
        now=now,
        error="the agent's lease lapsed on the last attempt (the agent died or lost the server)",
    )


def expire_queued(session: Session, *, now: dt.datetime) -> int:
    """Queued jobs past their `expires_at` (their agent was away for the whole period)."""
    return _update(
        session,
        and_(
            Job.status == JobStatus.queued.value,
            Job.expires_at.is_not(None),
            Job.expires_at <= now,
        ),
        status=JobStatus.expired.value,
        finished_at=now,
        lease_until=None,
    )
