"""The beat schedule: every domain's periodic passes, each declared beside its task (a
`periodic(settings)` in <domain>/tasks.py). Each entry expires, so that passes a stopped or busy
worker missed do not pile up and run back to back."""

from __future__ import annotations

from typing import Any

from perfatlas.alerts import tasks as alerts
from perfatlas.confirm import tasks as confirm
from perfatlas.core.config import Settings
from perfatlas.health import tasks as health
from perfatlas.jobs import tasks as jobs
from perfatlas.notifications import tasks as notifications
from perfatlas.rollups import tasks as rollups
from perfatlas.schedules import tasks as schedules

DOMAINS = (alerts, notifications, jobs, schedules, confirm, rollups, health)


def beat_schedule(settings: Settings) -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = {}
    for tasks in DOMAINS:
        entries.update(tasks.periodic(settings))
    return entries
