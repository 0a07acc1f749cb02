"""Coalesced on-upload checks: an upload asks for a check of its series by inserting one row
per series (`DetectionRequest`) in its own transaction, and the detection task claims the
waiting series a batch at a time. However many uploads touch a series before its check runs,
one row waits for it, so a burst of uploads cannot build a backlog of checks that starves the
other background work.

An upload only ever inserts, and never waits for a check: a claim is committed at once, and a
claimed row is out of the waiting rows' unique index, so an upload during the check inserts a
new waiting row (the check may have read the series before that upload; it is checked again).
The check deletes the rows it claimed with its outcome (`finish`); a claim older than
STALE_CLAIM (its check died, 40 s) is taken again.

An upload that finds its series waiting already relies on that row's check; but the row may be
claimed, and the series read, between the upload's insert and its commit, when the check cannot
see the upload's results yet. So once committed, an upload asks again for the series it found
waiting (`request_again`): if the row still waits, nothing happens (its check will see the
upload); if it was claimed meanwhile, the series waits again. (It asks for all its series
then: one of its own requests claimed after its commit is checked once more, rarely, since
the window is a moment.) On SQLite the claim is a write,
and waits for the upload's commit."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, func, or_, select, text, update
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session

from perfatlas.alerts.models import DetectionRequest
from perfatlas.core.models import UTCDateTime, utcnow

logger = logging.getLogger(__name__)

# The task that drains the waiting requests (alerts/tasks.py); uploads send it by name.
DETECT_PENDING = "perfatlas.detect_pending"

# Far longer than a check of one batch takes (200 series, about 0.3 s here; a pass hands over
# after 5 s): a claim this old belongs to a check that died (a worker killed with -9), and the
# beat's pass (every 15 s) takes it again, within a minute of the death. A check that was only
# slow and is overtaken does no harm: both reconcile the series in turn (alerts/reconcile.py).
STALE_CLAIM = dt.timedelta(seconds=40)
_WAITING = DetectionRequest.claimed_at.is_(None)


@dataclass(frozen=True)
class Requested:
    """What an upload's requests did: how many series were not waiting already (when 0, a check
    that will see them is queued or running, and nothing more needs sending), and the series to
    ask for again once the upload is committed (`request_again`): all of them when some were
    found waiting, none when every request was new (an upload of new series, say), so that the
    common bulk upload pays nothing more."""

    added: int = 0
    ask_again: tuple[int, ...] = ()


def request_checks(session: Session, series_ids: Sequence[int]) -> Requested:
    """Ask for a check of these series in the caller's transaction."""
    wanted = sorted(set(series_ids))
    if not wanted:
        return Requested()
    now = utcnow()
    if session.get_bind().dialect.name == "postgresql":
        # One array parameter, however many series (an upload of 1,000 runs touches thousands):
        # a row of parameters each cost the upload a fifth of its time.
        # The count, not the rows: RETURNING the ids of an upload of 6,000 new series cost
        # it 5-7 ms more.
        added = int(session.execute(_PG_REQUEST, {"ids": wanted, "now": now}).rowcount)  # type: ignore[attr-defined]
        return Requested(added, () if added == len(wanted) else tuple(wanted))
    ins = sqlite.insert(DetectionRequest).on_conflict_do_nothing(
        index_elements=["series_id"], index_where=_WAITING
    )
    inserted = session.execute(
        ins.returning(DetectionRequest.series_id),
        [{"series_id": sid, "requested_at": now} for sid in wanted],
    )
    # On SQLite a claim waits for the upload's commit: nothing to ask again.
    return Requested(len(inserted.all()))


def request_again(session: Session, requested: Requested) -> int:
    """After the upload's commit, in a transaction of its own: its series are asked for again
    when it found some waiting (see above; a series whose request still waits adds nothing);
    returns how many were not waiting any more (their check's wake-up is due). The upload is stored whatever happens here: on an error this logs and
    returns 0, and the nightly pass covers the series. Not made durable at once (a crash in the
    next moments loses it as it would lose the check's wake-up)."""
    if not requested.ask_again:
        return 0
    try:
        session.execute(text("SET LOCAL synchronous_commit TO OFF"))
        added = request_checks(session, requested.ask_again).added
        session.commit()
    except Exception:
        logger.warning("asking again for the checks of an upload's series failed", exc_info=True)
        try:
            session.rollback()
        except Exception:
            logger.warning("and so did its rollback", exc_info=True)
        return 0
    return added


_PG_REQUEST = text(
    "INSERT INTO detection_requests (series_id, requested_at)"
    " SELECT unnest(CAST(:ids AS integer[])), :now"
    " ON CONFLICT (series_id) WHERE claimed_at IS NULL DO NOTHING"
).bindparams(bindparam("now", type_=UTCDateTime))


class Claim:
    """A check's batch: the series to check and the rows it took."""

    def __init__(self, series_ids: list[int], row_ids: list[int]) -> None:
        self.series_ids, self.row_ids = series_ids, row_ids


def claim(session: Session, limit: int) -> Claim | None:
    """Claim up to `limit` waiting series, oldest request first (and stale claims), and commit;
    None when nothing waits. On PostgreSQL rows another transaction holds are skipped."""
    now = utcnow()
    free = or_(_WAITING, DetectionRequest.claimed_at < now - STALE_CLAIM)
    oldest = (
        select(DetectionRequest.id, DetectionRequest.series_id)
        .where(free)
        .order_by(DetectionRequest.requested_at, DetectionRequest.id)
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        oldest = oldest.with_for_update(skip_locked=True)
    rows = session.execute(oldest).all()
    if not rows:
        session.rollback()
        return None
    row_ids = [row_id for row_id, _ in rows]
    session.execute(
        update(DetectionRequest)
        .where(DetectionRequest.id.in_(row_ids))
        .values(claimed_at=now)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return Claim(sorted({series_id for _, series_id in rows}), row_ids)


def finish(session: Session, taken: Claim) -> None:
    """In the check's transaction: the rows it claimed are done (a series an upload asked for
    again meanwhile has a new waiting row)."""
    session.execute(
        delete(DetectionRequest)
        .where(DetectionRequest.id.in_(taken.row_ids))
        .execution_options(synchronize_session=False)
    )


def release(session: Session, taken: Claim) -> None:
    """A check that failed (and will be retried) hands its series back, and commits: its rows
    go, and each series waits again (unless an upload made it wait already)."""
    finish(session, taken)
    request_checks(session, taken.series_ids)
    session.commit()


def pending(session: Session) -> int:
    """How many series wait for their check or are being checked."""
    return int(session.scalar(select(func.count(func.distinct(DetectionRequest.series_id)))) or 0)
