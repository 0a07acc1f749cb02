"""Helpers for the agents' and jobs' tests: enroll agents through the API, queue jobs through
jobs.service.enqueue (what schedules call), move time for a lease by writing its end."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import httpx
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, update
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.core.db import session_factory
from perfatlas.core.workload import WorkloadSpec
from perfatlas.jobs.models import Job
from perfatlas.jobs.service import enqueue

Client = TestClient | httpx.Client
SPEC = {"workload": "smallfile", "targets": ["/mnt/a", "/mnt/b"], "params": {"size": ["4k", "64k"]}}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def enrollment_token(client: Client, admin: str, labels: dict[str, str] | None = None) -> str:
    resp = client.post(
        "/api/v1/agents/enrollment-tokens", json={"labels": labels or {}}, headers=bearer(admin)
    )
    assert resp.status_code == 201, resp.text
    token: str = resp.json()["token"]
    return token


def enroll(
    client: Client, admin: str, name: str, labels: dict[str, str] | None = None
) -> dict[str, str]:
    """Enroll agent `name`; returns the Authorization header of its token."""
    resp = client.post(
        "/api/v1/agents/enroll",
        json={"enrollment_token": enrollment_token(client, admin), "name": name,
              "labels": labels or {}, "version": "0.1.0"},
    )  # fmt: skip
    assert resp.status_code == 201, resp.text
    return bearer(resp.json()["token"])


def queue(
    engine: Engine,
    agents: Sequence[str],
    *,
    selector: Sequence[str] = (),
    spec: dict[str, Any] | None = None,
    **options: Any,
) -> list[int]:
    """Queue one job per named agent, as a schedule's firing does; returns their ids."""
    with session_factory(engine)() as session:
        rows = list(session.scalars(select(Agent).where(Agent.name.in_(agents))))
        assert len(rows) == len(agents)
        jobs = enqueue(
            session,
            spec=WorkloadSpec.model_validate(spec or SPEC),
            agents=rows,
            selector=selector,
            **options,
        )
        session.commit()
        return [j.id for j in jobs]


def claim(client: Client, agent: dict[str, str], wait: float = 0) -> dict[str, Any] | None:
    resp = client.post(f"/api/v1/agents/jobs/claim?wait={wait}", headers=agent)
    if resp.status_code == 204:
        return None
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body


def lapse(engine: Engine, job_id: int) -> None:
    """The holder's lease ends now: as if it stopped reporting 30 s ago."""
    past = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
    with session_factory(engine)() as session:
        session.execute(update(Job).where(Job.id == job_id).values(lease_until=past))
        session.commit()


def go_offline(engine: Engine, name: str) -> None:
    """The agent's last heartbeat was long ago."""
    past = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    with session_factory(engine)() as session:
        session.execute(update(Agent).where(Agent.name == name).values(heartbeat_at=past))
        session.commit()


def job_row(engine: Engine, job_id: int) -> Job:
    with Session(engine) as session:
        job = session.get(Job, job_id)
        assert job is not None
        session.expunge(job)
        return job
