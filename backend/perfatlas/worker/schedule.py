"""The beat schedule: the periodic passes, one entry per task. Each entry expires, so that
passes a stopped or busy worker missed do not pile up and run back to back."""

from __future__ import annotations

from typing import Any

from celery.schedules import crontab

from perfatlas.core.config import Settings

# A nightly pass not started within this long is dropped: the next night's covers the same.
NIGHTLY_EXPIRES_SECONDS = 12 * 3600


def beat_schedule(settings: Settings) -> dict[str, dict[str, Any]]:
    # The task names are the domains'; imported here, when the app is made, because the task
    # modules themselves import the worker's helpers.
    from perfatlas.alerts.tasks import (
        DETECT_ALL,
        DETECT_PENDING,
        PENDING_EVERY_SECONDS,
        STOPPED_EVERY_SECONDS,
        STOPPED_REPORTING,
    )
    from perfatlas.confirm.tasks import SETTLE_CONFIRMATIONS, SETTLE_EVERY_SECONDS
    from perfatlas.health.service import HEARTBEAT
    from perfatlas.health.tasks import HEARTBEAT_EVERY_SECONDS
    from perfatlas.jobs.tasks import EXPIRE_JOBS, EXPIRE_JOBS_SECONDS
    from perfatlas.notifications.tasks import NOTIFY_SWEEP
    from perfatlas.rollups.service import FOLD_ROLLUPS
    from perfatlas.rollups.tasks import FOLD_EVERY_SECONDS
    from perfatlas.schedules.tasks import FIRE_EVERY_SECONDS, FIRE_SCHEDULES

    return {
        "nightly-detection": {
            "task": DETECT_ALL,
            "schedule": crontab(minute=0, hour=settings.nightly_hour),
            "options": {"queue": settings.queue, "expires": NIGHTLY_EXPIRES_SECONDS},
        },
        "notification-sweep": {
            "task": NOTIFY_SWEEP,
            "schedule": settings.notify_sweep_seconds,
            # While one sweep is busy (a slow SMTP server), the next ones must not pile up.
            "options": {
                "queue": settings.effective_notify_queue,
                "expires": settings.notify_sweep_seconds,
            },
        },
        "expire-jobs": {
            "task": EXPIRE_JOBS,
            "schedule": EXPIRE_JOBS_SECONDS,
            "options": {"queue": settings.queue, "expires": EXPIRE_JOBS_SECONDS},
        },
        "fire-schedules": {
            "task": FIRE_SCHEDULES,
            "schedule": FIRE_EVERY_SECONDS,
            # A pass not started by the next one is dropped: the next one fires the same.
            "options": {"queue": settings.queue, "expires": FIRE_EVERY_SECONDS},
        },
        "settle-confirmations": {
            "task": SETTLE_CONFIRMATIONS,
            "schedule": SETTLE_EVERY_SECONDS,
            "options": {"queue": settings.queue, "expires": SETTLE_EVERY_SECONDS},
        },
        # Uploads queue a fold too; this one leaves nothing behind when the broker lost theirs.
        "fold-rollups": {
            "task": FOLD_ROLLUPS,
            "schedule": FOLD_EVERY_SECONDS,
            "options": {"queue": settings.queue, "expires": FOLD_EVERY_SECONDS},
        },
        # Uploads queue the check of the series they found not waiting; this one takes the
        # claims of a check that died and what the broker lost.
        "pending-checks": {
            "task": DETECT_PENDING,
            "schedule": PENDING_EVERY_SECONDS,
            "options": {"queue": settings.queue, "expires": PENDING_EVERY_SECONDS},
        },
        # Its age is /ready's word on the worker: beat, the broker and a worker all work.
        "heartbeat": {
            "task": HEARTBEAT,
            "schedule": HEARTBEAT_EVERY_SECONDS,
            "options": {"queue": settings.queue, "expires": HEARTBEAT_EVERY_SECONDS},
        },
        "stopped-reporting": {
            "task": STOPPED_REPORTING,
            "schedule": STOPPED_EVERY_SECONDS,
            "options": {"queue": settings.queue, "expires": STOPPED_EVERY_SECONDS},
        },
    }
