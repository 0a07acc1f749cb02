"""Confirm before alerting: queue the confirmation job of a new regression (in detection's
transaction), cancel those of alerts that detection or a person ended, and read a job's runs
with their variant and samples. The rounds and the verdict that settles the alert are
flows/confirmation.py's."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from perfatlas.confirm.plan import ROUNDS_MAX, Confirmation
from perfatlas.core.errors import Conflict
from perfatlas.core.models import utcnow
from perfatlas.jobs import lifecycle
from perfatlas.jobs.enums import HELD, JobKind, JobStatus
from perfatlas.jobs.models import Job
from perfatlas.jobs.service import enqueue
from perfatlas.runs.models import Result, Run

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


def rounds_max(plan: dict[str, Any]) -> int:
    """The most rounds a confirmation job's plan allows (ROUNDS_MAX when it does not say)."""
    return int(plan.get("rounds_max") or ROUNDS_MAX)


def _variant_of(plan: dict[str, Any], labels: dict[str, str]) -> str | None:
    """The plan's variant whose labels the run has (the candidate's first)."""
    for variant in plan.get("variants") or []:
        wanted = variant.get("labels") or {}
        if all(labels.get(k) == v for k, v in wanted.items()):
            return str(variant.get("name"))
    return None


def job_samples(
    session: Session, job: Job, metric: str
) -> list[tuple[Run, str | None, list[float], float]]:
    """(run, variant, samples, value) of the job's runs, oldest first, for one metric."""
    rows = session.execute(
        select(Run, Result.samples, Result.value)
        .join(Result, and_(Result.run_id == Run.id, Result.metric == metric))
        .where(Run.job_id == job.id)
        .order_by(Run.started_at, Run.id)
    ).all()
    plan = job.plan or {}
    return [
        (run, _variant_of(plan, dict(run.labels or {})), list(samples or []) or [value], value)
        for run, samples, value in rows
    ]
