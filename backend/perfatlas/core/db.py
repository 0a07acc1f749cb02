"""Engine and session factory; SQLite gets WAL and foreign keys, PostgreSQL a pool."""

from __future__ import annotations

import select as _select
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import orjson
import psycopg
from sqlalchemy import Engine, String, Text, bindparam, cast, create_engine, event, func, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import DisconnectionError, IntegrityError
from sqlalchemy.orm import Session, sessionmaker

T = TypeVar("T")
COMMIT_ATTEMPTS = 3
# A pooled connection idle this long is pinged before it is handed out (core.db.make_engine).
IDLE_PING_SECONDS = 30.0


# An execution option: the statement's rows come back in PostgreSQL's binary format (arrays,
# bytea and numbers without a text rendering on either side). Only for statements whose
# columns need no SQLAlchemy result processing.
BINARY_RESULTS = "perfatlas_binary_results"


@event.listens_for(Engine, "before_cursor_execute")
def _binary_results(
    conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
) -> None:
    if context is not None and context.execution_options.get(BINARY_RESULTS):
        cursor.format = psycopg.pq.Format.BINARY


KEYS_PER_CHUNK = 900


def key_in(session: Session, column: Any, keys: Sequence[Any]) -> Iterable[Any]:
    """`column IN keys` conditions: on PostgreSQL one parameter, however many keys (a
    thousand-item IN costs more to build and bind than to run), else chunks (SQLite binds at
    most 32,766 parameters, older builds 999).

    The keys go as one JSON array, rendered by orjson and unpacked by PostgreSQL: psycopg's
    array parameter adapts item by item in Python, which took 30-50 ms for the 6,000 series
    keys of an upload batch, the JSON 1-2 ms. The set is a subquery rather than `= ANY(...)`:
    once psycopg has prepared the statement, PostgreSQL may plan it generically, and a generic
    `= ANY($1)` over a large series table became a sequential scan (4-8 s a batch);
    `IN (SELECT ...)` is planned as a few index probes either way."""
    if session.get_bind().dialect.name == "postgresql":
        # Text, not the column's varchar(n): a cast to varchar(n) would cut a longer key short.
        item_type = Text() if isinstance(column.type, String) else column.type
        array = cast(bindparam("keys", orjson.dumps(list(keys)).decode(), type_=Text()), JSONB)
        yield column.in_(select(cast(func.jsonb_array_elements_text(array), item_type)))
        return
    items = list(keys)
    for start in range(0, len(items), KEYS_PER_CHUNK):
        yield column.in_(items[start : start + KEYS_PER_CHUNK])


def make_engine(url: str, *, idle_ping_seconds: float = IDLE_PING_SECONDS) -> Engine:
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return engine
    engine = create_engine(
        url, pool_size=10, max_overflow=10,
        # The most recently returned connection first: the few a steady load needs stay warm
        # (their prepared statements), and the others idle out of the way.
        pool_use_lifo=True,
        # A server that vanished without a word (a host gone, a connection dropped on the way)
        # is found out within a minute of idleness, as an error on the socket.
        connect_args={"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
                      "keepalives_count": 3},
    )  # fmt: skip
    event.listen(engine, "checkin", _returned_at)
    event.listen(engine, "checkout", _live_or_replaced(engine.dialect, idle_ping_seconds))
    return engine


def _returned_at(_dbapi_connection: Any, record: Any) -> None:
    record.info["returned_at"] = time.monotonic()


def _live_or_replaced(dialect: Any, idle_ping_seconds: float) -> Callable[[Any, Any, Any], None]:
    """A pooled connection is handed out only if it is still open; the pool replaces one that
    is not (DisconnectionError). SQLAlchemy's pre-ping asks the server each time, a round
    trip for every request. Here the server is asked only when the connection has been idle
    for idle_ping_seconds, or when something arrived on it while it was: a server ending a
    connection (a restart, an administrator's command, an idle timeout) sends a last message
    and then the end of the stream, and a lost peer gives the socket an error (keepalives)."""

    def check(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        pgconn = dbapi_connection.pgconn
        if pgconn.status != psycopg.pq.ConnStatus.OK:
            raise DisconnectionError("the connection is closed")
        idle = time.monotonic() - record.info.get("returned_at", time.monotonic())
        poller = _select.poll()
        poller.register(pgconn.socket, _select.POLLIN)
        if idle >= idle_ping_seconds or poller.poll(0):
            try:
                dialect.do_ping(dbapi_connection)
            except psycopg.Error as exc:
                raise DisconnectionError("the server ended the connection") from exc

    return check


@lru_cache
def get_engine(url: str) -> Engine:
    return make_engine(url)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=False)


def iter_session(factory: sessionmaker[Session]) -> Iterator[Session]:
    with factory() as session:
        yield session


def commit_with_retry(
    session: Session, work: Callable[[], T], *, attempts: int = COMMIT_ATTEMPTS
) -> T:
    """Runs `work` in the session's transaction and commits it. When a concurrent writer took a
    unique key first (COPY raises the driver's error, INSERT SQLAlchemy's), rolls back and runs
    it again: the next pass sees the other writer's rows. Services write; callers commit."""
    for attempt in range(attempts):
        try:
            outcome = work()
            session.commit()
            return outcome
        except (IntegrityError, psycopg.errors.IntegrityError):
            session.rollback()
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")
