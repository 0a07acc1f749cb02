"""The notification sweep: send every notification that is due. Safe twice and at once: each
row is claimed under a lease before it is sent (see notifications/delivery.py)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from perfatlas.core.config import Settings
from perfatlas.core.queue import task_session, task_settings
from perfatlas.flows import notify
from perfatlas.notifications.service import NOTIFY_SWEEP


@shared_task(name=NOTIFY_SWEEP, bind=True)  # type: ignore[untyped-decorator]
def notify_sweep(self: Any) -> int:
    """Send every notification that is due (new, to be retried, or left by a killed worker)."""
    settings = task_settings(self.app)
    return notify.sweep(lambda: task_session(settings), settings=settings)


@worker_ready.connect(weak=False)  # type: ignore[untyped-decorator]
def _sweep_at_start(sender: Any, **_: Any) -> None:
    # Whatever a killed worker left behind goes out without waiting for the beat.
    app = sender.app
    app.send_task(NOTIFY_SWEEP, queue=task_settings(app).effective_notify_queue)


def periodic(settings: Settings) -> dict[str, dict[str, Any]]:
    """This domain's beat entries (worker/schedule.py gathers every domain's)."""
    return {
        "notification-sweep": {
            "task": NOTIFY_SWEEP,
            "schedule": settings.notify_sweep_seconds,
            # While one sweep is busy (a slow SMTP server), the next ones must not pile up.
            "options": {
                "queue": settings.effective_notify_queue,
                "expires": settings.notify_sweep_seconds,
            },
        },
    }
