"""Coalesced on-upload checks: an upload asks for a check of its series by writing one row per
series (`DetectionRequest`) in its own transaction, and the detection task claims the pending
series a batch at a time. However many uploads touch a series before its check runs, the
series is checked once, so a burst of uploads cannot build a backlog of checks that starves
the other background work.

A claim is committed at once, so an upload never waits for a check in progress; the check
deletes its claimed rows with its outcome (`finish`). An upload that touches a claimed series
marks it `again`: the check may have read the series before that upload, so the row is handed
back rather than deleted. A claim older than STALE_CLAIM (its check died) is taken again."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Integer, and_, bindparam, delete, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from perfatlas.alerts.models import DetectionRequest
from perfatlas.core.models import utcnow

# Longer than any check of one batch takes; a claim this old belongs to a check that died.
STALE_CLAIM = dt.timedelta(minutes=10)


def request_checks(session: Session, series_ids: Sequence[int]) -> int:
    """Ask for a check of these series in the caller's transaction; returns how many were not
    waiting already (when 0, a check that will see them is queued or running, and nothing more
    needs sending). In series order, so concurrent uploads cannot deadlock; only rows being
    checked are locked, for the rest of the caller's transaction."""
    wanted = sorted(set(series_ids))
    if not wanted:
        return 0
    now = utcnow()
    dialect = session.get_bind().dialect.name
    ins = (
        postgresql.insert(DetectionRequest)
        if dialect == "postgresql"
        else sqlite.insert(DetectionRequest)
    )
    added = session.execute(
        ins.on_conflict_do_nothing(index_elements=["series_id"]).returning(
            DetectionRequest.series_id
        ),
        [{"series_id": sid, "requested_at": now} for sid in wanted],
    )
    new = {sid for (sid,) in added}
    waiting = [sid for sid in wanted if sid not in new]
    again = 0
    # Waiting already: only a claimed one (a check may have read it before this upload) needs
    # marking.
    for among in _among(session, waiting):
        marked = session.execute(
            update(DetectionRequest)
            .where(
                among,
                DetectionRequest.claimed_at.is_not(None),
                DetectionRequest.again.is_(False),
            )
            .values(again=True)
            .execution_options(synchronize_session=False)
        )
        again += int(marked.rowcount)  # type: ignore[attr-defined]
    return len(new) + again


def _among(session: Session, ids: list[int]) -> Iterator[Any]:
    """`series_id IN ids` conditions: one array parameter on PostgreSQL, however many ids;
    chunks elsewhere."""
    if not ids:
        return
    if session.get_bind().dialect.name == "postgresql":
        array = bindparam("ids", ids, type_=postgresql.ARRAY(Integer))
        yield DetectionRequest.series_id.in_(select(func.unnest(array)).scalar_subquery())
        return
    for start in range(0, len(ids), 500):
        yield DetectionRequest.series_id.in_(ids[start : start + 500])


def claim(session: Session, limit: int) -> tuple[list[int], dt.datetime | None]:
    """Claim up to `limit` waiting series, oldest request first, and commit: their ids and the
    claim's time, for `finish`. On PostgreSQL rows another transaction holds are skipped."""
    now = utcnow()
    free = or_(
        DetectionRequest.claimed_at.is_(None), DetectionRequest.claimed_at < now - STALE_CLAIM
    )
    oldest = (
        select(DetectionRequest.series_id)
        .where(free)
        .order_by(DetectionRequest.requested_at, DetectionRequest.series_id)
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        oldest = oldest.with_for_update(skip_locked=True)
    ids = sorted(session.scalars(oldest))
    if not ids:
        session.rollback()
        return [], None
    session.execute(
        update(DetectionRequest)
        .where(DetectionRequest.series_id.in_(ids))
        .values(claimed_at=now, again=False)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return ids, now


def finish(session: Session, series_ids: Sequence[int], claimed_at: dt.datetime) -> None:
    """In the check's transaction: its claimed rows are done. Those an upload marked `again`
    meanwhile are handed back (unclaimed, their check still due); a row claimed anew by
    another check since (this one's claim went stale) is that check's."""
    ours = and_(
        DetectionRequest.series_id.in_(series_ids), DetectionRequest.claimed_at == claimed_at
    )
    session.execute(
        delete(DetectionRequest)
        .where(ours, DetectionRequest.again.is_(False))
        .execution_options(synchronize_session=False)
    )
    session.execute(
        update(DetectionRequest)
        .where(ours)
        .values(claimed_at=None, again=False)
        .execution_options(synchronize_session=False)
    )


def release(session: Session, series_ids: Sequence[int], claimed_at: dt.datetime) -> None:
    """A check that failed (and will be retried) hands its claims back, and commits."""
    session.execute(
        update(DetectionRequest)
        .where(
            DetectionRequest.series_id.in_(series_ids),
            DetectionRequest.claimed_at == claimed_at,
        )
        .values(claimed_at=None)
        .execution_options(synchronize_session=False)
    )
    session.commit()


def pending(session: Session) -> int:
    """How many series wait for their check (claimed ones included)."""
    return int(session.scalar(select(func.count()).select_from(DetectionRequest)) or 0)
