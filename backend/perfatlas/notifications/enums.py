"""Notification and channel values. StrEnums: the stored strings are the values."""

from __future__ import annotations

from enum import StrEnum


class NotificationStatus(StrEnum):
    """pending → sending (claimed under a lease) → sent, or failed after the last attempt."""

    pending = "pending"
    sending = "sending"
    sent = "sent"
    failed = "failed"


class ChannelKind(StrEnum):
    webhook = "webhook"
    email = "email"


# The event of a channel's test notification (the others are `alert.*` and `incident.*`).
TEST_EVENT = "channel.test"
