"""What tasks, the CLI, tests and other domains call of the rollups domain."""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.orm import Session

from perfatlas.core import upkeep
from perfatlas.core.config import Settings
from perfatlas.core.queue import enqueue_coalesced
from perfatlas.rollups.fold import BATCH_RUNS, fold_batch, folded_count, pending_count

FOLD_ROLLUPS = "perfatlas.fold_rollups"
ANALYZE_AFTER_RUNS = 10_000

__all__ = [
    "FOLD_ROLLUPS",
    "Folded",
    "fold_pending",
    "folded_count",
    "pending_count",
    "queue_fold",
]


@dataclass
class Folded:
    runs: int = 0
    batches: int = 0
    # Another fold held the lock: it carries on with what is pending.
    busy: bool = False
    # The time budget ran out with runs still pending.
    more: bool = False


def fold_pending(
    session: Session, *, seconds: float | None = None, limit: int = BATCH_RUNS
) -> Folded:
    """Fold pending runs a batch per transaction (each committed) until none is left, another
    fold holds the lock, or `seconds` have passed."""
    started = time.monotonic()
    done = Folded()
    while True:
        if seconds is not None and time.monotonic() - started >= seconds:
            done.more = True
            return done
        try:
            taken = fold_batch(session, limit=limit)
        except BaseException:
            session.rollback()
            raise
        if not taken:
            session.rollback()
            done.busy = taken is None
            if not done.runs:
                return done
            # Drained: every folded run left a dead row in rollup_pending, and the digests a
            # dead version each (core/upkeep.py).
            vacuumed = upkeep.vacuum_if_bloated(
                session, {"rollup_pending": done.runs, "explore_digests": 0}
            )
            if (
                "rollup_pending" not in vacuumed
                and done.runs >= ANALYZE_AFTER_RUNS
                and session.get_bind().dialect.name == "postgresql"
            ):
                # The pending table went from many rows to few: explore's plans read its
                # statistics (a scan of the metric's results for a backlog, a probe per pending
                # run otherwise), so they are brought up to date now rather than by autovacuum.
                session.execute(text("ANALYZE rollup_pending"))
                session.commit()
            return done
        session.commit()
        done.runs += taken
        done.batches += 1


def queue_fold(settings: Settings) -> None:
    """Ask the worker to fold what uploads left pending (coalesced: a fold drains what is
    pending, so a burst of uploads queues two a second); the beat's pass catches up if the
    broker cannot take it."""
    enqueue_coalesced(settings, FOLD_ROLLUPS)
