"""A held job's reports (progress, release), each committed, and its end across domains:
completion stores the job's runs in the transaction that settles it, settles a confirmation
job's alert, asks for detection and, once the answer is out, queues the checks, the fold and
the notifications; a person's cancel settles the alert too."""

from __future__ import annotations

from fastapi import BackgroundTasks
from sqlalchemy.orm import Session

from perfatlas.agents.enrollment import touch_heartbeat
from perfatlas.alerts.pending import Requested
from perfatlas.core.config import Settings
from perfatlas.flows.after_ingest import commit_ingest, detect_after_ingest, request_after_ingest
from perfatlas.flows.confirmation import settle_finished
from perfatlas.flows.job_reads import read_job
from perfatlas.jobs import lifecycle
from perfatlas.jobs.schemas import CompleteIn, JobRead, ProgressIn, ProgressOut, ReleaseIn
from perfatlas.notifications.service import queue_sweeps
from perfatlas.runs.service import Ingested, ingest


def complete_job(
    session: Session,
    settings: Settings,
    background: BackgroundTasks,
    *,
    job_id: int,
    agent: str,
    body: CompleteIn,
) -> JobRead:
    """Settle the job held and store its runs, in one transaction (a retry is harmless); after
    the answer, detection and the notifications of a settled confirmation."""
    delays: list[float] = []

    def work() -> tuple[list[Ingested], Requested]:
        delays.clear()
        _, runs, agent_id = lifecycle.complete(session, job_id=job_id, agent_name=agent, body=body)
        stored = (
            ingest(session, runs=runs, ignore_labels=settings.series_ignore_labels) if runs else []
        )
        touch_heartbeat(session, agent_id=agent_id)
        session.flush()
        # A confirmation job ended without a verdict: its alert's answer is unknown.
        settle_finished(session, settings=settings, delays=delays, job_ids=[job_id])
        return stored, request_after_ingest(session, settings, stored)

    stored, requested = commit_ingest(session, work)
    created = sum(1 for s in stored if s.created)
    background.add_task(detect_after_ingest, settings, created, requested)
    background.add_task(queue_sweeps, settings, delays)
    return read_job(session, job_id=job_id)


def cancel_job(session: Session, settings: Settings, *, job_id: int) -> JobRead:
    """A queued job at once, a running one when its agent next reports; a confirmation job's
    alert is settled (unconfirmed) once the job is final."""
    lifecycle.cancel(session, job_id=job_id)
    settle_finished(session, settings=settings, delays=[], job_ids=[job_id])
    session.commit()
    return read_job(session, job_id=job_id)


def report_progress(session: Session, *, job_id: int, agent: str, body: ProgressIn) -> ProgressOut:
    """Progress of the job held (renews the lease); says whether to cancel."""
    lease_until, cancel = lifecycle.progress(session, job_id=job_id, agent_name=agent, body=body)
    session.commit()
    return ProgressOut(lease_until=lease_until, cancel=cancel)


def release_job(session: Session, *, job_id: int, agent: str, body: ReleaseIn) -> JobRead:
    """Give the job held back to the queue now; the attempt counts."""
    lifecycle.release(session, job_id=job_id, agent_name=agent, body=body)
    session.commit()
    return read_job(session, job_id=job_id)
