"""Exactly once: eight agents claiming at the same time never get the same job twice, on
PostgreSQL (a real `perfatlas serve` over HTTP) and on SQLite (the embedded default)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from perfatlas.agents.models import Agent
from perfatlas.auth.service import create_token
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.jobs.models import Job
from perfatlas.main import create_app
from tests.backend.jobs.support import Client, claim, enroll, go_offline, queue
from tests.conftest import LiveServer
from tests.databases import migrate

CLAIMERS = 8
JOBS = 40


def _race(
    make_client: Callable[[], Any], agents: list[dict[str, str]]
) -> list[tuple[int, int, int]]:
    """Every agent claims (wait=0) until it gets nothing, all at once from its own thread;
    returns (job id, attempt, agent index) of every claim."""
    claims: list[tuple[int, int, int]] = []
    lock = threading.Lock()
    start = threading.Barrier(len(agents))
    errors: list[BaseException] = []

    def run(index: int, headers: dict[str, str]) -> None:
        try:
            client = make_client()
            start.wait()
            while (got := claim(client, headers)) is not None:
                with lock:
                    claims.append((got["id"], got["attempt"], index))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i, h)) for i, h in enumerate(agents)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    return claims


def _check(engine: Engine, claims: list[tuple[int, int, int]], queued: list[int], names: list[str]):
    counted = Counter(job_id for job_id, _, _ in claims)
    assert sorted(counted) == sorted(queued), "every job claimed"
    assert set(counted.values()) == {1}, "no job claimed twice"
    assert {attempt for _, attempt, _ in claims} == {1}
    with session_factory(engine)() as session:
        rows = session.execute(
            select(Job.id, Job.status, Job.attempts, Job.leased_by_id).where(Job.id.in_(queued))
        ).all()
    assert {r.status for r in rows} == {"leased"} and {r.attempts for r in rows} == {1}
    assert len({r.leased_by_id for r in rows}) > 1, "the work was shared"
    assert len(names) == CLAIMERS


def _setup(client: Client, admin: str, engine: Engine, prefix: str) -> tuple[list, list[int]]:
    names = [f"{prefix}-{i}" for i in range(CLAIMERS)]
    agents = [enroll(client, admin, name, labels={"pool": prefix}) for name in names]
    ghost = f"{prefix}-ghost"
    enroll(client, admin, ghost, labels={"pool": prefix})
    go_offline(engine, ghost)
    # Jobs of an offline agent, for any agent of the pool, and one of each claimer's own.
    queued = [
        job_id for _ in range(JOBS - CLAIMERS)
        for job_id in queue(engine, [ghost], selector=[f"pool={prefix}"])
    ] + queue(engine, names, selector=[f"pool={prefix}"])  # fmt: skip
    return agents, queued


def test_eight_claimers_on_postgresql_over_http(live_server: LiveServer) -> None:
    engine = get_engine(live_server.database_url)
    with httpx.Client(base_url=live_server.url, timeout=30) as client:
        agents, queued = _setup(client, live_server.admin_token, engine, "race-pg")

    def make_client() -> httpx.Client:
        return httpx.Client(base_url=live_server.url, timeout=30)

    claims = _race(make_client, agents)
    _check(engine, claims, queued, [str(i) for i in range(CLAIMERS)])


def test_eight_claimers_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'perfatlas.db'}"
    migrate(url)
    engine = get_engine(url)
    with session_factory(engine)() as session:
        admin = create_token(session, name="admin", scope="admin")[1]
    with TestClient(create_app(Settings(database_url=url))) as client:
        agents, queued = _setup(client, admin, engine, "race-lite")
        claims = _race(lambda: client, agents)
    _check(engine, claims, queued, [str(i) for i in range(CLAIMERS)])
    engine.dispose()


def _heartbeat_at(engine: Engine, name: str) -> Any:
    with session_factory(engine)() as session:
        return session.scalar(select(Agent.heartbeat_at).where(Agent.name == name))


def test_a_job_queued_by_another_process_reaches_a_waiting_claim(live_server: LiveServer) -> None:
    """The server process did not queue it: its watcher sees the queue change."""
    engine = get_engine(live_server.database_url)
    with httpx.Client(base_url=live_server.url, timeout=60) as client:
        agent = enroll(client, live_server.admin_token, "watched")
        enrolled_beat = _heartbeat_at(engine, "watched")
        got: list[dict[str, Any] | None] = []
        waiting = threading.Thread(target=lambda: got.append(claim(client, agent, wait=25)))
        waiting.start()
        # Queued once the claim has started (its start counts as a heartbeat).
        while _heartbeat_at(engine, "watched") == enrolled_beat and waiting.is_alive():
            time.sleep(0.02)
        (job_id,) = queue(engine, ["watched"])
        waiting.join(timeout=40)
    assert got and got[0] is not None and got[0]["id"] == job_id
