"""Coalesced on-upload checks: an upload asks for a check of its series by writing one row per
series (`DetectionRequest`), and the detection task takes the pending series a batch at a time.
However many uploads touch a series before its check runs, the series is checked once, so a
burst of uploads cannot build a backlog of checks that starves the other background work."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from perfatlas.alerts.models import DetectionRequest
from perfatlas.core.models import utcnow


def request_checks(session: Session, series_ids: Sequence[int]) -> int:
    """Ask for a check of these series; returns how many were not pending already (when 0, a
    check that will see them is queued or running, and nothing more needs sending)."""
    if not series_ids:
        return 0
    now = utcnow()
    rows = [{"series_id": sid, "requested_at": now} for sid in sorted(set(series_ids))]
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
        rows,
    )
    return len(added.all())


def take_batch(session: Session, limit: int) -> list[int]:
    """Take up to `limit` pending series, oldest request first, in the caller's transaction:
    the rows are deleted, and come back if the transaction rolls back. On PostgreSQL the rows
    other checks hold are skipped, so two workers never check the same series at once."""
    oldest = (
        select(DetectionRequest.series_id)
        .order_by(DetectionRequest.requested_at, DetectionRequest.series_id)
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        oldest = oldest.with_for_update(skip_locked=True)
    ids = list(session.scalars(oldest))
    if ids:
        session.execute(delete(DetectionRequest).where(DetectionRequest.series_id.in_(ids)))
    return sorted(ids)


def pending(session: Session) -> int:
    """How many series wait for their check."""
    return int(session.scalar(select(func.count()).select_from(DetectionRequest)) or 0)
