"""HTTP routes of notification channels and the delivery log (admin only: a webhook URL is a
secret)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from perfatlas.api.deps import AdminPrincipal, SessionDep, SettingsDep, json_body
from perfatlas.notifications import answers, channels
from perfatlas.notifications.schemas import (
    ChannelCreate,
    ChannelList,
    ChannelRead,
    ChannelUpdate,
    NotificationList,
    NotificationRead,
    NotificationStatus,
)

router = APIRouter(tags=["notifications"])


@router.get("/channels", operation_id="list_channels", response_model=ChannelList)
def list_channels(session: SessionDep, _: AdminPrincipal) -> ChannelList:
    """Every notification channel; webhook URLs are shown as scheme://host/… only."""
    return answers.list_channels(session)


@router.post(
    "/channels",
    operation_id="create_channel",
    status_code=201,
    response_model=ChannelRead,
)
def create_channel(
    _: AdminPrincipal,  # first: a caller without the scope learns nothing about the body
    body: Annotated[ChannelCreate, json_body(ChannelCreate)],
    session: SessionDep,
) -> ChannelRead:
    """Add a webhook (an http(s) URL) or email (recipients separated by commas) channel."""
    return answers.create_channel(session, data=body)


@router.patch(
    "/channels/{channel_id}",
    operation_id="update_channel",
    response_model=ChannelRead,
)
def update_channel(
    _: AdminPrincipal,
    channel_id: int,
    body: Annotated[ChannelUpdate, json_body(ChannelUpdate)],
    session: SessionDep,
) -> ChannelRead:
    """Rename a channel, change its target, or enable/disable it."""
    return answers.update_channel(session, channel_id=channel_id, data=body)


@router.delete("/channels/{channel_id}", operation_id="delete_channel", status_code=204)
def delete_channel(channel_id: int, session: SessionDep, _: AdminPrincipal) -> Response:
    """Delete a channel and its delivery log."""
    channels.delete_channel(session, channel_id=channel_id)
    return Response(status_code=204)


@router.post(
    "/channels/{channel_id}/test",
    operation_id="test_channel",
    status_code=202,
    response_model=NotificationRead,
)
def test_channel(
    channel_id: int, session: SessionDep, settings: SettingsDep, _: AdminPrincipal
) -> NotificationRead:
    """Send a test notification through the outbox; GET /notifications shows how it went."""
    return answers.send_test(session, settings=settings, channel_id=channel_id)


@router.get("/notifications", operation_id="list_notifications", response_model=NotificationList)
def list_notifications(
    session: SessionDep,
    _: AdminPrincipal,
    status: NotificationStatus | None = None,
    channel: Annotated[int | None, Query(description="a channel id")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> NotificationList:
    """The delivery log, newest first: every notification with its attempts and last error."""
    return answers.list_notifications(session, status=status, channel_id=channel, limit=limit)
