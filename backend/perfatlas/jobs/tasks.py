"""The jobs' beat pass: lapsed leases put back in the queue (or failed, or cancelled), queued
jobs past their time expired. Claims put lapsed leases back too, so this pass matters when no
agent is polling; it is idempotent and safe beside them (conditional UPDATEs)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from perfatlas.core.config import Settings
from perfatlas.core.models import utcnow
from perfatlas.core.queue import task_session, task_settings
from perfatlas.jobs import settle

EXPIRE_JOBS = "perfatlas.expire_jobs"
EXPIRE_JOBS_SECONDS = 10.0


def expire_jobs_pass(session: Any) -> dict[str, int]:
    """One pass in its own transaction; returns how many jobs went where."""
    now = utcnow()
    counts = settle.recover_lapsed(session, now=now)
    counts = {**counts, "expired": settle.expire_queued(session, now=now)}
    session.commit()
    return counts


@shared_task(name=EXPIRE_JOBS, bind=True)  # type: ignore[untyped-decorator]
def expire_jobs(self: Any) -> dict[str, int]:
    settings = task_settings(self.app)
    with task_session(settings) as session:
        return expire_jobs_pass(session)


def periodic(settings: Settings) -> dict[str, dict[str, Any]]:
    """This domain's beat entries (worker/schedule.py gathers every domain's)."""
    return {
        "expire-jobs": {
            "task": EXPIRE_JOBS,
            "schedule": EXPIRE_JOBS_SECONDS,
            "options": {"queue": settings.queue, "expires": EXPIRE_JOBS_SECONDS},
        },
    }
