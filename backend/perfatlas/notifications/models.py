"""Notification channels and the notification outbox. The statuses and kinds are the values
of notifications/enums.py."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from perfatlas.core.models import Base, BigId, JSONType, UTCDateTime, utcnow
from perfatlas.notifications.enums import NotificationStatus


class Channel(Base):
    """Where notifications go: a webhook URL (JSON with Slack-compatible `text`) or email."""

    __tablename__ = "notification_channels"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    # The webhook URL, or the email recipients separated by commas.
    target: Mapped[str] = mapped_column(String(2048))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class Notification(Base):
    """The outbox: one row per channel and state change, written in the transaction that made
    the change. `key` makes a second write of the same change a no-op; the sender claims a row
    with a lease, so a killed worker's row is picked up again and a sent one is never resent."""

    __tablename__ = "notifications"
    __table_args__ = (
        UniqueConstraint("channel_id", "key"),
        Index("ix_notifications_status_due_at", "status", "due_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    channel_id: Mapped[int] = mapped_column(
        ForeignKey("notification_channels.id", ondelete="CASCADE")
    )
    key: Mapped[str] = mapped_column(String(128))
    event: Mapped[str] = mapped_column(String(32))
    incident_id: Mapped[int | None] = mapped_column(ForeignKey("incidents.id", ondelete="CASCADE"))
    alert_id: Mapped[int | None] = mapped_column(ForeignKey("alerts.id", ondelete="CASCADE"))
    # pending → sending → sent, or failed after the last attempt.
    status: Mapped[str] = mapped_column(String(16), default=NotificationStatus.pending)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    due_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    lease_until: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    # What was sent (kept for the record and for a resend that must say the same thing).
    payload: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    sent_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)

    channel: Mapped[Channel] = relationship(lazy="joined")


def delivery_id(notification_id: int) -> str:
    """The same for every attempt of one notification: receivers drop a repeat by it."""
    return f"n{notification_id}"
