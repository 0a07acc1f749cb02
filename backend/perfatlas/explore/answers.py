"""Explore's answers kept for the next reader of the same plot, for as long as the database has
not changed: many people opening one report page, or one person going back to a plot.

The key is the request and PostgreSQL's snapshot (`pg_current_snapshot()`: the oldest running
transaction, the next transaction id, the ones in progress). Two snapshots that are equal see
exactly the same committed data, in every table: an upload, a fold, an alert's change or a
deleted run all start or end a transaction that writes, and so change the snapshot. An answer is
kept only when the snapshot after computing it is the one before: every statement in between
then saw that one state. So a kept answer is the answer, never an old one; a write anywhere
ends every entry's use (old entries age out of the LRU).

PostgreSQL only (SQLite has no such snapshot: it always computes). Bounded by
PERFATLAS_EXPLORE_CACHE_MB per API process (0: off)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Literal

from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.orm import Session

Outcome = Literal["hit", "miss", "off"]


class Answers:
    """A byte-bounded LRU of answer bodies, shared by a process's request threads."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> bytes | None:
        with self._lock:
            body = self._entries.get(key)
            if body is not None:
                self._entries.move_to_end(key)
            return body

    def put(self, key: Hashable, body: bytes) -> None:
        if len(body) > self.max_bytes // 4:  # one answer never fills it
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= len(old)
            self._entries[key] = body
            self._bytes += len(body)
            while self._bytes > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= len(dropped)


_caches: dict[int, Answers] = {}
_caches_lock = threading.Lock()


def _cache(megabytes: int) -> Answers:
    with _caches_lock:
        cache = _caches.get(megabytes)
        if cache is None:
            cache = _caches[megabytes] = Answers(megabytes * 2**20)
        return cache


def _snapshot(session: Session) -> str:
    return str(session.scalar(text("SELECT pg_current_snapshot()::text")))


def answer(
    session: Session, request: Hashable, compute: Callable[[], BaseModel], *, megabytes: int
) -> tuple[bytes, Outcome]:
    """The JSON body of `compute()`'s answer to `request`, kept or computed."""
    if megabytes <= 0 or session.get_bind().dialect.name != "postgresql":
        return compute().model_dump_json(by_alias=True).encode(), "off"
    cache = _cache(megabytes)
    url = session.get_bind().engine.url
    # Transaction ids are the server's, not a database's: two databases of one server share
    # snapshots, so the key names the database too.
    where = (url.host, url.port, url.database)
    before = _snapshot(session)
    key = (where, before, request)
    body = cache.get(key)
    if body is not None:
        return body, "hit"
    body = compute().model_dump_json(by_alias=True).encode()
    if _snapshot(session) == before:
        cache.put(key, body)
    return body, "miss"
