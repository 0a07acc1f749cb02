"""A real `perfatlas worker` with its beat, SIGKILLed (its whole process group, beat included) in
the middle of a pass and started again: every due firing still makes exactly one job per
matching agent (none twice, none lost), and a lapsed lease is put back in the queue once.

The kill lands mid-pass by construction, not by timing: the test holds a row lock that the pass
must wait for part way through (PostgreSQL's own locks), sees the worker's connection waiting on
it (pg_stat_activity), and kills the worker then."""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, func, select, text, update
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.core.config import Settings
from perfatlas.core.db import session_factory
from perfatlas.core.workload import WorkloadSpec
from perfatlas.jobs.claim import claim
from perfatlas.jobs.models import Job
from perfatlas.jobs.service import enqueue
from perfatlas.schedules.models import Schedule
from tests.backend.alerts.conftest import BROKER_URL, WORKER_TIMINGS, Worker, wait_until
from tests.backend.schedules.conftest import SPEC

# Kills worker processes.
pytestmark = pytest.mark.slow

# The fleet: which agents each selector picks (worked out by hand, not by agents.service).
AGENTS = {"k1": {"pool": "nvme"}, "k2": {"pool": "nvme"}, "k3": {"pool": "hdd"}}
PICKS = {
    ("pool=nvme",): {"k1", "k2"},
    ("pool=hdd",): {"k3"},
    ("k1", "k3"): {"k1", "k3"},
    (): {"k1", "k2", "k3"},
}
# Schedules fired before the pass reaches one that needs k3 (whose row the test locks).
NVME_FIRST = 60
LATER = 240


@pytest.fixture
def idle_worker(
    engine: Engine, pg_url: str, worker_settings: Settings, tmp_path: Path
) -> Iterator[Worker]:
    """A `perfatlas worker` (with beat) on the test database, not started yet."""
    data_dir = tmp_path / "worker-data"
    data_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env.update(
        PERFATLAS_DATABASE_URL=pg_url, PERFATLAS_BROKER_URL=BROKER_URL,
        PERFATLAS_QUEUE=worker_settings.queue, PERFATLAS_DATA_DIR=str(data_dir), **WORKER_TIMINGS,
    )  # fmt: skip
    proc = Worker(env, tmp_path)
    yield proc
    proc.stop()


def make_agents(engine: Engine) -> dict[str, int]:
    now = dt.datetime.now(dt.UTC)
    with Session(engine) as session:
        rows = [Agent(name=n, labels=labels, enrolled_at=now) for n, labels in AGENTS.items()]
        session.add_all(rows)
        session.commit()
        return {row.name: row.id for row in rows}


def waiting_on_lock(engine: Engine, statement: str) -> int:
    """Connections to this database (other than the test's) waiting for a lock in `statement`
    (UPDATE jobs, INSERT INTO jobs…)."""
    with engine.connect() as conn:
        return int(
            conn.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' "
                    "AND query ILIKE :statement"
                ),
                {"statement": f"{statement}%"},
            )
            or 0
        )


def hold_lock(engine: Engine, sql: str, **params: Any) -> Connection:
    """A transaction of the test's own holding the locks `sql` takes, until it is rolled back."""
    conn = engine.connect()
    conn.begin()
    conn.execute(text(sql), params)
    return conn


def passes(worker: Worker, task: str) -> int:
    return sum(task in line and "succeeded" in line for line in worker.logs().splitlines())


