"""The confirmations' beat pass: alerts still confirming whose job ended without a verdict
(failed, expired, cancelled, or completed early) are settled UNKNOWN (resolved unconfirmed, no
notification). The completion route settles its own job at once; this pass catches the jobs
that ended in the jobs' expiry pass or another way. Idempotent."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from perfatlas.core.config import Settings
from perfatlas.core.queue import task_session, task_settings
from perfatlas.flows.confirmation import settle_finished
from perfatlas.notifications.service import queue_sweeps

SETTLE_CONFIRMATIONS = "perfatlas.settle_confirmations"
SETTLE_EVERY_SECONDS = 10.0


@shared_task(name=SETTLE_CONFIRMATIONS, bind=True)  # type: ignore[untyped-decorator]
def settle_confirmations(self: Any) -> dict[str, int]:
    settings = task_settings(self.app)
    delays: list[float] = []
    with task_session(settings) as session:
        moved = settle_finished(session, settings=settings, delays=delays)
        session.commit()
    queue_sweeps(settings, delays)
    return {"settled": moved}


def periodic(settings: Settings) -> dict[str, dict[str, Any]]:
    """This domain's beat entries (worker/schedule.py gathers every domain's)."""
    return {
        "settle-confirmations": {
            "task": SETTLE_CONFIRMATIONS,
            "schedule": SETTLE_EVERY_SECONDS,
            "options": {"queue": settings.queue, "expires": SETTLE_EVERY_SECONDS},
        },
    }
