"""Whether the database answered this process lately, and since when it has not.

Kept per process, in memory: when the database is down nothing can be written about it. The
error handlers mark it down (core/errors.py); any request that reaches the database again
marks it up (health's checks)."""

from __future__ import annotations

import datetime as dt
import threading

from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeout

_lock = threading.Lock()
_down_since: dt.datetime | None = None

# What a client may do about a database that does not answer: wait this long and try again.
RETRY_AFTER_SECONDS = 5


def is_unavailable(exc: BaseException) -> bool:
    """The database (or the way to it) is down, as opposed to a statement it refused: a
    connection that could not be made or was lost, or no connection free in the pool."""
    if isinstance(exc, (DisconnectionError, PoolTimeout)):
        return True
    if isinstance(exc, DBAPIError):
        if exc.connection_invalidated:
            return True
        exc = exc.orig if exc.orig is not None else exc
    import psycopg

    if isinstance(exc, psycopg.OperationalError):
        # A statement the server refused (a deadlock, a cancelled query) has a SQLSTATE of
        # its own; a connection that failed or broke has none, or one of class 08 / 57P.
        state = getattr(exc, "sqlstate", None)
        return state is None or state.startswith(("08", "57P"))
    return isinstance(exc, (psycopg.InterfaceError, ConnectionError))


def mark_down(now: dt.datetime | None = None) -> dt.datetime:
    global _down_since
    with _lock:
        if _down_since is None:
            _down_since = now or dt.datetime.now(dt.UTC)
        return _down_since


def mark_up() -> None:
    global _down_since
    with _lock:
        _down_since = None


def down_since() -> dt.datetime | None:
    return _down_since
