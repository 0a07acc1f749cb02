"""The heartbeat task: sent by beat every few seconds, run by a worker on the main queue."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from perfatlas.core.config import Settings
from perfatlas.core.queue import task_session, task_settings
from perfatlas.health.service import HEARTBEAT, beat

HEARTBEAT_EVERY_SECONDS = 10.0


@shared_task(name=HEARTBEAT, bind=True)  # type: ignore[untyped-decorator]
def heartbeat(self: Any) -> None:
    settings = task_settings(self.app)
    with task_session(settings) as session:
        beat(session, queue=settings.queue)


def periodic(settings: Settings) -> dict[str, dict[str, Any]]:
    """This domain's beat entries (worker/schedule.py gathers every domain's)."""
    return {
        # Its age is /ready's word on the worker: beat, the broker and a worker all work.
        "heartbeat": {
            "task": HEARTBEAT,
            "schedule": HEARTBEAT_EVERY_SECONDS,
            "options": {"queue": settings.queue, "expires": HEARTBEAT_EVERY_SECONDS},
        },
    }
