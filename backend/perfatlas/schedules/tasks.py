"""The beat pass that fires due schedules. Safe twice and twice at once: each firing is made
once (schedules/firing.py)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from sqlalchemy.exc import OperationalError

from perfatlas.core.config import Settings
from perfatlas.core.queue import task_session, task_settings
from perfatlas.schedules.firing import fire_due

FIRE_SCHEDULES = "perfatlas.fire_schedules"
# How often beat runs it: a schedule fires at most this late.
FIRE_EVERY_SECONDS = 10.0
MAX_RETRIES = 3


@shared_task(name=FIRE_SCHEDULES, bind=True, max_retries=MAX_RETRIES)  # type: ignore[untyped-decorator]
def fire_schedules(self: Any) -> dict[str, int]:
    """Fire every unpaused schedule whose next firing has come."""
    settings = task_settings(self.app)
    try:
        with task_session(settings) as session:
            return {"fired": fire_due(session)}
    except OperationalError as exc:  # a lost connection or a deadlock: go again shortly
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc


def periodic(settings: Settings) -> dict[str, dict[str, Any]]:
    """This domain's beat entries (worker/schedule.py gathers every domain's)."""
    return {
        "fire-schedules": {
            "task": FIRE_SCHEDULES,
            "schedule": FIRE_EVERY_SECONDS,
            # A pass not started by the next one is dropped: the next one fires the same.
            "options": {"queue": settings.queue, "expires": FIRE_EVERY_SECONDS},
        },
    }
