"""Background work on Celery: the app, its tasks and the beat schedule.

The broker is Redis in production (PERFATLAS_BROKER_URL=redis://…) and, by default, a broker
that needs no server: a table in the database itself (kombu's SQLAlchemy transport). Every task
is idempotent: detection re-derives alerts from the series, and notifications go through the
outbox table, so a task delivered twice does its work once."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from celery import Celery
from celery.schedules import crontab
from celery.signals import worker_ready

from perfatlas.core.config import Settings, get_settings

log = logging.getLogger(__name__)

DETECT_RUNS = "perfatlas.detect_runs"
DETECT_ALL = "perfatlas.detect_all"
NOTIFY_SWEEP = "perfatlas.notify_sweep"
# Series per detection task: an upload of 1,000 runs can touch thousands of series.
DETECT_CHUNK = 500


def make_celery(settings: Settings) -> Celery:
    app = Celery("perfatlas", broker=settings.effective_broker_url, set_as_current=False)
    app.conf.update(
        task_default_queue=settings.queue,
        task_ignore_result=True,
        # A task is acknowledged when it has finished, so a killed worker's task runs again.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
        broker_connection_retry_on_startup=True,
        broker_connection_timeout=3,
        # An upload must not hang on a broker that is down: two quick tries, then the upload
        # succeeds anyway and the nightly pass picks its series up.
        task_publish_retry_policy={"max_retries": 2, "interval_start": 0, "interval_step": 0.5},
        timezone="UTC",
        beat_schedule={
            "nightly-detection": {
                "task": DETECT_ALL,
                "schedule": crontab(minute=0, hour=settings.nightly_hour),
            },
            "notification-sweep": {
                "task": NOTIFY_SWEEP,
                "schedule": settings.notify_sweep_seconds,
                # While one sweep is busy (a slow SMTP server), the next ones must not pile up.
                "options": {"expires": settings.notify_sweep_seconds},
            },
        },
    )
    _register(app, settings)
    return app


def _register(app: Celery, settings: Settings) -> None:
    from perfatlas.core.db import get_engine, session_factory

    def factory() -> Any:
        return session_factory(get_engine(settings.effective_database_url))()

    @app.task(name=DETECT_RUNS, bind=True, max_retries=5)  # type: ignore[untyped-decorator]
    def detect_runs(self: Any, run_uuids: Sequence[str]) -> dict[str, int]:
        """Re-check the series the given runs belong to (their newest detect_window points)."""
        from perfatlas.alerts import service

        try:
            with factory() as session:
                report = service.check_runs(session, run_uuids, settings=settings)
        except service.RETRYABLE as exc:  # a deadlock or lost connection: try again shortly
            raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
        _kick_notifications(app, report.notifications)
        return report.as_dict()

    @app.task(name=DETECT_ALL, bind=True, max_retries=5)  # type: ignore[untyped-decorator]
    def detect_all(self: Any) -> dict[str, int]:
        """The nightly pass: every series, with a longer window."""
        from perfatlas.alerts import service

        try:
            with factory() as session:
                report = service.check_all(
                    session, settings=settings, window=settings.nightly_window
                )
        except service.RETRYABLE as exc:  # collided with an on-upload check: go again
            raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
        _kick_notifications(app, report.notifications)
        return report.as_dict()

    @app.task(name=NOTIFY_SWEEP)  # type: ignore[untyped-decorator]
    def notify_sweep() -> int:
        """Send every notification that is due (new, to be retried, or left by a killed worker)."""
        from perfatlas.alerts import notify

        return notify.sweep(factory, settings=settings)

    @worker_ready.connect(weak=False)  # type: ignore[untyped-decorator]
    def _sweep_at_start(sender: Any, **_: Any) -> None:
        # Whatever a killed worker left behind goes out without waiting for the beat.
        app.send_task(NOTIFY_SWEEP, queue=settings.queue)


def _kick_notifications(app: Celery, delays: Sequence[float]) -> None:
    """Schedule a sweep for when the earliest new notifications fall due (the beat's periodic
    sweep would find them too, a little later)."""
    for delay in sorted(set(delays))[:3]:
        app.send_task(NOTIFY_SWEEP, countdown=max(0.0, delay))


_APPS: dict[tuple[str, str], Celery] = {}


def celery_for(settings: Settings) -> Celery:
    """The Celery app that sends for these settings (the API's, which tests may pass in); one
    per broker and queue, so that its connection pool is reused."""
    key = (settings.effective_broker_url, settings.queue)
    if key not in _APPS:
        _APPS[key] = make_celery(settings)
    return _APPS[key]


def enqueue(settings: Settings, task: str, *args: Any, countdown: float | None = None) -> bool:
    """Send a task; False (logged) when the broker cannot take it, which must not fail the
    request that asked: detection catches up in the nightly pass, notifications in the sweep."""
    try:
        celery_for(settings).send_task(task, args=args, queue=settings.queue, countdown=countdown)
    except Exception as exc:
        log.warning("could not queue %s (%s); the periodic pass will catch up", task, exc)
        return False
    return True


def worker_app() -> Celery:
    """The app `perfatlas worker` runs (settings from PERFATLAS_* variables)."""
    return make_celery(get_settings())


def detect_after_ingest(settings: Settings, run_uuids: Sequence[object]) -> None:
    """Queue the on-ingest check of the series these new runs belong to (after the response
    has gone out: the upload never waits for the broker)."""
    if not settings.detect_on_ingest or not run_uuids:
        return
    uuids = [str(u) for u in run_uuids]
    for start in range(0, len(uuids), DETECT_CHUNK):
        enqueue(settings, DETECT_RUNS, uuids[start : start + DETECT_CHUNK])
