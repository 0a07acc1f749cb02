"""GET /jobs: every filter and the cursor pages, checked against a record of what the test did
to jobs spread over agents, schedules, kinds and statuses, on PostgreSQL and on SQLite (the
embedded default, where an agent's jobs are read by the same statement)."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from perfatlas.auth.service import create_token
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.jobs.enums import JobKind
from perfatlas.main import create_app
from perfatlas.schedules.models import Schedule
from tests.backend.jobs.support import bearer, claim, enroll, lapse, queue
from tests.conftest import Tokens
from tests.databases import migrate


@pytest.fixture(params=["postgresql", "sqlite"])
def on(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Tokens, Any]]:
    """(client, tokens, engine) of a fresh database of each kind."""
    if request.param == "postgresql":
        yield tuple(request.getfixturevalue(f) for f in ("client", "tokens", "engine"))
        return
    url = f"sqlite:///{tmp_path / 'perfatlas.db'}"
    migrate(url)
    engine = get_engine(url)
    made = {}
    for scope in ("read", "upload", "admin"):
        with session_factory(engine)() as session:
            made[scope] = create_token(session, name=f"test-{scope}", scope=scope)[1]
    with TestClient(create_app(Settings(database_url=url))) as client:
        yield client, Tokens(**made), engine
    engine.dispose()


@dataclass
class Made:
    id: int
    agent: str
    leased_by: str | None
    schedule: int | None
    kind: str
    status: str


def _schedule(engine, name: str) -> int:
    with Session(engine) as session:
        row = Schedule(
            name=name, spec={"workload": "smallfile", "targets": ["/x"]}, agents=["pool=p"],
            when="cron:0 * * * *", timezone="UTC", paused=False,
        )  # fmt: skip
        session.add(row)
        session.commit()
        return row.id


def _pages(client, headers, **filters) -> list[dict]:
    items: list[dict] = []
    cursor = None
    while True:
        params = {k: v for k, v in {**filters, "limit": 3, "cursor": cursor}.items() if v}
        resp = client.get("/api/v1/jobs", params=params, headers=headers)
        assert resp.status_code == 200, resp.text
        page = resp.json()
        assert len(page["items"]) <= 3
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return items


def test_filters_and_pages_match_an_independent_record(on):
    client, tokens, engine = on
    read = bearer(tokens.read)
    admin = bearer(tokens.admin)
    names = ["n1", "n2", "n3"]
    agents = {n: enroll(client, tokens.admin, n, labels={"pool": "p"}) for n in names}
    s1, s2 = _schedule(engine, "nightly"), _schedule(engine, "hourly")
    made: list[Made] = []
    base = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    for round_, (schedule, kind) in enumerate(
        [(s1, "run"), (s2, "run"), (None, "run"), (None, "confirm"), (s1, "run")]
    ):
        fire = base + dt.timedelta(hours=round_) if schedule else None
        ids = queue(engine, names, selector=["pool=p"], schedule_id=schedule, fire_at=fire,
                    kind=JobKind(kind))  # fmt: skip
        made += [
            Made(i, n, None, schedule, kind, "queued") for i, n in zip(ids, names, strict=True)
        ]
    by_id = {m.id: m for m in made}
    # n1 takes and finishes two; n2 holds one; n1's third lapses; one is cancelled.
    for _ in range(2):
        got = claim(client, agents["n1"])
        resp = client.post(f"/api/v1/jobs/{got['id']}/complete",
                           json={"attempt": 1, "status": "succeeded"}, headers=agents["n1"])  # fmt: skip
        assert resp.status_code == 200
        by_id[got["id"]].status, by_id[got["id"]].leased_by = "succeeded", "n1"
    got = claim(client, agents["n2"])
    by_id[got["id"]].status, by_id[got["id"]].leased_by = "leased", "n2"
    got = claim(client, agents["n1"])
    lapse(engine, got["id"])
    # n3 takes its own job first; the claim put n1's lapsed job back in the queue.
    taken = claim(client, agents["n3"])
    assert by_id[taken["id"]].agent == "n3"
    by_id[taken["id"]].status, by_id[taken["id"]].leased_by = "leased", "n3"
    by_id[got["id"]].status, by_id[got["id"]].leased_by = "queued", "n1"
    victim = next(m for m in made if m.agent == "n3" and m.status == "queued")
    assert client.post(f"/api/v1/jobs/{victim.id}/cancel", headers=admin).status_code == 200
    victim.status = "cancelled"
    # n4, enrolled later with no job of its own, takes n1's lapsed job (its selector picks n4)
    # and finishes it: listed under the agent it was made for and under the one that held it.
    agents["n4"] = enroll(client, tokens.admin, "n4", labels={"pool": "p"})
    moved = claim(client, agents["n4"])
    assert moved is not None and moved["id"] == got["id"]
    resp = client.post(f"/api/v1/jobs/{got['id']}/complete",
                       json={"attempt": moved["attempt"], "status": "succeeded"},
                       headers=agents["n4"])  # fmt: skip
    assert resp.status_code == 200, resp.text
    by_id[got["id"]].status, by_id[got["id"]].leased_by = "succeeded", "n4"

    newest_first = sorted(made, key=lambda m: m.id, reverse=True)
    statuses = [None, "queued", "leased", "succeeded", "cancelled", "failed"]
    for status, agent, schedule, kind in itertools.product(
        statuses, [None, *names, "n4", "nobody"], [None, s1, s2], [None, "run", "confirm"]
    ):
        if sum(x is not None for x in (status, agent, schedule, kind)) > 2:
            continue  # pairs of filters cover their combinations
        expected = [
            m.id for m in newest_first
            if (status is None or m.status == status)
            and (agent is None or agent in (m.agent, m.leased_by))
            and (schedule is None or m.schedule == schedule)
            and (kind is None or m.kind == kind)
        ]  # fmt: skip
        got_items = _pages(client, read, status=status, agent=agent, schedule=schedule, kind=kind)
        assert [j["id"] for j in got_items] == expected, (status, agent, schedule, kind)
    one = client.get(f"/api/v1/jobs/{victim.id}", headers=read).json()
    assert (one["agent"], one["status"], one["cancel_requested"]) == ("n3", "cancelled", True)
    assert one["schedule_name"] == {s1: "nightly", s2: "hourly", None: None}[victim.schedule]

    for params, field in (
        ({"status": "done"}, "query.status"),
        ({"kind": "x"}, "query.kind"),
        ({"limit": 0}, "query.limit"),
        ({"limit": 501}, "query.limit"),
        ({"schedule": 0}, "query.schedule"),
        ({"cursor": "bad"}, "cursor"),
    ):
        resp = client.get("/api/v1/jobs", params=params, headers=read)
        assert resp.status_code == 422, (params, resp.text)
        assert resp.json()["errors"][0]["field"] == field, resp.json()
    assert client.get("/api/v1/jobs/123456", headers=read).status_code == 404
    assert client.get("/api/v1/jobs").status_code == 401
