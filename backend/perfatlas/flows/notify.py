"""The notification sweep across domains: the outbox's delivery (notifications/) with the
messages written from the alerts and incidents they are about (alerts/rendering.py)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

from perfatlas.alerts.rendering import build_payload
from perfatlas.core.config import Settings
from perfatlas.notifications import delivery


def sweep(factory: Callable[[], Session], *, settings: Settings) -> int:
    """Deliver every due notification; returns how many were sent."""
    return delivery.sweep(factory, settings=settings, render=build_payload)
