"""Confirm before alerting: queue the confirmation job of a new regression (in detection's
transaction), and cancel those of alerts that detection or a person ended. The rounds and the
verdict that settles the alert are flows/confirmation.py's."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.confirm.plan import Confirmation
from perfatlas.core.errors import Conflict
from perfatlas.core.models import utcnow
from perfatlas.jobs import lifecycle
from perfatlas.jobs.enums import HELD, JobKind, JobStatus
from perfatlas.jobs.models import Job
from perfatlas.jobs.service import enqueue

# A confirmation nobody claimed within this long expires (its alert: unconfirmed).
EXPIRES_AFTER = dt.timedelta(hours=24)


def start(session: Session, *, alert_id: int, confirmation: Confirmation) -> Job:
    """Queue the confirmation job of a new `confirming` alert, in the caller's transaction."""
    (job,) = enqueue(
        session,
        spec=confirmation.spec,
        agents=[confirmation.agent],
        kind=JobKind.confirm,
        pinned=True,
        alert_id=alert_id,
        expires_at=utcnow() + EXPIRES_AFTER,
    )
    job.plan = confirmation.plan
    session.flush()
    return job


def cancel_jobs(session: Session, *, alert_ids: Sequence[int]) -> list[int]:
    """Cancel the confirmation jobs of these alerts that are still queued or held (detection
    withdrew or resolved the alerts while they were confirming): a queued one at once, a held
    one through the jobs' cancel path (its agent is told at its next progress report or round,
    and completes it as cancelled). The alerts keep the resolution detection gave them.
    Returns the ids of the jobs cancelled or asked to cancel."""
    if not alert_ids:
        return []
    live = [JobStatus.queued.value, *(s.value for s in HELD)]
    ids = session.scalars(
        select(Job.id)
        .where(
            Job.alert_id.in_(sorted(set(alert_ids))),
            Job.kind == JobKind.confirm.value,
            Job.status.in_(live),
        )
        .order_by(Job.id)
    ).all()
    cancelled = []
    for job_id in ids:
        try:
            lifecycle.cancel(session, job_id=job_id)
        except Conflict:  # it ended meanwhile (its completion committed first)
            continue
        cancelled.append(job_id)
    return cancelled
