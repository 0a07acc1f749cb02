"""Waking long-polling claims when a job may have become claimable, without holding a thread
or a database connection while they wait, and without each waiter polling the database.

- In this process: a transaction that queued a job (`mark_queued`) wakes the waiters when it
  commits (a SQLAlchemy `after_commit` hook), at once: only the waiting claims of the agents
  the jobs were made for, when no other agent may take them (a job made for an agent that is
  online); every waiter otherwise (a job put back after a lapsed lease, or made for an agent
  that is away). So a job for one of 50 waiting agents costs one claim's try, not 50.
- From other processes (the beat worker firing schedules, another API process): on PostgreSQL
  the committing transaction's NOTIFY (its payload: the sending process and those agents),
  heard by one LISTENing thread per event loop while anyone waits; a process ignores its own.
- Everywhere, and for what only time changes (a lease that lapsed): one watcher per event loop
  reads a fingerprint of the queue every `interval` seconds (every second while LISTENing)
  while anyone waits, and wakes every waiter when it changed (while LISTENing: only when
  leases lapsed, since NOTIFY brings every job queued).
  A woken waiter tries to claim only when it was poked or the fingerprint differs from the one
  it saw itself.
- Every waiter also retries every `recheck` seconds (an agent that went offline makes its jobs
  claimable by others without any row changing)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import psycopg
from sqlalchemy import case, event, func, select
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker
from starlette.concurrency import run_in_threadpool

from perfatlas.core.models import utcnow
from perfatlas.jobs.enums import HELD, JobStatus
from perfatlas.jobs.models import Job

log = logging.getLogger(__name__)

T = TypeVar("T")
_QUEUED_KEY = "perfatlas.jobs_queued"
CHANNEL = "perfatlas_jobs"  # PostgreSQL's NOTIFY channel of queued jobs
Fingerprint = tuple[int, ...]
LAPSED = 3  # in a fingerprint: how many held jobs' leases lapsed
EVERYONE = "*"  # in a NOTIFY's payload: wake every waiter
MAX_PAYLOAD = 7000  # characters of a NOTIFY's payload (PostgreSQL's limit is 8000 bytes)
Keys = frozenset[str] | None  # the waiters to wake (by agent name); None: every one
_BOOT = secrets.token_hex(4)


def origin() -> str:
    """This process, in a NOTIFY's payload (the pid tells apart processes forked after import)."""
    return f"{os.getpid()}.{_BOOT}"


def mark_queued(session: Session, *, agents: Iterable[str] | None = None) -> None:
    """This transaction queues jobs that only the agents named `agents` may claim (None: any
    agent might): wake their waiting claims when it commits, this process's at once, other
    processes' on PostgreSQL through NOTIFY (sent by the commit itself, and dropped by a
    rollback)."""
    keys: Keys = None if agents is None else frozenset(agents)
    if _QUEUED_KEY in session.info:
        before: Keys = session.info[_QUEUED_KEY]
        keys = None if before is None or keys is None else before | keys
        if keys == before:
            return
    session.info[_QUEUED_KEY] = keys
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_notify(CHANNEL, _payload(keys))))


def _payload(keys: Keys) -> str:
    """A NOTIFY's payload: this process, then the agents' names, comma-separated, or EVERYONE
    (also when they would not read back: an enrolled agent's name has no comma or space)."""
    names = EVERYONE
    if keys and not any(c in key for key in keys for c in ", *"):
        names = ",".join(sorted(keys))
    return f"{origin()} {names if len(names) <= MAX_PAYLOAD else EVERYONE}"


def _heard(payload: str) -> Keys:
    """The waiters a NOTIFY's payload asks to wake (every one for a payload it cannot read)."""
    _, _, names = payload.partition(" ")
    return None if names in ("", EVERYONE) else frozenset(names.split(","))


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    if _QUEUED_KEY in session.info:
        notify(session.info.pop(_QUEUED_KEY))


