"""Notifications travel on a queue of their own, so a backlog of detection cannot hold them."""

from __future__ import annotations

import redis

from perfatlas.core.config import Settings
from perfatlas.notifications.service import queue_sweep
from tests.conftest import REDIS_URL


def lengths(*queues: str) -> list[int]:
    client = redis.Redis.from_url(REDIS_URL)
    try:
        return [int(client.llen(q)) for q in queues]
    finally:
        client.close()


def test_a_sweep_goes_to_the_notify_queue_not_the_work_queue(settings: Settings) -> None:
    assert settings.effective_notify_queue == f"{settings.queue}.notify"
    work, notify = lengths(settings.queue, settings.effective_notify_queue)
    assert queue_sweep(settings)
    assert queue_sweep(settings)
    assert lengths(settings.queue, settings.effective_notify_queue) == [work, notify + 2]


def test_the_notify_queue_can_be_named() -> None:
    named = Settings(queue="lab", notify_queue="lab-mail")
    assert named.effective_notify_queue == "lab-mail"
