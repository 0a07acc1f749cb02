"""Confirm before alerting: queue the confirmation of a new regression (in detection's
transaction), and settle its alert from the job's verdict: DIFFERENT opens it (incident,
notification as for any new alert), SAME resolves it `not_confirmed`, UNKNOWN (no answer
within the budget, or the job failed, expired or was cancelled) resolves it `unconfirmed`;
neither of the last two is ever notified. Everything writes in the caller's transaction."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.alerts import incidents
from perfatlas.alerts.enums import AlertStatus, Resolution
from perfatlas.alerts.models import Alert
from perfatlas.alerts.status import resolve, set_status
from perfatlas.confirm.plan import Confirmation
from perfatlas.core.config import Settings
from perfatlas.core.errors import Conflict
from perfatlas.core.models import utcnow
from perfatlas.jobs import lifecycle
from perfatlas.jobs.enums import FINAL, HELD, JobKind, JobStatus, Verdict
from perfatlas.jobs.models import Job
from perfatlas.jobs.service import enqueue

# Who changed an alert's status: the confirmation job.
CONFIRMATION = "confirmation"
# A confirmation nobody claimed within this long expires (its alert: unconfirmed).
EXPIRES_AFTER = dt.timedelta(hours=24)
# Confirmation jobs a settling pass looks at, at most.
SETTLE_BATCH = 200


def start(session: Session, *, alert: Alert, confirmation: Confirmation) -> Job:
    """Queue the confirmation job of a new `confirming` alert, in the caller's transaction."""
    (job,) = enqueue(
        session,
        spec=confirmation.spec,
        agents=[confirmation.agent],
        kind=JobKind.confirm,
        pinned=True,
        alert_id=alert.id,
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


def _note(job: Job, verdict: Verdict) -> str:
    found = (job.progress or {}).get("confirmation") or {}
    pct, ci = found.get("change_pct"), found.get("ci")
    detail = ""
    if pct is not None:
        detail = f": {pct:+.1f} %"
        if ci:
            detail += f" (95 % interval {ci[0]:+.1f} % to {ci[1]:+.1f} %)"
    return f"confirmation job {job.id}: {verdict}{detail}"


def settle(
    session: Session,
    *,
    job: Job,
    verdict: Verdict,
    settings: Settings,
    delays: list[float],
) -> None:
    """Record the job's verdict (the first one stands) and move its alert, if it is still
    confirming (a person or detection may have moved it meanwhile)."""
    if job.verdict is None:
        job.verdict = verdict.value
    verdict = Verdict(job.verdict)
    if job.alert_id is None:
        return
    alert = session.get(Alert, job.alert_id, with_for_update={"of": Alert})
    if alert is None or alert.status != AlertStatus.confirming:
        return
    note = _note(job, verdict)
    if verdict == Verdict.different:
        set_status(alert, AlertStatus.open, by=CONFIRMATION)
        alert.note = alert.note or note
        session.flush()
        incidents.assign(session, alert, alert.series, settings, delays)
    else:
        resolution = Resolution.not_confirmed if verdict == Verdict.same else Resolution.unconfirmed
        resolve(alert, resolution, run_id=None, by=CONFIRMATION)
        alert.note = alert.note or note
    session.flush()


def settle_finished(
    session: Session, *, settings: Settings, delays: list[float], job_ids: Sequence[int] = ()
) -> int:
    """Alerts still confirming whose job is final (completed without a verdict, failed,
    expired, cancelled): their verdict is the job's, or UNKNOWN. Idempotent. Returns how many
    alerts it moved."""
    query = (
        select(Job)
        .join(Alert, Alert.id == Job.alert_id)
        .where(
            Job.kind == JobKind.confirm.value,
            Job.status.in_([s.value for s in FINAL]),
            Alert.status == AlertStatus.confirming.value,
        )
        .order_by(Job.id)
        .limit(SETTLE_BATCH)
    )
    if job_ids:
        query = query.where(Job.id.in_(list(job_ids)))
    moved = 0
    for job in session.scalars(query).all():
        # A newer confirmation of the same alert may still be under way.
        newer = session.scalar(
            select(Job.id).where(
                Job.alert_id == job.alert_id,
                Job.kind == JobKind.confirm.value,
                Job.id > job.id,
            )
        )
        if newer is not None:
            continue
        settle(
            session,
            job=job,
            verdict=Verdict(job.verdict) if job.verdict else Verdict.unknown,
            settings=settings,
            delays=delays,
        )
        moved += 1
    return moved
