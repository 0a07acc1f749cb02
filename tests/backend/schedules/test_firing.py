"""The beat pass on PostgreSQL: a due schedule fires once, one job per matching agent, however
often and however concurrently the pass runs; paused schedules do not fire; a cron that missed
several firings fires once, for the latest; the firings' history pages newest first."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from sqlalchemy import Engine, select, text, update
from sqlalchemy.orm import Session

from perfatlas.core.config import Settings
from perfatlas.core.db import session_factory
from perfatlas.schedules.firing import fire_due
from perfatlas.schedules.models import Schedule
from perfatlas.schedules.tasks import FIRE_SCHEDULES
from perfatlas.worker.celery_app import make_celery
from tests.backend.schedules.conftest import SPEC, jobs_of, oracle_firings

URL = "/api/v1/schedules"
UTC = dt.UTC


@pytest.fixture
def agents(enroll) -> None:
    enroll("a1", pool="nvme", os="linux")
    enroll("a2", pool="nvme", os="bsd")
    enroll("a3", pool="hdd", os="linux")
    enroll("a4", pool="hdd", os="bsd")


def make(client, headers, **body: Any) -> int:
    body = {"name": "s", "spec": SPEC, "agents": ["pool=nvme"], "when": "cron:*/10 * * * *",
            **body}  # fmt: skip
    response = client.post(URL, json=body, headers=headers)
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def run_task(settings: Settings) -> dict[str, int]:
    """The beat task itself, run here (eagerly) in an app made with the test settings."""
    result: dict[str, int] = make_celery(settings).tasks[FIRE_SCHEDULES].apply().get()
    return result


def set_due(engine: Engine, schedule_id: int, when: dt.datetime) -> None:
    with engine.begin() as conn:
        conn.execute(update(Schedule).where(Schedule.id == schedule_id).values(next_fire_at=when))


def schedule_row(engine: Engine, schedule_id: int) -> Schedule:
    with Session(engine) as session:
        row = session.get(Schedule, schedule_id)
        assert row is not None
        return row


def test_a_due_cron_fires_once_for_the_latest_missed_firing(client, admin_headers, engine, agents):
    sid = make(client, admin_headers, agents=["os=linux"], when="cron:*/10 * * * *")
    now = dt.datetime(2026, 5, 1, 10, 37, 12, tzinfo=UTC)
    set_due(engine, sid, now - dt.timedelta(hours=5))  # thirty firings missed
    with session_factory(engine)() as session:
        assert fire_due(session, now=now) == 1
        assert fire_due(session, now=now) == 0  # again: nothing
    everything = oracle_firings("*/10 * * * *", "UTC", now, days=1)
    latest = max(t for t in everything if t <= now)
    following = min(t for t in everything if t > now)
    assert latest == dt.datetime(2026, 5, 1, 10, 30, tzinfo=UTC)
    assert jobs_of(engine, sid) == [("a1", latest, "queued"), ("a3", latest, "queued")]
    row = schedule_row(engine, sid)
    assert row.next_fire_at == following and row.last_fired_at == latest
    with engine.connect() as conn:  # a cron's jobs expire at its next firing
        assert set(conn.scalars(text("SELECT expires_at FROM jobs"))) == {following}
    # At the next firing's time, the next firing.
    with session_factory(engine)() as session:
        assert fire_due(session, now=following) == 1
    assert [f for _, f, _ in jobs_of(engine, sid)] == [latest, following, latest, following]


@pytest.mark.parametrize(
    ("selector", "picked"),
    [
        (["pool=hdd"], ["a3", "a4"]),
        (["os=bsd"], ["a2", "a4"]),
        (["pool=hdd", "os=bsd"], ["a4"]),
        (["a1", "a4"], ["a1", "a4"]),
        (["a1", "a2", "a3", "os=linux"], ["a1", "a3"]),
        (["pool=ssd"], []),
    ],
)
def test_firing_makes_one_job_per_matching_agent(
    client, admin_headers, engine, settings, agents, selector, picked
) -> None:
    sid = make(client, admin_headers, agents=selector)
    set_due(engine, sid, dt.datetime(2026, 5, 1, 10, 0, tzinfo=UTC))
    before = dt.datetime.now(UTC)
    for _ in range(3):  # the task, run three times
        run_task(settings)
    after = dt.datetime.now(UTC)
    # The latest firing missed, as of when the task ran.
    everything = oracle_firings("*/10 * * * *", "UTC", before, days=1)
    due = {max(t for t in everything if t <= moment) for moment in (before, after)}
    (fired,) = {schedule_row(engine, sid).last_fired_at} & due
    assert jobs_of(engine, sid) == [(name, fired, "queued") for name in picked]


def test_paused_schedules_do_not_fire(client, admin_headers, engine, settings, agents) -> None:
    sid = make(client, admin_headers, paused=True)
    set_due(engine, sid, dt.datetime(2026, 5, 1, tzinfo=UTC))
    run_task(settings)
    assert jobs_of(engine) == []
    # Resumed: a cron skips what it missed while paused, and fires from its next time on.
    before = dt.datetime.now(UTC)
    resumed = client.post(f"{URL}/{sid}/resume", headers=admin_headers).json()
    assert dt.datetime.fromisoformat(resumed["next_fire_at"]) > before
    run_task(settings)
    assert jobs_of(engine) == []


def test_a_firing_made_again_adds_nothing(client, admin_headers, engine, agents) -> None:
    """Past the row guard (a pass that read the schedule before another moved it on), the jobs'
    unique key still makes the firing once."""
    sid = make(client, admin_headers)
    due = dt.datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    set_due(engine, sid, due)
    with session_factory(engine)() as session:
        assert fire_due(session, now=due) == 1
    set_due(engine, sid, due)
    with session_factory(engine)() as session:
        assert fire_due(session, now=due) == 1
    assert jobs_of(engine, sid) == [("a1", due, "queued"), ("a2", due, "queued")]


def test_a_locked_schedule_is_skipped_by_another_pass(client, admin_headers, engine, agents):
    sid = make(client, admin_headers)
    due = dt.datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    set_due(engine, sid, due)
    factory = session_factory(engine)
    with factory() as holder:
        holder.scalars(select(Schedule).where(Schedule.id == sid).with_for_update()).one()
        with factory() as other:
            assert fire_due(other, now=due) == 0  # SKIP LOCKED: it does not wait, or fire
        holder.rollback()
    assert jobs_of(engine) == []
    with factory() as session:
        assert fire_due(session, now=due) == 1
    assert len(jobs_of(engine)) == 2


def test_concurrent_passes_fire_each_schedule_once(client, admin_headers, engine, agents):
    due = dt.datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    ids = [make(client, admin_headers, name=f"s{i}", agents=[f"a{i % 4 + 1}", "pool=nvme"])
           for i in range(8)]  # fmt: skip
    ids += [make(client, admin_headers, name=f"all{i}", agents=["os=linux"]) for i in range(8)]
    for sid in ids:
        set_due(engine, sid, due)
    factory = session_factory(engine)
    start = threading.Barrier(4)
    fired: list[int] = []

    def run() -> None:
        with factory() as session:
            start.wait()
            fired.append(fire_due(session, now=due))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(fired) == len(ids)
    expected = sorted(
        [(f"a{i % 4 + 1}", due, "queued") for i in range(8) if i % 4 < 2]
        + [(n, due, "queued") for _ in range(8) for n in ("a1", "a3")]
    )
    assert jobs_of(engine) == expected


def test_firings_history_pages_newest_first(client, admin_headers, read_headers, engine, agents):
    sid = make(client, admin_headers, agents=["os=linux"], when="cron:0 * * * *")
    first = dt.datetime(2026, 5, 1, 0, 0, tzinfo=UTC)
    hours = [first + dt.timedelta(hours=h) for h in range(5)]
    factory = session_factory(engine)
    set_due(engine, sid, hours[0])
    for hour in hours:
        with factory() as session:
            fire_due(session, now=hour)
            set_due(engine, sid, hour + dt.timedelta(hours=1))
    with engine.begin() as conn:  # the agents' progress on the newest firing
        conn.execute(text(
            "UPDATE jobs SET status = 'running', progress = '{\"percent\": 42.5}' "
            "WHERE fire_at = :t AND agent_id = (SELECT id FROM agents WHERE name = 'a1')"
        ), {"t": hours[-1]})  # fmt: skip
        conn.execute(text(
            "UPDATE jobs SET status = 'succeeded' WHERE fire_at = :t"
        ), {"t": hours[0]})  # fmt: skip
    seen: list[dict[str, Any]] = []
    cursor = None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = client.get(f"{URL}/{sid}/firings", params=params, headers=read_headers).json()
        seen += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert [dt.datetime.fromisoformat(f["fire_at"]) for f in seen] == hours[::-1]
    ids = {(a, f): i for i, a, f in _job_ids(engine)}
    expected_newest = [
        {"id": ids["a1", hours[-1]], "agent": "a1", "status": "running", "percent": 42.5},
        {"id": ids["a3", hours[-1]], "agent": "a3", "status": "queued", "percent": 0.0},
    ]
    assert seen[0]["jobs"] == expected_newest
    assert [j["percent"] for j in seen[-1]["jobs"]] == [100.0, 100.0]
    got = client.get(f"{URL}/{sid}", headers=read_headers).json()
    assert got["last_firing"] == {
        "fire_at": seen[0]["fire_at"],
        "jobs": {"queued": 1, "running": 1},
    }


def _job_ids(engine: Engine) -> list[tuple[int, str, dt.datetime]]:
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(  # type: ignore[misc]
            "SELECT j.id, a.name, j.fire_at FROM jobs j JOIN agents a ON a.id = j.agent_id"
        ))]  # fmt: skip
