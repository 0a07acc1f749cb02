"""Detection after ingest: every path that stores runs asks, in its transaction, for the check
of the series its new runs added results to, commits through `commit_ingest`, and then queues
the check and the fold of the new runs (`detect_after_ingest`); a batch answers through
`batch_stored`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from fastapi import BackgroundTasks
from sqlalchemy.orm import Session

from perfatlas.alerts import pending
from perfatlas.alerts.pending import DETECT_PENDING, Requested
from perfatlas.core.config import Settings
from perfatlas.core.db import commit_with_retry
from perfatlas.core.queue import enqueue_coalesced_async
from perfatlas.rollups.service import FOLD_ROLLUPS
from perfatlas.runs.schemas import BatchItem, BatchRead
from perfatlas.runs.service import Ingested


def request_after_ingest(
    session: Session, settings: Settings, stored: Sequence[Ingested]
) -> Requested:
    """In the upload's transaction: one check request per series its new runs added results
    to (alerts/pending.py), so a burst of uploads to the same series makes one check, not one
    per upload. Once the upload is committed, `requested_after_commit` says whether a check's
    wake-up is due."""
    if not settings.detect_on_ingest:
        return Requested()
    return pending.request_checks(
        session, [sid for outcome in stored if outcome.created for sid in outcome.series_ids]
    )


T = TypeVar("T")


def commit_ingest(session: Session, work: Callable[[], tuple[T, Requested]]) -> tuple[T, int]:
    """An ingest's `work` (ending with request_after_ingest) committed by core.db's
    commit_with_retry, then requested_after_commit: what the work stored, and how many series'
    checks are due (for detect_after_ingest). Every path that stores runs commits through here,
    so none forgets to ask again."""
    stored, requested = commit_with_retry(session, work)
    return stored, requested_after_commit(session, requested)


def requested_after_commit(session: Session, requested: Requested) -> int:
    """After the upload's commit, in the same session: asks again for the series it found
    waiting (a check may have read them before the commit: alerts/pending.py), and returns how
    many series were not waiting, for detect_after_ingest (0: a check that will see them all is
    queued or running)."""
    return requested.added + pending.request_again(session, requested)


async def detect_after_ingest(settings: Settings, created: int, requested: int) -> None:
    """After the response has gone out (the upload never waits for the broker): queue the check
    of the series `request_after_ingest` found not waiting (when every series was waiting
    already, a check that will see them is queued or running), and the fold of the new runs
    into explore's rollups. Both are wake-ups that drain what is waiting, coalesced: a burst of
    uploads queues two a second of each, not one per upload (core/queue.Coalescer).
    A coroutine, for the routes' background tasks: the coalescing decides in the event loop,
    and only a send goes to a worker thread."""
    if not created:
        return
    if settings.detect_on_ingest and requested:
        await enqueue_coalesced_async(settings, DETECT_PENDING)
    await enqueue_coalesced_async(settings, FOLD_ROLLUPS)


def batch_stored(
    settings: Settings, background: BackgroundTasks, outcomes: Sequence[Ingested], requested: int
) -> BatchRead:
    """A batch's answer (how many runs it created, how many were stored already, each run's
    uuid), with detect_after_ingest queued to run after the response has gone out: the upload
    never waits for the broker."""
    created = sum(1 for o in outcomes if o.created)
    background.add_task(detect_after_ingest, settings, created, requested)
    return BatchRead(
        created=created,
        existing=len(outcomes) - created,
        runs=[BatchItem(uuid=o.uuid, created=o.created) for o in outcomes],
    )