def test_killed_while_firing_every_due_firing_makes_its_jobs_once(
    engine: Engine, idle_worker: Worker
) -> None:
    ids = make_agents(engine)
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    base = now - dt.timedelta(hours=1)
    selectors = list(PICKS)
    due: dict[str, tuple[tuple[str, ...], dt.datetime]] = {}
    with Session(engine) as session:
        # The pass takes them oldest first: NVME_FIRST that need only k1 and k2, then a mix.
        for i in range(NVME_FIRST + LATER):
            # the first after the nvme-only ones picks k3 (selectors[1]), the rest a mix
            selector = selectors[0 if i < NVME_FIRST else (i - NVME_FIRST + 1) % len(selectors)]
            at = base + dt.timedelta(seconds=i)
            name = f"due-{i:03d}"
            due[name] = (selector, at)
            session.add(
                Schedule(name=name, spec=SPEC, agents=list(selector), when=at.isoformat(),
                         timezone="UTC", next_fire_at=at)
            )  # fmt: skip
        # A yearly cron that missed its firings: it fires once, for the latest of them.
        session.add(
            Schedule(name="yearly", spec=SPEC, agents=["pool=nvme"], when="cron:0 0 1 1 *",
                     timezone="UTC", next_fire_at=dt.datetime(now.year - 1, 1, 1, tzinfo=dt.UTC))
        )  # fmt: skip
        session.commit()
    yearly_fire = dt.datetime(now.year, 1, 1, tzinfo=dt.UTC)  # the latest 1 January 00:00 UTC

    def jobs_made() -> int:
        with Session(engine) as session:
            return int(session.scalar(select(func.count()).select_from(Job)) or 0)

    # A job for k3 needs its agents row (the foreign key's KEY SHARE lock): while the test holds
    # the row FOR UPDATE, the pass fires the nvme-only schedules, then waits inside the firing of
    # the first schedule that picks k3, with that schedule's next_fire_at already moved on.
    lock = hold_lock(engine, "SELECT id FROM agents WHERE id = :id FOR UPDATE", id=ids["k3"])
    try:
        idle_worker.start()
        wait_until(
            lambda: waiting_on_lock(engine, "INSERT INTO jobs"), timeout=90,
            what="the beat's firing pass to wait for the locked agent",
        )  # fmt: skip
        # committed so far (the yearly cron is the oldest due); the next firing is in flight
        assert jobs_made() == 2 * (1 + NVME_FIRST)
        idle_worker.kill()
    finally:
        lock.rollback()
        lock.close()
    # The killed worker's connection dies with its transaction; the restarted worker (its beat
    # runs the passes it missed at once, then every 10 s) fires whatever is still due.
    idle_worker.start()

    def all_fired() -> bool:
        with Session(engine) as session:
            left = session.scalar(
                select(func.count()).where(Schedule.next_fire_at <= dt.datetime.now(dt.UTC))
            )
        return left == 0

    wait_until(all_fired, timeout=120, what="every due schedule to fire")
    done = passes(idle_worker, "perfatlas.fire_schedules")
    wait_until(
        lambda: passes(idle_worker, "perfatlas.fire_schedules") >= done + 2, timeout=60,
        what="two more firing passes",
    )  # fmt: skip

    with Session(engine) as session:
        rows = session.execute(
            select(Schedule.name, Job.fire_at, Agent.name)
            .join(Schedule, Schedule.id == Job.schedule_id)
            .join(Agent, Agent.id == Job.agent_id)
        ).all()
    made = Counter((s, f, a) for s, f, a in rows)
    assert max(made.values()) == 1, "a firing made a job twice"
    expected = {(name, at, agent) for name, (sel, at) in due.items() for agent in PICKS[sel]}
    expected |= {("yearly", yearly_fire, agent) for agent in ("k1", "k2")}
    assert set(made) == expected  # every firing, each agent once; nothing else
    with Session(engine) as session:
        yearly = session.scalars(select(Schedule).where(Schedule.name == "yearly")).one()
        assert yearly.next_fire_at == dt.datetime(now.year + 1, 1, 1, tzinfo=dt.UTC)
        assert yearly.last_fired_at == yearly_fire


