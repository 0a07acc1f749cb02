"""A held job's life after its claim: progress (which renews the lease), completion (whose
runs flows/jobs.py stores), release, and a person's cancel. Each takes the job with one
conditional UPDATE naming the attempt, so a holder whose lease lapsed (and whose job another
agent may hold now) changes nothing: it gets `lease_lost`. Everything writes in the caller's
transaction."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, func, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.agents.enrollment import enrolled_agent, touch_heartbeat
from perfatlas.core.errors import Conflict, Invalid, NotFound
from perfatlas.core.measurement import RunCreate
from perfatlas.core.models import utcnow
from perfatlas.jobs.claim import LEASE_SECONDS
from perfatlas.jobs.enums import FINAL, HELD, JobStatus
from perfatlas.jobs.models import Job
from perfatlas.jobs.schemas import CompleteIn, ProgressIn, ReleaseIn
from perfatlas.jobs.settle import HELD_VALUES, put_back

LOG_TAIL = 500  # lines of a job's log the server keeps
# In `progress`: the attempt whose completion settled the job (a repeat of it is a retry).
COMPLETED_BY = "completed_attempt"


class LeaseLost(Conflict):
    code = "lease_lost"


def get_job(session: Session, job_id: int) -> Job:
    job = session.get(Job, job_id, populate_existing=True) if 0 < job_id < 2**63 else None
    if job is None:
        raise NotFound(f"no job with id {job_id}")
    return job


def _lost(job: Job, attempt: int) -> LeaseLost:
    return LeaseLost(
        f"job {job.id}: attempt {attempt} no longer holds its lease (the job is {job.status}, "
        f"attempt {job.attempts}); upload its runs through /runs/batch with job_id set"
    )


def _append(job: Job, lines: Sequence[str]) -> None:
    if lines:
        job.log_tail = [*(job.log_tail or []), *lines][-LOG_TAIL:]


def _take(session: Session, where: ColumnElement[bool], **values: Any) -> bool:
    result = session.execute(
        update(Job).where(where).values(**values).execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def progress(
    session: Session,
    *,
    job_id: int,
    agent_name: str,
    body: ProgressIn,
    lease_seconds: float = LEASE_SECONDS,
) -> tuple[dt.datetime, bool]:
    """Renew the lease and note the progress (leased → running); returns the new lease's end
    and whether a cancel was asked."""
    agent = enrolled_agent(session, name=agent_name)
    now = utcnow()
    lease_until = now + dt.timedelta(seconds=lease_seconds)
    ours = and_(
        Job.id == job_id,
        Job.status.in_(HELD_VALUES),
        Job.attempts == body.attempt,
        Job.leased_by_id == agent.id,
    )
    taken = _take(
        session,
        ours,
        status=JobStatus.running.value,
        lease_until=lease_until,
        started_at=func.coalesce(Job.started_at, now),
    )
    job = get_job(session, job_id)
    if not taken:
        raise _lost(job, body.attempt)
    said = body.model_dump(include={"phase", "percent", "point", "done", "total"})
    job.progress = {**(job.progress or {}), **{k: v for k, v in said.items() if v is not None}}
    _append(job, body.log)
    touch_heartbeat(session, agent_id=agent.id)
    session.flush()
    return lease_until, job.cancel_requested_at is not None


def complete(
    session: Session,
    *,
    job_id: int,
    agent_name: str,
    body: CompleteIn,
) -> tuple[Job, list[RunCreate], int]:
    """Settle the job, in the caller's transaction: the job, its runs (each naming this job)
    for the caller to store in the same transaction, and its agent's id. The same completion
    again (the job settled by this attempt) is no error. A lost lease: LeaseLost."""
    agent = enrolled_agent(session, name=agent_name)
    runs = []
    for index, run in enumerate(body.runs):
        if run.job_id is not None and run.job_id != job_id:
            raise Invalid(f"body.runs[{index}].job_id", f"is {run.job_id}, not this job {job_id}")
        runs.append(run if run.job_id is not None else run.model_copy(update={"job_id": job_id}))
    now = utcnow()
    ours = and_(
        Job.id == job_id,
        Job.status.in_(HELD_VALUES),
        Job.attempts == body.attempt,
        Job.leased_by_id == agent.id,
    )
    taken = _take(
        session,
        ours,
        status=body.status,
        error=body.error,
        lease_until=None,
        finished_at=now,
        started_at=func.coalesce(Job.started_at, now),
    )
    job = get_job(session, job_id)
    if taken:
        job.progress = {**(job.progress or {}), COMPLETED_BY: body.attempt}
        _append(job, body.log)
    elif not (
        job.status in FINAL
        and job.leased_by_id == agent.id
        and job.attempts == body.attempt
        and (job.progress or {}).get(COMPLETED_BY) == body.attempt
    ):
        raise _lost(job, body.attempt)
    return job, runs, agent.id


def release(session: Session, *, job_id: int, agent_name: str, body: ReleaseIn) -> Job:
    """Give the job back now (the agent is stopping): queued again, the attempt counted."""
    agent = enrolled_agent(session, name=agent_name)
    mine = and_(Job.id == job_id, Job.attempts == body.attempt, Job.leased_by_id == agent.id)
    reason = body.reason or "no reason given"
    moved = put_back(
        session,
        where=mine,
        now=utcnow(),
        error=f"released by agent {agent_name} on the last attempt: {reason}",
    )
    job = get_job(session, job_id)
    if any(moved.values()):
        _append(job, [f"released by agent {agent_name} (attempt {body.attempt}): {reason}"])
    elif not (
        job.leased_by_id == agent.id and job.attempts == body.attempt and job.status not in HELD
    ):
        raise _lost(job, body.attempt)
    session.flush()
    return job


def cancel(session: Session, *, job_id: int) -> Job:
    """Queued: cancelled at once. Held: the agent is told at its next progress report, and
    completes with status cancelled (or its lease lapses, and then it is cancelled)."""
    now = utcnow()
    if _take(
        session,
        and_(Job.id == job_id, Job.status == JobStatus.queued.value),
        status=JobStatus.cancelled.value,
        finished_at=now,
        cancel_requested_at=now,
    ):
        return get_job(session, job_id)
    _take(
        session,
        and_(Job.id == job_id, Job.status.in_(HELD_VALUES)),
        cancel_requested_at=func.coalesce(Job.cancel_requested_at, now),
    )
    job = get_job(session, job_id)
    if job.status in FINAL:
        raise Conflict(f"job {job_id} is {job.status} already")
    return job