@event.listens_for(Session, "after_transaction_end")
def _after_end(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # committed (notified above) or rolled back
        session.info.pop(_QUEUED_KEY, None)


_POLLS: weakref.WeakSet[LongPoll] = weakref.WeakSet()
_POLLS_LOCK = threading.Lock()


def notify(keys: Keys = None) -> None:
    """Wake the waiting claims of this process under `keys` (None: every one; safe from any
    thread)."""
    with _POLLS_LOCK:
        polls = list(_POLLS)
    for poll in polls:
        poll.poke(keys)


def fingerprint(session: Session) -> Fingerprint:
    """What changes when a job becomes claimable: the queued jobs (count, ids, attempts) and
    the held jobs whose lease lapsed (a claim puts them back)."""
    queued = Job.status == JobStatus.queued.value
    lapsed = Job.status.in_([s.value for s in HELD]) & (Job.lease_until < utcnow())
    row = session.execute(
        select(
            func.count(case((queued, 1))),
            func.coalesce(func.sum(case((queued, Job.id))), 0),
            func.coalesce(func.sum(case((queued, Job.attempts))), 0),
            func.count(case((lapsed, 1))),
        ).where(Job.status.in_([JobStatus.queued.value, *(s.value for s in HELD)]))
    ).one()
    return tuple(int(v) for v in row)


@dataclass
class Attempt(Generic[T]):
    """One try of a claim: what it got (None: nothing) and the fingerprint it saw."""

    value: T | None
    seen: Fingerprint


@dataclass(eq=False)
class Waiter:
    """One waiting claim: its key (the agent's name; None: woken by every poke), whether a poke
    for it came since its last try, and the event it sleeps on."""

    key: str | None
    poked: bool = False
    event: asyncio.Event = field(default_factory=asyncio.Event)


class LongPoll:
    """The waiters of one event loop and their watcher."""

    def __init__(
        self,
        factory: sessionmaker[Session],
        *,
        interval: float = 0.25,
        recheck: float = 10.0,
        concurrency: int = 8,
    ) -> None:
        self.factory = factory
        self.interval = interval
        self.recheck = recheck
        self.loop = asyncio.get_running_loop()
        self.waiters: set[Waiter] = set()
        self.published: Fingerprint | None = None
        self.watcher: asyncio.Task[None] | None = None
        self.listener: threading.Thread | None = None
        self.listening = False
        self.listen_interval = 1.0
        # Claims that touch the database at once: the rest wait here, not on the thread pool
        # or the connection pool that other requests need.
        self.slots = asyncio.Semaphore(concurrency)
        with _POLLS_LOCK:
            _POLLS.add(self)

    def poke(self, keys: Keys = None) -> None:
        """Make the waiters under `keys` (None: every one) try again (from any thread)."""
        with contextlib.suppress(RuntimeError):  # the loop is closed
            self.loop.call_soon_threadsafe(self._force, keys)

    def _force(self, keys: Keys) -> None:
        for waiter in self.waiters:
            if keys is None or waiter.key is None or waiter.key in keys:
                waiter.poked = True
                waiter.event.set()

    def _wake_all(self) -> None:
        for waiter in self.waiters:
            waiter.event.set()

    def _listen(self, conninfo: str) -> None:
        """A thread of its own (not the pool's), while anyone waits: LISTEN for jobs queued
        by other processes. On any error the watcher's polling carries on alone."""
        try:
            with psycopg.connect(conninfo, autocommit=True, connect_timeout=5) as conn:
                conn.execute(f"LISTEN {CHANNEL}")
                self.listening = True
                # What was queued before LISTEN, no NOTIFY will tell: every waiter tries.
                self.poke()
                me = origin()
                while self.waiters:
                    for heard in conn.notifies(timeout=1.0, stop_after=1):
                        if heard.payload.partition(" ")[0] != me:  # ours woke at commit
                            self.poke(_heard(heard.payload))
        except Exception as exc:
            log.warning("job queue listener: %s", exc)
        finally:
            self.listening = False
            self.listener = None

    def _start_listener(self) -> None:
        engine = self.factory.kw.get("bind")
        url = getattr(engine, "url", None)
        if url is None or url.get_backend_name() != "postgresql" or self.listener is not None:
            return
        conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self.listener = threading.Thread(
            target=self._listen, args=(conninfo,), name="perfatlas-jobs-listen", daemon=True
        )
        self.listener.start()

    def _read(self) -> Fingerprint:
        with self.factory() as session:
            # One statement, its own transaction: no ROLLBACK at the end, which would make
            # psycopg forget the pooled connection's prepared statements (api.deps.get_session)
            # every second while an agent waits.
            session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
            return fingerprint(session)

    async def _watch(self) -> None:
        while self.waiters:
            self._start_listener()
            try:
                current: Fingerprint | None = await run_in_threadpool(self._read)
            except Exception as exc:  # the database is away: waiters recheck on their own
                log.warning("job queue watcher: %s", exc)
                current = None
            if current is not None and current != self.published:
                self.published = current
                # While NOTIFY tells of every job queued, only lapsed leases need a try.
                if not self.listening or current[LAPSED]:
                    self._wake_all()
            # While NOTIFY brings new jobs, polling is for what only time changes (lapses).
            await asyncio.sleep(self.listen_interval if self.listening else self.interval)
        self.watcher = None

    async def run(self, attempt: Callable[[], Attempt[T]]) -> Attempt[T]:
        async with self.slots:
            return await run_in_threadpool(attempt)

    async def wait(
        self,
        attempt: Callable[[], Attempt[T]],
        *,
        timeout: float,
        gone: Callable[[], Any] | None = None,
        key: str | None = None,
    ) -> T | None:
        """Try `attempt` now and again whenever something may have changed, until it gets
        something or `timeout` seconds pass. `gone` (async) says the client went away. `key`
        (the agent's name) says which pokes are for this waiter (None: every one)."""
        deadline = time.monotonic() + timeout
        waiter = Waiter(key)
        self.waiters.add(waiter)
        try:
            tried = await self.run(attempt)
            if tried.value is not None:
                return tried.value
            last = time.monotonic()
            recheck = self.recheck * random.uniform(0.8, 1.2)
            while (remaining := deadline - time.monotonic()) > 0:
                if self.watcher is None:
                    self.watcher = asyncio.create_task(self._watch())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiter.event.wait(), timeout=min(remaining, recheck))
                waiter.event.clear()
                if time.monotonic() >= deadline:
                    break
                changed = waiter.poked or (
                    self.published is not None and self.published != tried.seen
                )
                if not changed and time.monotonic() - last < recheck:
                    continue
                if gone is not None and await gone():
                    return None
                waiter.poked = False  # a poke during the try makes another
                tried = await self.run(attempt)
                last = time.monotonic()
                if tried.value is not None:
                    return tried.value
            return None
        finally:
            self.waiters.discard(waiter)


def poll_for(state: Any, factory: sessionmaker[Session]) -> LongPoll:
    """The LongPoll of the running event loop, kept on `state` (the app's state)."""
    loop = asyncio.get_running_loop()
    polls: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LongPoll] | None = getattr(
        state, "job_polls", None
    )
    if polls is None:
        polls = weakref.WeakKeyDictionary()
        state.job_polls = polls
    poll = polls.get(loop)
    if poll is None:
        poll = polls[loop] = LongPoll(factory)
    return poll
