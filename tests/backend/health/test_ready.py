"""/health and /ready on the real database and Redis: what is down, and since when."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from perfatlas.core.config import Settings
from perfatlas.core.db import session_factory
from perfatlas.health import service
from perfatlas.main import create_app
from tests.factories import run_body


def _parts(body: dict) -> dict[str, dict]:  # type: ignore[type-arg]
    return {p["name"]: p for p in body["parts"]}


def test_ready_follows_the_worker_heartbeat_and_tells_the_backlogs(
    client: TestClient, engine: Engine, settings: Settings, upload_headers: dict[str, str]
) -> None:
    assert client.get("/api/v1/health").json()["status"] == "ok"
    # No worker has beaten on this queue: not ready, and the body says which part.
    first = client.get("/api/v1/ready")
    assert first.status_code == 503 and first.headers["retry-after"]
    parts = _parts(first.json())
    assert parts["database"]["ok"] and parts["broker"]["ok"]  # the real Redis answers
    assert not parts["worker"]["ok"] and "no worker" in parts["worker"]["detail"]

    with Session(engine) as session:
        service.beat(session, queue=settings.queue)
    ok = client.get("/api/v1/ready")
    assert ok.status_code == 200, ok.text
    assert ok.json()["status"] == "ready"
    assert _parts(ok.json())["worker"]["age_seconds"] < settings.ready_heartbeat_seconds

    # A heartbeat older than the bound: the worker (or its beat, or the broker) is stuck.
    old = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=settings.ready_heartbeat_seconds + 30)
    with Session(engine) as session:
        service.beat(session, queue=settings.queue, now=old)
    stale = client.get("/api/v1/ready")
    worker = _parts(stale.json())["worker"]
    assert stale.status_code == 503 and not worker["ok"]
    assert dt.datetime.fromisoformat(worker["since"]) == old
    assert worker["age_seconds"] >= settings.ready_heartbeat_seconds + 30

    # Its supervisor saw it die: down at once, whatever the heartbeat's age, until it beats.
    with session_factory(engine)() as session:
        service.beat(session, queue=settings.queue)
        service.mark_worker_down(session, queue=settings.queue, detail="killed (signal 9)")
    down = _parts(client.get("/api/v1/ready").json())["worker"]
    assert not down["ok"] and down["detail"] == "killed (signal 9)" and down["since"]
    with session_factory(engine)() as session:
        service.beat(session, queue=settings.queue)
    assert client.get("/api/v1/ready").status_code == 200

    # The backlogs: nothing waits, then a run waits for the fold (no worker folds this queue).
    parts = _parts(client.get("/api/v1/ready").json())
    assert parts["fold_backlog"]["age_seconds"] is None and parts["fold_backlog"]["ok"]
    stored = client.post("/api/v1/runs", json=run_body(), headers=upload_headers)
    assert stored.status_code == 201
    with engine.begin() as conn:
        # Stored long ago, as a backlog the worker has not reached would be.
        conn.execute(text("UPDATE runs SET created_at = now() - interval '1 hour'"))
        conn.execute(
            text("UPDATE detection_requests SET requested_at = now() - interval '2 minutes'")
        )
    answer = client.get("/api/v1/ready")
    parts = _parts(answer.json())
    fold, check = parts["fold_backlog"], parts["check_backlog"]
    assert not fold["ok"] and 3590 < fold["age_seconds"] < 3700
    assert check["ok"] and 110 < check["age_seconds"] < 200  # under the 300 s bound
    # The backlogs are told, not gating: the deployment is still ready.
    assert answer.status_code == 200


def test_redis_down_is_not_ready(engine: Engine, settings: Settings) -> None:
    """A broker that does not answer (a port nobody listens on) makes /ready 503 naming it."""
    gone = settings.model_copy(update={"broker_url": "redis://127.0.0.1:9/0"})
    with Session(engine) as session:
        service.beat(session, queue=settings.queue)
    with TestClient(create_app(gone)) as client:
        first = client.get("/api/v1/ready")
        again = client.get("/api/v1/ready")
    assert first.status_code == again.status_code == 503
    broker = _parts(again.json())["broker"]
    assert not broker["ok"] and "Redis does not answer" in broker["detail"]
    # Since the first time it was found down, not since each look.
    assert broker["since"] == _parts(first.json())["broker"]["since"]
