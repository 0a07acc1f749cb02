"""Sending to the Celery worker, and what a task needs to run: the app that sends, `enqueue` by
task name, coalesced wake-ups, a task's settings and session.

The broker is Redis in production (PERFATLAS_BROKER_URL=redis://…) and, by default, a broker
that needs no server: a table in the database itself (kombu's SQLAlchemy transport). Every task
is idempotent: detection re-derives alerts from the series, and notifications go through the
outbox table, so a task delivered twice does its work once.

This module knows no domain: domains send to each other's tasks by name, and the worker
(worker/celery_app.py) names the modules that define them."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

from celery import Celery
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from perfatlas.core.config import Settings, get_settings
from perfatlas.core.db import get_engine, session_factory

log = logging.getLogger(__name__)


class PerfAtlasCelery(Celery):  # type: ignore[misc]
    """A Celery app that carries the settings it was made with, for its tasks."""

    def __init__(self, settings: Settings, *, include: Sequence[str] = ()) -> None:
        super().__init__(
            "perfatlas",
            broker=settings.effective_broker_url,
            set_as_current=False,
            include=list(include),
        )
        self.perfatlas_settings = settings


def configure(app: PerfAtlasCelery, settings: Settings) -> PerfAtlasCelery:
    """The settings every app here runs with: the senders' and the worker's."""
    app.conf.update(
        # One queue per deployment (separate deployments and test sessions share one Redis);
        # every send names it explicitly, and the worker consumes only it.
        task_default_queue=settings.queue,
        task_ignore_result=True,
        # A task is acknowledged when it has finished, so a killed worker's task runs again
        # (every task here is idempotent).
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
        broker_connection_retry_on_startup=True,
        # A broker outage of any length: the worker keeps trying to reconnect (Celery's default
        # gives up after 100 tries and the worker exits), and catches up once it is back.
        broker_connection_max_retries=None,
        broker_connection_timeout=3,
        # An upload must not hang on a broker that is down: two quick tries, then the upload
        # succeeds anyway and the nightly pass picks its series up.
        task_publish_retry_policy={"max_retries": 2, "interval_start": 0, "interval_step": 0.5},
        timezone="UTC",
    )
    return app


_APPS: dict[tuple[str, str], PerfAtlasCelery] = {}


def celery_for(settings: Settings) -> PerfAtlasCelery:
    """The Celery app that sends for these settings (the API's, which tests may pass in); one
    per broker and queue, so that its connection pool is reused."""
    key = (settings.effective_broker_url, settings.queue)
    if key not in _APPS:
        _APPS[key] = configure(PerfAtlasCelery(settings), settings)
    return _APPS[key]


def enqueue(
    settings: Settings,
    task: str,
    *args: Any,
    countdown: float | None = None,
    queue: str | None = None,
) -> bool:
    """Send a task by name; False (logged) when the broker cannot take it, which must not fail
    the request that asked: detection catches up in the nightly pass, notifications in the
    sweep. Domains call this from a service function; routers never do. `queue` defaults to
    the deployment's queue (notifications pass their own)."""
    try:
        celery_for(settings).send_task(
            task, args=args, queue=queue or settings.queue, countdown=countdown
        )
    except Exception as exc:
        log.warning("could not queue %s (%s); the periodic pass will catch up", task, exc)
        return False
    return True


class Coalescer:
    """Sends wake-up tasks (a fold, a pass over the pending checks: each drains what is waiting
    when it runs) so that each call is followed by a task that starts after the call, and so
    sees what the caller committed before calling, at most two a window per process and task:
    the first call of a window sends at once, the next one sends for the window's end (a
    countdown), and the later ones ride on that one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Per (broker, queue, task): the window's end, and whether its trailing task is sent.
        self._state: dict[tuple[str, str, str], tuple[float, bool]] = {}

    def countdown(self, key: tuple[str, str, str], now: float, window: float) -> float | None:
        """None: send now; a number ≥ 0: send with this countdown; -1: a task will run later
        than this call anyway."""
        with self._lock:
            end, trailing = self._state.get(key, (0.0, False))
            if now >= end:
                self._state[key] = (now + window, False)
                return None
            if trailing:
                return -1.0
            self._state[key] = (end, True)
            return end - now

    def forget(self, key: tuple[str, str, str]) -> None:
        """The send failed: the next call sends again."""
        with self._lock:
            self._state.pop(key, None)


_COALESCER = Coalescer()


def _coalesced(settings: Settings, task: str) -> tuple[tuple[str, str, str], float | None] | None:
    """The Coalescer's key and the countdown to send a wake-up with; None: nothing to send."""
    key = (settings.effective_broker_url, settings.queue, task)
    countdown = _COALESCER.countdown(key, time.monotonic(), settings.wakeup_coalesce_seconds)
    if countdown is not None and countdown < 0:
        return None
    return key, countdown


def _send_coalesced(
    settings: Settings, task: str, due: tuple[tuple[str, str, str], float | None]
) -> bool:
    key, countdown = due
    sent = enqueue(settings, task, countdown=countdown)
    if not sent:  # the next call sends again
        _COALESCER.forget(key)
    return sent


def enqueue_coalesced(settings: Settings, task: str) -> bool:
    """`enqueue` for a wake-up task (no arguments; it finds its work in the database): a burst
    of uploads sends two of it per `settings.wakeup_coalesce_seconds` instead of one per
    upload (`Coalescer`)."""
    due = _coalesced(settings, task)
    return True if due is None else _send_coalesced(settings, task, due)


async def enqueue_coalesced_async(settings: Settings, task: str) -> bool:
    """`enqueue_coalesced` from the event loop (a route's background task): most calls send
    nothing and decide that in the loop; a send, which talks to the broker, runs in a worker
    thread."""
    due = _coalesced(settings, task)
    return True if due is None else await run_in_threadpool(_send_coalesced, settings, task, due)


def task_settings(app: Any) -> Settings:
    """The settings of the app a task runs in."""
    settings = getattr(app, "perfatlas_settings", None)
    # A task sent to a plain Celery app (not made here) runs on the environment's settings.
    return settings if isinstance(settings, Settings) else get_settings()


def task_session(settings: Settings) -> Session:
    """A new session on the database of these settings (the engine is shared per URL)."""
    return session_factory(get_engine(settings.effective_database_url))()
