"""Waking long polls on PostgreSQL: a committed job wakes only the waiting claims of the agents
that may take it (its own agents, while they are online and no other may), every claim when any
matching agent may; the NOTIFY that tells other processes names the same agents."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import psycopg
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.core.db import session_factory
from perfatlas.core.models import utcnow
from perfatlas.core.workload import WorkloadSpec
from perfatlas.jobs import settle, wakeup
from perfatlas.jobs.service import enqueue
from tests.backend.jobs.support import SPEC, claim, enroll, go_offline, lapse
from tests.conftest import patient

NAMES = ("a", "b", "ghost")
EVERYONE = set(NAMES)


def _enqueue(names: tuple[str, ...], **options: Any) -> Callable[[Session], None]:
    def make(session: Session) -> None:
        agents = list(session.scalars(select(Agent).where(Agent.name.in_(names))))
        enqueue(session, spec=WorkloadSpec.model_validate(SPEC), agents=agents, **options)

    return make


def _poked_by(engine: Engine, write: Callable[[Session], None]) -> set[str]:
    """Commit `write` (from another thread, as a request would) while a claim of each of NAMES
    waits on a LongPoll of this event loop; the names of the claims it woke."""

    def commit() -> None:
        with session_factory(engine)() as session:
            write(session)
            session.commit()

    async def scenario() -> set[str]:
        poll = wakeup.LongPoll(session_factory(engine))
        waiters = {name: wakeup.Waiter(name) for name in NAMES}
        poll.waiters.update(waiters.values())
        try:
            await asyncio.to_thread(commit)
            # One callback of the loop pokes every claim the commit wakes, at once.
            deadline = time.monotonic() + patient(30)
            while not any(w.poked for w in waiters.values()) and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            assert all(w.event.is_set() == w.poked for w in waiters.values())
            return {name for name, w in waiters.items() if w.poked}
        finally:
            poll.waiters.clear()

    return asyncio.run(scenario())


def _setup(client, tokens, engine) -> dict[str, dict[str, str]]:
    agents = {name: enroll(client, tokens.admin, name, labels={"pool": "w"}) for name in NAMES}
    go_offline(engine, "ghost")
    return agents


def test_a_job_wakes_only_its_agents_claims_while_no_other_agent_may_take_it(
    client, tokens, engine
):
    _setup(client, tokens, engine)
    # For two online agents of the pool: their claims only, not the offline one's.
    assert _poked_by(engine, _enqueue(("a", "b"), selector=["pool=w"])) == {"a", "b"}
    # Without a selector a job stays with its agent.
    assert _poked_by(engine, _enqueue(("a",))) == {"a"}
    # For the offline agent: any agent of the pool may take it.
    assert _poked_by(engine, _enqueue(("ghost",), selector=["pool=w"])) == EVERYONE
    # Pinned to the offline agent: only its own claim.
    assert _poked_by(engine, _enqueue(("ghost",), selector=["pool=w"], pinned=True)) == {"ghost"}


def test_a_job_put_back_after_its_lease_lapsed_wakes_every_claim(client, tokens, engine):
    agents = _setup(client, tokens, engine)
    _poked_by(engine, _enqueue(("a",), selector=["pool=w"]))
    held = claim(client, agents["a"])
    assert held is not None
    lapse(engine, held["id"])
    woken = _poked_by(engine, lambda session: settle.recover_lapsed(session, now=utcnow()))
    assert woken == EVERYONE


def test_the_notify_names_the_agents_and_the_sending_process(client, tokens, engine):
    _setup(client, tokens, engine)
    dsn = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"LISTEN {wakeup.CHANNEL}")
        heard = []
        for write in (
            _enqueue(("b", "a"), selector=["pool=w"]),
            _enqueue(("ghost",), selector=["pool=w"]),
        ):
            with session_factory(engine)() as session:
                write(session)
                session.rollback()  # a rollback sends nothing
                write(session)
                session.commit()
            heard += [n.payload for n in conn.notifies(timeout=10, stop_after=1)]
        heard += [n.payload for n in conn.notifies(timeout=0.5)]
    assert heard == [f"{wakeup.origin()} a,b", f"{wakeup.origin()} *"]
    assert [wakeup._heard(p) for p in heard] == [frozenset({"a", "b"}), None]
