"""Leases on rows: a worker claims a row for a while with one conditional UPDATE, so that of two
workers at most one gets it, and a row whose worker died is claimable again once its lease ends.

Any table with `id`, `status`, `lease_until` and `attempts` columns can use it (the notification
outbox today; agent jobs next). The caller says which rows are claimable and which status means
"leased", and commits."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import and_, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

# A mapped class with `id`, `status`, `lease_until` (a UTC datetime, NULL when not leased) and
# `attempts` (an integer) columns. (A Protocol over Mapped[] attributes does not type-check
# against a mapped class, so this stays Any.)
Leasable = type[Any]


def lapsed(model: Leasable, *, leased: str, now: dt.datetime) -> ColumnElement[bool]:
    """Rows still leased after their lease ended: their worker died (or hangs) while on them."""
    return and_(model.status == leased, model.lease_until < now)


def claim(
    session: Session,
    model: Leasable,
    row_id: int,
    *,
    claimable: ColumnElement[bool],
    leased: str,
    lease_seconds: float,
    max_attempts: int,
    now: dt.datetime,
) -> int | None:
    """Lease one row if it is claimable and has attempts left, counting the attempt; returns the
    attempt's number, or None when another worker has the row or it is not claimable."""
    attempt: int | None = session.execute(
        update(model)
        .where(model.id == row_id, claimable, model.attempts < max_attempts)
        .values(
            status=leased,
            lease_until=now + dt.timedelta(seconds=lease_seconds),
            attempts=model.attempts + 1,
        )
        .returning(model.attempts)
        .execution_options(synchronize_session=False)
    ).scalar_one_or_none()
    return attempt


def settle(
    session: Session,
    model: Leasable,
    row_id: int,
    attempt: int,
    *,
    leased: str,
    values: dict[str, Any],
) -> bool:
    """End our lease with `values` (the status and whatever else the outcome sets), unless the
    row is no longer ours: finished, or claimed again by another worker after our lease ended.
    Returns whether it was ours."""
    result = session.execute(
        update(model)
        .where(model.id == row_id, model.status == leased, model.attempts == attempt)
        .values(lease_until=None, **values)
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def give_up_lapsed(
    session: Session,
    model: Leasable,
    *,
    leased: str,
    max_attempts: int,
    now: dt.datetime,
    values: dict[str, Any],
) -> int:
    """Settle with `values` every lapsed row that had no attempts left: its last attempt was
    interrupted, and it will not be tried again. Returns how many."""
    result = session.execute(
        update(model)
        .where(lapsed(model, leased=leased, now=now), model.attempts >= max_attempts)
        .values(lease_until=None, **values)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]
