"""The fold task: pending runs into explore's rollups (rollups/fold.py). Queued after uploads
(alerts.service.detect_after_ingest) and on the beat every few seconds; safe twice and at once
(a fold holds a lock; one that finds it held leaves the work to the holder)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from sqlalchemy.exc import IntegrityError, OperationalError

from perfatlas.core.config import Settings
from perfatlas.core.queue import enqueue, task_session, task_settings
from perfatlas.rollups.service import FOLD_ROLLUPS, fold_pending

FOLD_EVERY_SECONDS = 5.0
MAX_RETRIES = 5
# A pass hands over to a fresh task after this long, so that a backlog (an upgrade's whole
# history) does not hold the worker from the other work.
FOLD_PASS_SECONDS = 20.0
RETRYABLE = (IntegrityError, OperationalError)


@shared_task(name=FOLD_ROLLUPS, bind=True, max_retries=MAX_RETRIES)  # type: ignore[untyped-decorator]
def fold_rollups(self: Any) -> dict[str, int]:
    settings = task_settings(self.app)
    try:
        with task_session(settings) as session:
            done = fold_pending(session, seconds=FOLD_PASS_SECONDS)
    except RETRYABLE as exc:  # the batch's pending rows are back: try again shortly
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
    if done.more:
        enqueue(settings, FOLD_ROLLUPS)
    return {"runs": done.runs, "batches": done.batches, "busy": int(done.busy)}


def periodic(settings: Settings) -> dict[str, dict[str, Any]]:
    """This domain's beat entries (worker/schedule.py gathers every domain's)."""
    return {
        # Uploads queue a fold too; this one leaves nothing behind when the broker lost theirs.
        "fold-rollups": {
            "task": FOLD_ROLLUPS,
            "schedule": FOLD_EVERY_SECONDS,
            "options": {"queue": settings.queue, "expires": FOLD_EVERY_SECONDS},
        },
    }
