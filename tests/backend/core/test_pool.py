"""The pool hands out live connections: one the server ended while it sat in the pool is
replaced before a request gets it (core.db.make_engine), on the real PostgreSQL."""

from __future__ import annotations

import datetime as dt
import time

import psycopg
import pytest
from sqlalchemy import text

from perfatlas.core.db import make_engine
from tests.databases import admin_dsn

BACKEND_PID = text("SELECT pg_backend_pid()")


def test_connections_the_server_ended_in_the_pool_are_replaced_before_use(pg_url: str) -> None:
    engine = make_engine(pg_url)  # a pool of its own: the app's is shared by other tests
    try:
        held = [engine.connect() for _ in range(3)]
        ended = {conn.execute(BACKEND_PID).scalar_one() for conn in held}
        for conn in held:
            conn.close()  # back to the pool, each still connected
        with psycopg.connect(admin_dsn(), autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", (list(ended),)
            )
            for _ in range(100):
                left = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", (list(ended),)
                ).fetchone()
                if left == (0,):
                    break
                time.sleep(0.05)
            else:
                raise AssertionError(f"the server did not end {ended}")

        # Every pooled connection is dead: each checkout must get a new one that answers.
        for _ in range(len(ended)):
            with engine.connect() as conn:
                assert conn.execute(BACKEND_PID).scalar_one() not in ended
                assert conn.execute(text("SELECT 41 + 1")).scalar_one() == 42
    finally:
        engine.dispose()


def test_a_live_pooled_connection_is_handed_out_again(pg_url: str) -> None:
    engine = make_engine(pg_url)
    try:
        with engine.connect() as conn:
            first = conn.execute(BACKEND_PID).scalar_one()
            conn.commit()
        with engine.connect() as conn:
            assert conn.execute(BACKEND_PID).scalar_one() == first
    finally:
        engine.dispose()


def _query_start(admin: psycopg.Connection[tuple[object, ...]], pid: int) -> dt.datetime:
    row = admin.execute("SELECT query_start FROM pg_stat_activity WHERE pid = %s", (pid,))
    (started,) = row.fetchone() or (None,)
    assert isinstance(started, dt.datetime)
    return started


@pytest.mark.parametrize(("idle_ping_seconds", "pinged"), [(0.0, True), (3600.0, False)])
def test_a_connection_idle_that_long_is_pinged_and_a_recent_one_is_not(
    pg_url: str, idle_ping_seconds: float, pinged: bool
) -> None:
    """The round trip the check saves, and the one it keeps: a connection back in the pool for
    idle_ping_seconds is asked before it is handed out (a server gone without a word is found
    out there), one returned since is handed out with no statement (the server's record of the
    connection's last statement does not move)."""
    engine = make_engine(pg_url, idle_ping_seconds=idle_ping_seconds)
    try:
        with engine.connect() as conn:
            pid = conn.execute(BACKEND_PID).scalar_one()
            conn.commit()
        with psycopg.connect(admin_dsn(), autocommit=True) as admin:
            before = _query_start(admin, pid)
            time.sleep(0.05)
            with engine.connect() as conn:  # the check runs at this checkout
                after = _query_start(admin, pid)
                assert conn.execute(BACKEND_PID).scalar_one() == pid
        assert (after > before) is pinged
    finally:
        engine.dispose()
