"""What /metrics reads from the database at each scrape: the fold and check backlogs, jobs by
state, notifications by state, and the worker's heartbeat; the same answer whichever API
process is scraped. Each is one indexed read."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from perfatlas.alerts.models import DetectionRequest
from perfatlas.core.config import Settings
from perfatlas.core.models import utcnow
from perfatlas.health.models import WorkerHeartbeat
from perfatlas.health.service import oldest_waiting, seconds_since
from perfatlas.jobs.enums import JobStatus
from perfatlas.jobs.models import Job
from perfatlas.notifications.enums import NotificationStatus
from perfatlas.notifications.models import Notification
from perfatlas.runs.models import RollupPending, RunCount


def _age(now: dt.datetime, then: dt.datetime | None) -> float:
    return seconds_since(now, then) or 0.0


def database_metrics(session: Session, settings: Settings) -> Iterator[Metric]:
    now = utcnow()
    runs = GaugeMetricFamily("perfatlas_runs", "Runs stored in the database, by every process")
    runs.add_metric([], float(session.scalar(select(func.sum(RunCount.runs))) or 0))
    yield runs

    pending = session.scalar(select(func.count()).select_from(RollupPending)) or 0
    waiting = session.scalar(select(func.count()).select_from(DetectionRequest)) or 0
    oldest_run, oldest_check = oldest_waiting(session)
    backlog = GaugeMetricFamily(
        "perfatlas_backlog", "Items waiting for the worker: runs for the fold, series for a check",
        labels=["kind"],
    )  # fmt: skip
    backlog.add_metric(["fold"], float(pending))
    backlog.add_metric(["check"], float(waiting))
    yield backlog
    age = GaugeMetricFamily(
        "perfatlas_backlog_age_seconds", "How long the oldest waiting item has waited (0: none)",
        labels=["kind"],
    )  # fmt: skip
    age.add_metric(["fold"], _age(now, oldest_run))
    age.add_metric(["check"], _age(now, oldest_check))
    yield age

    jobs = GaugeMetricFamily("perfatlas_jobs", "Jobs by state", labels=["status"])
    counts = dict(session.execute(select(Job.status, func.count()).group_by(Job.status)).all())
    for status in JobStatus:
        jobs.add_metric([status.value], float(counts.get(status.value, 0)))
    yield jobs

    notes = GaugeMetricFamily(
        "perfatlas_notifications", "Notifications by state: sent (delivered), failed (gave up after the last try), pending, sending",
        labels=["status"],
    )  # fmt: skip
    counts = dict(
        session.execute(
            select(Notification.status, func.count()).group_by(Notification.status)
        ).all()
    )
    for note_status in NotificationStatus:
        notes.add_metric([note_status.value], float(counts.get(note_status.value, 0)))
    yield notes
    beat = session.get(WorkerHeartbeat, settings.queue)
    heartbeat = GaugeMetricFamily(
        "perfatlas_worker_heartbeat_age_seconds",
        "Seconds since the worker's last heartbeat on this queue (-1: never)",
    )
    heartbeat.add_metric([], -1.0 if beat is None else _age(now, beat.beat_at))
    yield heartbeat
    down = GaugeMetricFamily(
        "perfatlas_worker_down", "1 while the worker is known dead (its supervisor saw it exit)"
    )
    down.add_metric([], 0.0 if beat is None or beat.down_since is None else 1.0)
    yield down
