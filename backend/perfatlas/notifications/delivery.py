"""Delivery of the outbox: `sweep` sends the rows that are due.

Each row is claimed under a lease (core/leases.py: two workers never send one row at once, and
a killed worker's row is sent again once its lease ends), its payload is built at the first
claim and kept (a resend says the same thing), and the outcome is committed per row: delivery
is at least once, with a delivery id that stays the same across attempts so that a receiver can
drop a repeat."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from perfatlas import __version__
from perfatlas.core import leases
from perfatlas.core.config import Settings
from perfatlas.core.models import utcnow
from perfatlas.notifications.enums import TEST_EVENT, ChannelKind, NotificationStatus
from perfatlas.notifications.mail import send_email
from perfatlas.notifications.models import Notification, delivery_id
from perfatlas.notifications.redact import scrub
from perfatlas.notifications.senders import Outcome, send_timeout
from perfatlas.notifications.webhook import WEBHOOK_TIMEOUT_SECONDS, send_webhook

log = logging.getLogger(__name__)

# What a row says, built at its first claim (alerts/rendering.py for alerts and incidents).
Render = Callable[..., dict[str, Any]]

MAX_BACKOFF_SECONDS = 3600.0
# Rows one sweep looks at before leaving the rest to the next one.
SWEEP_LIMIT = 1000
BATCH = 50
PENDING, SENDING = NotificationStatus.pending, NotificationStatus.sending


def _due(now: dt.datetime) -> ColumnElement[bool]:
    return or_(
        and_(Notification.status == PENDING, Notification.due_at <= now),
        # A worker that died while sending leaves its row in `sending` until the lease ends.
        leases.lapsed(Notification, leased=SENDING, now=now),
    )


def sweep(factory: Callable[[], Session], *, settings: Settings, render: Render) -> int:
    """Deliver every due notification, each written up by `render(session, row,
    settings=settings)` at its first claim; returns how many were sent."""
    sent = 0
    seen: set[int] = set()
    with httpx.Client(
        timeout=send_timeout(settings, WEBHOOK_TIMEOUT_SECONDS),
        follow_redirects=False,
        headers={"User-Agent": f"PerfAtlas/{__version__}"},
    ) as client:
        while len(seen) < SWEEP_LIMIT:
            with factory() as session:
                _give_up_interrupted(session, settings=settings)
                query = (
                    select(Notification.id)
                    .where(_due(utcnow()), Notification.attempts < settings.notify_max_attempts)
                    .order_by(Notification.due_at, Notification.id)
                    .limit(BATCH)
                )
                if seen:
                    query = query.where(Notification.id.not_in(seen))
                ids = list(session.scalars(query))
            if not ids:
                break
            for notification_id in ids:
                seen.add(notification_id)
                if deliver_one(
                    factory, notification_id, settings=settings, client=client, render=render
                ):
                    sent += 1
    return sent


def _give_up_interrupted(session: Session, *, settings: Settings) -> None:
    """A row whose last allowed attempt was interrupted (lease over) is not tried again."""
    given_up = leases.give_up_lapsed(
        session, Notification, leased=SENDING, max_attempts=settings.notify_max_attempts,
        now=utcnow(), values={
            "status": NotificationStatus.failed,
            "last_error": "the worker stopped during the last attempt; delivery is unknown",
        },
    )  # fmt: skip
    if given_up:
        log.warning("%d notification(s) failed: interrupted on their last attempt", given_up)
    session.commit()


def deliver_one(
    factory: Callable[[], Session],
    notification_id: int,
    *,
    settings: Settings,
    client: httpx.Client,
    render: Render,
) -> bool:
    """Claim one row, send it, record the outcome; False when another worker has it or it
    was not sent."""
    now = utcnow()
    with factory() as session:
        attempt = leases.claim(
            session, Notification, notification_id, claimable=_due(now), leased=SENDING,
            lease_seconds=settings.notify_lease_seconds,
            max_attempts=settings.notify_max_attempts, now=now,
        )  # fmt: skip
        if attempt is None:
            session.rollback()
            return False
        row = session.get(Notification, notification_id)
        assert row is not None  # claimed in this transaction
        channel = row.channel
        if not channel.enabled and row.event != TEST_EVENT:
            _finish(
                session, row.id, attempt, status=NotificationStatus.failed,
                last_error="the channel was disabled before delivery",
            )  # fmt: skip
            return False
        if row.payload is None:
            try:
                row.payload = render(session, row, settings=settings)
            except Exception as exc:
                # A row that cannot be written up must not stop the rows behind it, sweep
                # after sweep.
                log.exception("notification %s: could not build its message", row.id)
                session.rollback()
                error = f"could not build the message: {type(exc).__name__}"
                _claim_failed(session, notification_id, attempt, error, settings=settings)
                return False
        payload = row.payload
        event = row.event
        session.commit()
    name = channel.name
    outcome = _send(
        channel.kind, channel.target, payload, notification_id=notification_id, event=event,
        attempt=attempt, settings=settings, client=client,
    )  # fmt: skip
    with factory() as session:
        label = f"notification {delivery_id(notification_id)} ({event}) to channel {name!r}"
        if outcome.sent:
            session.execute(
                update(Notification)
                .where(
                    Notification.id == notification_id,
                    Notification.status != NotificationStatus.sent,
                )
                .values(
                    status=NotificationStatus.sent,
                    sent_at=utcnow(),
                    lease_until=None,
                    last_error=outcome.error,
                )
                .execution_options(synchronize_session=False)
            )
            session.commit()
            log.info("%s sent on attempt %d", label, attempt)
            return True
        if outcome.permanent or attempt >= settings.notify_max_attempts:
            _finish(
                session, notification_id, attempt, status=NotificationStatus.failed,
                last_error=outcome.error,
            )  # fmt: skip
            log.warning("%s failed on attempt %d: %s", label, attempt, outcome.error)
            return False
        delay = min(settings.notify_backoff_seconds * 2 ** (attempt - 1), MAX_BACKOFF_SECONDS)
        if outcome.retry_after is not None:
            delay = min(max(delay, outcome.retry_after), MAX_BACKOFF_SECONDS)
        _finish(
            session, notification_id, attempt, status=PENDING, last_error=outcome.error,
            due_at=utcnow() + dt.timedelta(seconds=delay),
        )  # fmt: skip
        log.warning(
            "%s: attempt %d failed (%s); next in %.3g s", label, attempt, outcome.error, delay
        )
        return False


def _claim_failed(
    session: Session, notification_id: int, attempt: int, error: str, *, settings: Settings
) -> None:
    """Count the attempt whose claim was rolled back with what failed, and record the error;
    the row is tried again later like a failed delivery (unless another worker has it now)."""
    session.execute(
        update(Notification)
        .where(Notification.id == notification_id, Notification.attempts == attempt - 1)
        .values(
            status=PENDING if attempt < settings.notify_max_attempts else NotificationStatus.failed,
            attempts=attempt, lease_until=None, last_error=error,
            due_at=utcnow() + dt.timedelta(seconds=settings.notify_lease_seconds),
        )
        .execution_options(synchronize_session=False)
    )  # fmt: skip
    session.commit()


def _finish(
    session: Session,
    notification_id: int,
    attempt: int,
    *,
    status: str,
    last_error: str | None,
    due_at: dt.datetime | None = None,
) -> None:
    """Record a failed attempt, unless the row is no longer ours (sent, or claimed again by
    another worker after our lease ended)."""
    values: dict[str, Any] = {"status": status, "last_error": last_error}
    if due_at is not None:
        values["due_at"] = due_at
    leases.settle(session, Notification, notification_id, attempt, leased=SENDING, values=values)
    session.commit()


def _send(
    kind: str,
    target: str,
    payload: dict[str, Any],
    *,
    notification_id: int,
    event: str,
    attempt: int,
    settings: Settings,
    client: httpx.Client,
) -> Outcome:
    """One attempt through the channel's sender; what fails is recorded without its secrets."""
    try:
        if kind == ChannelKind.webhook:
            return send_webhook(
                client, target, payload, delivery_id=delivery_id(notification_id), event=event,
                attempt=attempt,
            )  # fmt: skip
        if kind == ChannelKind.email:
            return send_email(settings, target, payload, notification_id=notification_id)
        return Outcome(sent=False, error=f"unknown channel kind {kind!r}", permanent=True)
    except Exception as exc:  # a bad URL, a library's own error: recorded and retried
        secret = settings.smtp_password.get_secret_value()
        return Outcome(sent=False, error=f"{type(exc).__name__}: {scrub(str(exc), target, secret)}")
