"""Schedules' tests: enrolled agents made directly in the database (enrollment is the jobs
API's), a cron oracle that walks the wall clock minute by minute, and the alerts tests' real
worker (with its beat) for the end-to-end firing."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.core.db import session_factory
from perfatlas.jobs.models import Job
from tests.backend.alerts.conftest import (
    admin_headers,
    mail_server,
    worker,
    worker_queue,
    worker_settings,
)

__all__ = ["admin_headers", "mail_server", "worker", "worker_queue", "worker_settings"]

SPEC: dict[str, Any] = {
    "workload": "smallfile",
    "targets": ["/mnt/a", "/mnt/b"],
    "params": {"size": ["4k", "64k", "1m"], "count": 1000, "cmd": "true"},
    "repetitions": 2,
}


@pytest.fixture
def enroll(engine: Engine) -> Callable[..., Agent]:
    """Make an enrolled agent (as the jobs API's enrollment would), or an unenrolled one."""

    def make(name: str, enrolled: bool = True, revoked: bool = False, **labels: str) -> Agent:
        now = dt.datetime.now(dt.UTC)
        with session_factory(engine)() as session:
            agent = Agent(
                name=name, labels=labels, enrolled_at=now if enrolled else None,
                revoked_at=now if revoked else None,
            )  # fmt: skip
            session.add(agent)
            session.commit()
            return agent

    return make


def jobs_of(engine: Engine, schedule_id: int | None = None) -> list[tuple[str, dt.datetime, str]]:
    """(agent name, fire_at, status) of every job (of the schedule), sorted."""
    with Session(engine) as session:
        query = select(Agent.name, Job.fire_at, Job.status).join(Agent, Agent.id == Job.agent_id)
        if schedule_id is not None:
            query = query.where(Job.schedule_id == schedule_id)
        return sorted((n, f, s) for n, f, s in session.execute(query))  # type: ignore[misc]


# ---- the oracle: a cron read on the wall clock, minute by minute --------------------------


def _field(text: str, low: int, high: int) -> set[int]:
    values: set[int] = set()
    for part in text.split(","):
        base, _, step = part.partition("/")
        if base == "*":
            start, end = low, high
        elif "-" in base:
            a, b = base.split("-")
            start, end = int(a), int(b)
        else:
            start = end = int(base)
            if step:
                end = high
        values.update(range(start, end + 1, int(step or 1)))
    return values


def cron_matcher(fields: str) -> Callable[[dt.datetime], bool]:
    minute, hour, dom, month, dow = fields.split()
    minutes, hours, months = _field(minute, 0, 59), _field(hour, 0, 23), _field(month, 1, 12)
    doms, dows = _field(dom, 1, 31), {d % 7 for d in _field(dow, 0, 7)}  # cron: Sunday is 0
    either = dom != "*" and dow != "*"  # cron's rule: either day field, when both are given

    def matches(wall: dt.datetime) -> bool:
        by_dom, by_dow = wall.day in doms, (wall.weekday() + 1) % 7 in dows
        day = (by_dom or by_dow) if either else (by_dom and by_dow)
        return wall.minute in minutes and wall.hour in hours and wall.month in months and day

    return matches


def oracle_firings(fields: str, zone: str, start: dt.datetime, days: int) -> list[dt.datetime]:
    """Every firing (UTC) of the cron whose wall time lies from forty days before the wall time of
    `start` to `days` after it: each matching wall minute, as datetime(fold=0) reads it, once."""
    tz = ZoneInfo(zone)
    wall = start.astimezone(tz).replace(tzinfo=None, second=0, microsecond=0) - dt.timedelta(
        days=40
    )
    found: set[dt.datetime] = set()
    matches = cron_matcher(fields)
    for _ in range((days + 40) * 24 * 60):
        if matches(wall):
            found.add(wall.replace(tzinfo=tz, fold=0).astimezone(dt.UTC))
        wall += dt.timedelta(minutes=1)
    return sorted(found)
