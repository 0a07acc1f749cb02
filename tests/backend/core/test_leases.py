"""core/leases.py on PostgreSQL, with the notification outbox as the leased table: one claim
wins, a lapsed lease is claimable again, only the current holder settles, attempts are
counted and capped. Time is passed in (`now`), never waited for."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import Engine, or_, select
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.core import leases
from perfatlas.core.db import session_factory
from perfatlas.notifications.models import Channel, Notification

T0 = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.UTC)
LEASE = 60.0
MAX_ATTEMPTS = 3
PENDING, SENDING = "pending", "sending"


@pytest.fixture
def factory(engine: Engine) -> sessionmaker[Session]:
    return session_factory(engine)


@pytest.fixture
def rows(factory: sessionmaker[Session]) -> list[int]:
    with factory() as session:
        channel = Channel(name="hook", kind="webhook", target="http://127.0.0.1:9/h", enabled=True)
        session.add(channel)
        session.flush()
        made = [
            Notification(
                channel_id=channel.id, key=f"k{i}", event="incident.opened", status=PENDING,
                attempts=0, due_at=T0,
            )
            for i in range(3)
        ]  # fmt: skip
        session.add_all(made)
        session.commit()
        return [row.id for row in made]


def claimable(now: dt.datetime) -> ColumnElement[bool]:
    return or_(Notification.status == PENDING, leases.lapsed(Notification, leased=SENDING, now=now))


def claim(factory: sessionmaker[Session], row_id: int, now: dt.datetime) -> int | None:
    with factory() as session:
        attempt = leases.claim(
            session, Notification, row_id, claimable=claimable(now), leased=SENDING,
            lease_seconds=LEASE, max_attempts=MAX_ATTEMPTS, now=now,
        )  # fmt: skip
        session.commit()
        return attempt


def state(factory: sessionmaker[Session], row_id: int) -> tuple[str, int, dt.datetime | None]:
    with factory() as session:
        row = session.scalars(select(Notification).where(Notification.id == row_id)).one()
        return row.status, row.attempts, row.lease_until


def test_one_claim_wins_until_the_lease_lapses(
    factory: sessionmaker[Session], rows: list[int]
) -> None:
    first, other, _ = rows
    assert claim(factory, first, T0) == 1
    assert state(factory, first) == (SENDING, 1, T0 + dt.timedelta(seconds=LEASE))
    # Held: a second worker gets nothing, at any time before the lease ends.
    assert claim(factory, first, T0) is None
    assert claim(factory, first, T0 + dt.timedelta(seconds=LEASE - 1)) is None
    # Other rows are not touched by a claim of one.
    assert state(factory, other) == (PENDING, 0, None)
    # Lapsed (its worker died): claimable again, as the next attempt.
    assert claim(factory, first, T0 + dt.timedelta(seconds=LEASE + 1)) == 2


def test_only_the_current_holder_settles(factory: sessionmaker[Session], rows: list[int]) -> None:
    row = rows[0]
    assert claim(factory, row, T0) == 1
    assert claim(factory, row, T0 + dt.timedelta(seconds=LEASE + 1)) == 2
    with factory() as session:
        # The first worker comes back late: the row is no longer its own.
        assert not leases.settle(
            session, Notification, row, 1, leased=SENDING, values={"status": "failed"}
        )
        assert leases.settle(
            session, Notification, row, 2, leased=SENDING, values={"status": "sent"}
        )
        session.commit()
    assert state(factory, row) == ("sent", 2, None)
    # Settled rows are not claimable, and settling twice does nothing.
    assert claim(factory, row, T0 + dt.timedelta(days=1)) is None
    with factory() as session:
        assert not leases.settle(
            session, Notification, row, 2, leased=SENDING, values={"status": "failed"}
        )


def test_attempts_are_capped_and_lapsed_last_attempts_given_up(
    factory: sessionmaker[Session], rows: list[int]
) -> None:
    capped, fresh, _ = rows
    now = T0
    for attempt in range(1, MAX_ATTEMPTS + 1):
        assert claim(factory, capped, now) == attempt
        now += dt.timedelta(seconds=LEASE + 1)
    assert claim(factory, capped, now) is None  # no attempts left
    assert claim(factory, fresh, T0) == 1  # leased, one attempt used: not given up
    with factory() as session:
        given_up = leases.give_up_lapsed(
            session, Notification, leased=SENDING, max_attempts=MAX_ATTEMPTS, now=now,
            values={"status": "failed"},
        )  # fmt: skip
        session.commit()
    assert given_up == 1
    assert state(factory, capped) == ("failed", MAX_ATTEMPTS, None)
    assert state(factory, fresh)[:2] == (SENDING, 1)
