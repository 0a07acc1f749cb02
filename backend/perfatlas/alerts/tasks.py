"""Detection tasks: re-check the series of new runs, and the nightly pass over every series.

Both are safe twice: a check re-derives the alerts from the results, so a second run of the
same check changes nothing. A run whose rows are gone simply has no series to check."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from celery import shared_task
from celery.schedules import crontab

from perfatlas.alerts import detection, pending, stopped
from perfatlas.alerts.pending import DETECT_PENDING
from perfatlas.alerts.reconcile import Report
from perfatlas.core import upkeep
from perfatlas.core.config import Settings
from perfatlas.core.queue import enqueue, task_session, task_settings
from perfatlas.notifications.service import queue_sweeps
from perfatlas.rollups.service import queue_fold

DETECT_RUNS = "perfatlas.detect_runs"
REQUEST_CHECKS = "perfatlas.request_checks"
DETECT_ALL = "perfatlas.detect_all"
STOPPED_REPORTING = "perfatlas.stopped_reporting"
STOPPED_EVERY_SECONDS = 60.0
# A nightly pass not started within this long is dropped: the next night's covers the same.
NIGHTLY_EXPIRES_SECONDS = 12 * 3600
MAX_RETRIES = 5
# A pass over the pending checks hands over to a fresh task after this long, so that one
# long burst does not hold the worker from the other queues' work: a notification falling due,
# a fold of the uploads explore reads.
PENDING_PASS_SECONDS = 5.0
# The beat's pass over the pending checks (uploads queue their own): it takes a dead check's
# stale claims (pending.STALE_CLAIM) and what the broker lost; one that finds nothing ends at
# once (one indexed read).
PENDING_EVERY_SECONDS = 15.0


@shared_task(name=DETECT_RUNS, bind=True, max_retries=MAX_RETRIES)  # type: ignore[untyped-decorator]
def detect_runs(self: Any, run_uuids: Sequence[str]) -> dict[str, int]:
    """Re-check the series the given runs belong to (their newest detect_window points)."""
    settings = task_settings(self.app)
    try:
        with task_session(settings) as session:
            report = detection.check_runs(session, run_uuids, settings=settings)
    except detection.RETRYABLE as exc:  # a deadlock or lost connection: try again shortly
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
    queue_sweeps(settings, report.notifications)
    return report.as_dict()


@shared_task(name=REQUEST_CHECKS, bind=True, max_retries=MAX_RETRIES)  # type: ignore[untyped-decorator]
def request_checks(self: Any, run_uuids: Sequence[str]) -> int:
    """An upload's runs: one check request per series they belong to (alerts/pending.py); the
    check is queued only when a series was not already waiting. Uploads now write their
    requests themselves (alerts/service.request_after_ingest); this serves the messages an
    earlier server queued. Cheap, and safe twice."""
    settings = task_settings(self.app)
    try:
        with task_session(settings) as session:
            series = detection.series_for_runs(session, run_uuids)
            # The runs were committed long ago: nothing to ask again (pending.request_again).
            added = pending.request_checks(session, series).added
            session.commit()
    except detection.RETRYABLE as exc:
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
    if added:
        enqueue(settings, DETECT_PENDING)
    # The upload's runs also wait to be folded into explore's rollups.
    queue_fold(settings)
    return added


@shared_task(name=DETECT_PENDING, bind=True, max_retries=MAX_RETRIES)  # type: ignore[untyped-decorator]
def detect_pending(self: Any) -> dict[str, int]:
    """Check the series uploads asked for (alerts/pending.py), a claimed batch at a time; the
    batch's requests are deleted once its outcome is stored. Queued by uploads that found a
    series not waiting already, and on the beat (claims of a check that died, a message the
    broker lost); one that finds nothing waiting ends at once."""
    settings = task_settings(self.app)
    report = Report()
    started = time.monotonic()
    with task_session(settings) as session:
        held: pending.Claim | None = None
        finished = 0
        try:
            while time.monotonic() - started < PENDING_PASS_SECONDS:
                held = pending.claim(session, detection.SERIES_CHUNK)
                if held is None:
                    if finished:  # drained: the requests it finished are dead rows
                        upkeep.vacuum_if_bloated(session, {"detection_requests": finished})
                    break
                batch = detection.check_series(
                    session, held.series_ids, settings=settings, window=settings.detect_window
                )
                pending.finish(session, held)
                session.commit()
                finished += len(held.row_ids)
                held = None
                # The batch's notifications are stored: their sweep is due from now, not from
                # the end of the pass (the delays count from when each was recorded).
                queue_sweeps(settings, batch.notifications)
                report.merge(batch)
            else:
                enqueue(settings, DETECT_PENDING)  # more than one pass's worth: carry on
        except detection.RETRYABLE as exc:  # hand the batch back: try again shortly
            session.rollback()
            if held is not None:
                try:
                    pending.release(session, held)
                except detection.RETRYABLE:  # the claims go stale and are taken again
                    session.rollback()
            raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
    return report.as_dict()


@shared_task(name=DETECT_ALL, bind=True, max_retries=MAX_RETRIES)  # type: ignore[untyped-decorator]
def detect_all(self: Any) -> dict[str, int]:
    """The nightly pass: every series, with a longer window."""
    settings = task_settings(self.app)
    try:
        with task_session(settings) as session:
            report = detection.check_all(session, settings=settings, window=settings.nightly_window)
    except detection.RETRYABLE as exc:  # collided with an on-upload check: go again
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
    queue_sweeps(settings, report.notifications)
    return report.as_dict()


@shared_task(name=STOPPED_REPORTING, bind=True, max_retries=MAX_RETRIES)  # type: ignore[untyped-decorator]
def stopped_reporting(self: Any) -> dict[str, int]:
    """Series a cron schedule should feed that went silent: a `stopped` alert; resolved when
    they report again (alerts/stopped.py)."""
    settings = task_settings(self.app)
    delays: list[float] = []
    try:
        with task_session(settings) as session:
            counts = stopped.check(session, settings=settings, delays=delays)
            session.commit()
    except detection.RETRYABLE as exc:
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
    queue_sweeps(settings, delays)
    return counts


def periodic(settings: Settings) -> dict[str, dict[str, Any]]:
    """This domain's beat entries (worker/schedule.py gathers every domain's)."""
    return {
        "nightly-detection": {
            "task": DETECT_ALL,
            "schedule": crontab(minute=0, hour=settings.nightly_hour),
            "options": {"queue": settings.queue, "expires": NIGHTLY_EXPIRES_SECONDS},
        },
        # Uploads queue the check of the series they found not waiting; this one takes the
        # claims of a check that died and what the broker lost.
        "pending-checks": {
            "task": DETECT_PENDING,
            "schedule": PENDING_EVERY_SECONDS,
            "options": {"queue": settings.queue, "expires": PENDING_EVERY_SECONDS},
        },
        "stopped-reporting": {
            "task": STOPPED_REPORTING,
            "schedule": STOPPED_EVERY_SECONDS,
            "options": {"queue": settings.queue, "expires": STOPPED_EVERY_SECONDS},
        },
    }
