"""What other parts ask of notifications: queue a sweep (the API, detection), send a test."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from perfatlas.core.config import Settings
from perfatlas.core.queue import enqueue
from perfatlas.notifications import channels, outbox
from perfatlas.notifications.models import Notification

NOTIFY_SWEEP = "perfatlas.notify_sweep"

# New notifications due at different times get a sweep each, up to this many (the beat's
# periodic sweep finds the rest, a little later).
KICKS = 3


def queue_sweep(settings: Settings, *, countdown: float | None = None) -> bool:
    """Ask the worker for a sweep (in `countdown` seconds); False when the broker is down."""
    return enqueue(
        settings, NOTIFY_SWEEP, countdown=countdown, queue=settings.effective_notify_queue
    )


def queue_sweeps(settings: Settings, delays: Sequence[float]) -> None:
    """Schedule a sweep for when the earliest new notifications fall due."""
    for delay in sorted(set(delays))[:KICKS]:
        queue_sweep(settings, countdown=max(0.0, delay))


def send_test(session: Session, *, settings: Settings, channel_id: int) -> Notification:
    """Queue a test notification for one channel and ask for a sweep to send it."""
    row = outbox.record_test(session, channel=channels.get_channel(session, channel_id))
    queue_sweep(settings)
    return row
