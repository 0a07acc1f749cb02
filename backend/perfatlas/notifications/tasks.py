"""The notification sweep: send every notification that is due. Safe twice and at once: each
row is claimed under a lease before it is sent (see delivery.py)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from perfatlas.core.queue import task_session, task_settings
from perfatlas.notifications import delivery

NOTIFY_SWEEP = "perfatlas.notify_sweep"


@shared_task(name=NOTIFY_SWEEP, bind=True)  # type: ignore[untyped-decorator]
def notify_sweep(self: Any) -> int:
    """Send every notification that is due (new, to be retried, or left by a killed worker)."""
    settings = task_settings(self.app)
    return delivery.sweep(lambda: task_session(settings), settings=settings)


@worker_ready.connect(weak=False)  # type: ignore[untyped-decorator]
def _sweep_at_start(sender: Any, **_: Any) -> None:
    # Whatever a killed worker left behind goes out without waiting for the beat.
    app = sender.app
    app.send_task(NOTIFY_SWEEP, queue=task_settings(app).effective_notify_queue)