def test_killed_while_expiring_a_lapsed_lease_is_queued_again_once(
    engine: Engine, idle_worker: Worker
) -> None:
    ids = make_agents(engine)
    factory = session_factory(engine)
    spec = WorkloadSpec.model_validate(SPEC)
    now = dt.datetime.now(dt.UTC)
    with factory() as session:
        agents = {a.name: a for a in session.scalars(select(Agent))}
        # Jobs whose agent took them and died: leased once, the lease lapsed a minute ago.
        lapsed = [
            enqueue(session, spec=spec, agents=[agents[name]], selector=["pool=nvme"])[0]
            for name in ("k1", "k2") * 20
        ]
        # One whose attempts are spent: it fails instead (once).
        (spent,) = enqueue(session, spec=spec, agents=[agents["k1"]], max_attempts=1)
        # A queued job past its time, which the same pass expires (the lock point below).
        (stale,) = enqueue(
            session, spec=spec, agents=[agents["k3"]], expires_at=now - dt.timedelta(minutes=5)
        )
        session.flush()
        lapsed_ids = [job.id for job in lapsed]
        session.execute(
            update(Job)
            .where(Job.id.in_([*lapsed_ids, spent.id]))
            .values(
                status="running", attempts=1, leased_by_id=Job.agent_id,
                lease_until=now - dt.timedelta(minutes=1), started_at=now - dt.timedelta(minutes=2),
            )
        )  # fmt: skip
        session.commit()
        spent_id, stale_id = spent.id, stale.id

    def statuses() -> dict[int, tuple[str, int]]:
        with Session(engine) as session:
            return {
                i: (s, a) for i, s, a in session.execute(select(Job.id, Job.status, Job.attempts))
            }

    # The pass puts the lapsed leases back, then waits to expire the stale job (locked by the
    # test) inside the same transaction: killed there, none of it is committed.
    lock = hold_lock(engine, "SELECT id FROM jobs WHERE id = :id FOR UPDATE", id=stale_id)
    try:
        idle_worker.start()
        wait_until(
            lambda: waiting_on_lock(engine, "UPDATE jobs"), timeout=90,
            what="the beat's expiry pass to wait for the locked job",
        )  # fmt: skip
        assert all(statuses()[i] == ("running", 1) for i in lapsed_ids)  # nothing committed yet
        idle_worker.kill()
    finally:
        lock.rollback()
        lock.close()
    idle_worker.start()

    def settled() -> bool:
        now_seen = statuses()
        return all(now_seen[i][0] == "queued" for i in lapsed_ids) and now_seen[stale_id][0] == (
            "expired"
        )

    wait_until(settled, timeout=120, what="the restarted worker's expiry pass")
    done = passes(idle_worker, "perfatlas.expire_jobs")
    wait_until(
        lambda: passes(idle_worker, "perfatlas.expire_jobs") >= done + 2, timeout=60,
        what="two more expiry passes",
    )  # fmt: skip
    after = statuses()
    # Put back once: the attempt that lapsed still counts once; none failed for it.
    assert {after[i] for i in lapsed_ids} == {("queued", 1)}
    assert after[spent_id] == ("failed", 1)
    assert after[stale_id] == ("expired", 0)
    # Each lapsed job is claimable once more, by one agent at a time: every id comes out exactly
    # once, on its second attempt, and then nothing is left.
    taken: list[tuple[int, int]] = []
    for name in ("k1", "k2"):
        while True:
            with factory() as session:
                agent = session.get(Agent, ids[name])
                assert agent is not None
                got = claim(session, agent=agent)
                session.commit()
            if got is None:
                break
            taken.append((got.job.id, got.attempt))
    assert sorted(taken) == sorted((i, 2) for i in lapsed_ids)
    # The claims' leases are fresh: the next passes leave them alone.
    done = passes(idle_worker, "perfatlas.expire_jobs")
    wait_until(
        lambda: passes(idle_worker, "perfatlas.expire_jobs") >= done + 1, timeout=60,
        what="one more expiry pass",
    )  # fmt: skip
    assert {statuses()[i] for i in lapsed_ids} == {("leased", 2)}
