"""Notification channels (webhook URLs, email recipients) and their delivery log."""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from perfatlas.core.errors import Conflict, Invalid, NotFound
from perfatlas.notifications.enums import ChannelKind
from perfatlas.notifications.mail import recipients
from perfatlas.notifications.models import Channel, Notification
from perfatlas.notifications.redact import mask_url
from perfatlas.notifications.schemas import ChannelCreate, ChannelUpdate

MAX_RECIPIENTS = 50
# Deliberately loose (addresses are checked by the mail server); it catches the usual slips:
# a name without a domain, spaces, a semicolon instead of a comma.
_ADDRESS = re.compile(r"^[^@\s,;<>\"]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$")


def shown_target(channel: Channel) -> str:
    """What the API shows: a webhook URL is a secret, so only its scheme and host."""
    return mask_url(channel.target) if channel.kind == ChannelKind.webhook else channel.target


def check_target(kind: str, target: str, *, field: str = "body.target") -> str:
    """The target in its stored form, or Invalid naming the field."""
    target = target.strip()
    if kind == ChannelKind.webhook:
        try:
            parts = urlsplit(target)
            parts.port  # noqa: B018 - raises ValueError on a port out of range
        except ValueError as exc:
            raise Invalid(field, f"not a valid URL ({exc})") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise Invalid(field, "a webhook target must be an http:// or https:// URL")
        if any(c.isspace() for c in target):
            raise Invalid(field, "a URL cannot contain spaces")
        return target
    addresses = recipients(target)
    if not addresses:
        raise Invalid(field, "give at least one email address (several separated by commas)")
    if len(addresses) > MAX_RECIPIENTS:
        raise Invalid(field, f"at most {MAX_RECIPIENTS} recipients")
    for address in addresses:
        if not _ADDRESS.match(address):
            raise Invalid(
                field, f"{address!r} is not an email address (separate several by commas)"
            )
    return ",".join(addresses)


def get_channel(session: Session, channel_id: int) -> Channel:
    channel = session.get(Channel, channel_id)
    if channel is None:
        raise NotFound(f"no channel {channel_id}")
    return channel


def list_channels(session: Session) -> Sequence[Channel]:
    return session.scalars(select(Channel).order_by(Channel.name)).all()


def _name_taken(session: Session, name: str, *, other_than: int | None = None) -> bool:
    query = select(Channel.id).where(Channel.name == name)
    if other_than is not None:
        query = query.where(Channel.id != other_than)
    return session.scalars(query).first() is not None


def _commit_unique(session: Session, name: str) -> None:
    try:
        session.commit()
    except IntegrityError:  # a concurrent request took the name between check and commit
        session.rollback()
        raise Conflict(f"a channel named {name!r} exists") from None


def create_channel(session: Session, *, data: ChannelCreate) -> Channel:
    target = check_target(data.kind, data.target)
    if _name_taken(session, data.name):
        raise Conflict(f"a channel named {data.name!r} exists")
    channel = Channel(name=data.name, kind=data.kind, target=target, enabled=data.enabled)
    session.add(channel)
    _commit_unique(session, data.name)
    return channel


def update_channel(session: Session, *, channel_id: int, data: ChannelUpdate) -> Channel:
    channel = get_channel(session, channel_id)
    if data.target is not None:
        channel.target = check_target(channel.kind, data.target)
    if data.name is not None and data.name != channel.name:
        if _name_taken(session, data.name, other_than=channel.id):
            raise Conflict(f"a channel named {data.name!r} exists")
        channel.name = data.name
    if data.enabled is not None:
        channel.enabled = data.enabled
    _commit_unique(session, channel.name)
    return channel


def delete_channel(session: Session, *, channel_id: int) -> None:
    """Delete a channel; its delivery log goes with it (notifications not yet sent are dropped)."""
    session.delete(get_channel(session, channel_id))
    session.commit()


def list_notifications(
    session: Session, *, status: str | None, channel_id: int | None, limit: int
) -> Sequence[Notification]:
    """The delivery log, newest first."""
    query = select(Notification).order_by(Notification.id.desc()).limit(limit)
    if status is not None:
        query = query.where(Notification.status == status)
    if channel_id is not None:
        query = query.where(Notification.channel_id == channel_id)
    return session.scalars(query).all()
