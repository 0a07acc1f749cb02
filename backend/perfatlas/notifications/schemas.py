"""Request and response bodies of the channels and delivery-log API. The Literals are the
values of notifications/enums.py (a test checks that they agree)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from perfatlas.core.schemas import StrictModel

ChannelKind = Literal["webhook", "email"]
NotificationStatus = Literal["pending", "sending", "sent", "failed"]


class ChannelCreate(StrictModel):
    name: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    kind: ChannelKind
    target: Annotated[str, StringConstraints(min_length=1, max_length=2048)] = Field(
        description="webhook: the http(s) URL; email: recipients separated by commas"
    )
    enabled: bool = True


class ChannelUpdate(StrictModel):
    name: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    target: Annotated[str, StringConstraints(min_length=1, max_length=2048)] | None = None
    enabled: bool | None = None


class ChannelRead(BaseModel):
    id: int
    name: str
    kind: ChannelKind
    target: str = Field(description="webhook URLs are shown without their path (a secret)")
    enabled: bool
    created_at: dt.datetime
    updated_at: dt.datetime


class ChannelList(BaseModel):
    items: list[ChannelRead]


class NotificationRead(BaseModel):
    id: int
    channel: str
    event: str
    status: NotificationStatus
    attempts: int
    incident_id: int | None
    alert_id: int | None
    due_at: dt.datetime
    created_at: dt.datetime
    sent_at: dt.datetime | None
    last_error: str | None


class NotificationList(BaseModel):
    items: list[NotificationRead]
