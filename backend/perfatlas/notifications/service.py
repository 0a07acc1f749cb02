"""What other parts ask of notifications: record a change's notifications (the outbox), queue a
sweep (the API, detection), send a test.

The outbox: notification rows written inside the transaction that changes an incident or an
alert, so a change and its notifications commit together or not at all. One row per enabled
channel; the unique (channel, key) makes a second record of the same change a no-op."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.core.config import Settings
from perfatlas.core.models import utcnow
from perfatlas.core.queue import enqueue
from perfatlas.notifications import channels
from perfatlas.notifications.enums import TEST_EVENT, NotificationStatus
from perfatlas.notifications.models import Channel, Notification

NOTIFY_SWEEP = "perfatlas.notify_sweep"

# New notifications due at different times get a sweep each, up to this many (the beat's
# periodic sweep finds the rest, a little later).
KICKS = 3


def record(
    session: Session,
    *,
    event: str,
    key: str,
    incident_id: int | None = None,
    alert_id: int | None = None,
    delay: float = 0.0,
) -> int:
    """Queue one notification per enabled channel for this state change; returns how many."""
    enabled = session.scalars(select(Channel.id).where(Channel.enabled.is_(True))).all()
    if not enabled:
        return 0
    existing = set(
        session.scalars(
            select(Notification.channel_id).where(
                Notification.key == key, Notification.channel_id.in_(enabled)
            )
        )
    )
    due = utcnow() + dt.timedelta(seconds=delay)
    added = 0
    for channel_id in enabled:
        if channel_id in existing:
            continue
        session.add(
            Notification(
                channel_id=channel_id, key=key, event=event, incident_id=incident_id,
                alert_id=alert_id, due_at=due, status=NotificationStatus.pending, attempts=0,
            )
        )  # fmt: skip
        added += 1
    return added


def record_test(session: Session, *, channel: Channel) -> Notification:
    """Queue a test notification for one channel (also a disabled one, to try it first)."""
    row = Notification(
        channel_id=channel.id, key=f"test:{uuid.uuid4().hex}", event=TEST_EVENT,
        status=NotificationStatus.pending, attempts=0,
    )  # fmt: skip
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


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
    row = record_test(session, channel=channels.get_channel(session, channel_id))
    queue_sweep(settings)
    return row
