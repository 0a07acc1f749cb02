"""Schedules on the embedded SQLite database: "now" fires in the request, and the beat pass
fires a due cron once however often it runs (no row locks there: the conditional update and the
jobs' unique key)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.jobs.models import Job
from perfatlas.main import create_app
from perfatlas.schedules.firing import fire_due
from perfatlas.schedules.models import Schedule
from tests.backend.schedules.conftest import SPEC


def test_firing_on_sqlite(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_DATA_DIR"] = str(tmp_path / "data")
    subprocess.run([sys.executable, "-m", "perfatlas", "migrate"], env=env, check=True,
                   capture_output=True)  # fmt: skip
    token = subprocess.run(
        [sys.executable, "-m", "perfatlas", "token", "create", "--scope", "admin", "--name", "t",
         "-q"], env=env, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    headers = {"Authorization": f"Bearer {token}"}
    settings = Settings(data_dir=tmp_path / "data")
    engine = get_engine(settings.effective_database_url)
    now = dt.datetime.now(dt.UTC)
    with Session(engine) as session:
        session.add_all([
            Agent(name="n1", labels={"pool": "nvme"}, enrolled_at=now),
            Agent(name="n2", labels={"pool": "nvme"}, enrolled_at=now),
            Agent(name="h1", labels={"pool": "hdd"}, enrolled_at=now),
        ])  # fmt: skip
        session.commit()

    def jobs() -> list[tuple[int | None, str, dt.datetime | None]]:
        with Session(engine) as session:
            rows = session.execute(
                select(Job.schedule_id, Agent.name, Job.fire_at).join(
                    Agent, Agent.id == Job.agent_id
                )
            )
            return sorted((s, n, f) for s, n, f in rows)  # type: ignore[misc]

    with TestClient(create_app(settings)) as client:
        body = {"name": "now", "spec": SPEC, "agents": ["pool=nvme"], "when": "now"}
        made = client.post("/api/v1/schedules", json=body, headers=headers)
        assert made.status_code == 201, made.text
        fired = dt.datetime.fromisoformat(made.json()["last_fired_at"])
        assert jobs() == [(made.json()["id"], "n1", fired), (made.json()["id"], "n2", fired)]
        body = {**body, "name": "cron", "agents": ["h1", "n1"], "when": "cron:0 * * * *"}
        cron = client.post("/api/v1/schedules", json=body, headers=headers).json()
    due = dt.datetime(2026, 5, 1, 9, 0, tzinfo=dt.UTC)
    with Session(engine) as session:
        session.execute(update(Schedule).where(Schedule.id == cron["id"]).values(next_fire_at=due))
        session.commit()
    with session_factory(engine)() as session:
        assert fire_due(session, now=due + dt.timedelta(minutes=5)) == 1
        assert fire_due(session, now=due + dt.timedelta(minutes=5)) == 0
    # Past the guard (next_fire_at put back): the unique key keeps it to one job per agent.
    with Session(engine) as session:
        session.execute(update(Schedule).where(Schedule.id == cron["id"]).values(next_fire_at=due))
        session.commit()
    with session_factory(engine)() as session:
        assert fire_due(session, now=due + dt.timedelta(minutes=5)) == 1
    assert [j for j in jobs() if j[0] == cron["id"]] == [
        (cron["id"], "h1", due),
        (cron["id"], "n1", due),
    ]
    with Session(engine) as session:
        assert session.get(Schedule, cron["id"]).next_fire_at == due + dt.timedelta(hours=1)  # type: ignore[union-attr]
    engine.dispose()
