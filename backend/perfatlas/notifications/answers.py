"""Channels and the delivery log as the API answers them (a webhook URL shown as
scheme://host/… only: channels.shown_target)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from perfatlas.core.config import Settings
from perfatlas.notifications import channels, service
from perfatlas.notifications.models import Channel, Notification
from perfatlas.notifications.schemas import (
    ChannelCreate,
    ChannelList,
    ChannelRead,
    ChannelUpdate,
    NotificationList,
    NotificationRead,
    NotificationStatus,
)


def to_read(channel: Channel) -> ChannelRead:
    return ChannelRead(
        id=channel.id, name=channel.name, kind=channel.kind,
        target=channels.shown_target(channel), enabled=channel.enabled,
        created_at=channel.created_at, updated_at=channel.updated_at,
    )  # fmt: skip


def to_notification(row: Notification) -> NotificationRead:
    return NotificationRead(
        id=row.id, channel=row.channel.name, event=row.event, status=row.status,
        attempts=row.attempts, incident_id=row.incident_id, alert_id=row.alert_id,
        due_at=row.due_at, created_at=row.created_at, sent_at=row.sent_at,
        last_error=row.last_error,
    )  # fmt: skip


def list_channels(session: Session) -> ChannelList:
    return ChannelList(items=[to_read(c) for c in channels.list_channels(session)])


def create_channel(session: Session, *, data: ChannelCreate) -> ChannelRead:
    return to_read(channels.create_channel(session, data=data))


def update_channel(session: Session, *, channel_id: int, data: ChannelUpdate) -> ChannelRead:
    return to_read(channels.update_channel(session, channel_id=channel_id, data=data))


def send_test(session: Session, *, settings: Settings, channel_id: int) -> NotificationRead:
    """A test notification queued through the outbox."""
    return to_notification(service.send_test(session, settings=settings, channel_id=channel_id))


def list_notifications(
    session: Session, *, status: NotificationStatus | None, channel_id: int | None, limit: int
) -> NotificationList:
    """The delivery log, newest first."""
    rows = channels.list_notifications(session, status=status, channel_id=channel_id, limit=limit)
    return NotificationList(items=[to_notification(r) for r in rows])
