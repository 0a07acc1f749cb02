"""/metrics against a plain count of the same database, and this process's counters against
what the requests did: runs and results counted once, when stored; a retry or a refused batch
counts nothing; every request timed under its route's template."""

from __future__ import annotations

import datetime as dt
import random
import uuid

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import Engine, func, select, text
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.alerts.models import DetectionRequest
from perfatlas.core.config import Settings
from perfatlas.health.service import beat
from perfatlas.jobs.models import Job
from perfatlas.notifications.models import Channel, Notification
from perfatlas.runs.models import RollupPending, Run
from tests.factories import BASE_TIME, result, run_body


def scrape(client: TestClient, headers: dict[str, str]) -> dict[tuple[str, tuple], float]:  # type: ignore[type-arg]
    answer = client.get("/api/v1/metrics", headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def test_metrics_count_what_the_database_and_the_requests_hold(
    client: TestClient, engine: Engine, settings: Settings, upload_headers: dict[str, str],
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    assert client.get("/api/v1/metrics").status_code == 401  # a read token, as every read
    before = scrape(client, read_headers)
    rng = random.Random(3)
    runs = [
        run_body(
            agent=agent, target=target,
            started_at=(BASE_TIME + dt.timedelta(hours=i)).isoformat(),
            results=[result(m, [rng.gauss(100, 5) for _ in range(3)])
                     for m in ("create.ops_per_s", "stat.ops_per_s")[: 1 + i % 2]],
        )
        for i, (agent, target) in enumerate(
            [(a, t) for a in ("lab-1", "lab-2", "lab-3") for t in ("/mnt/ext4", "/mnt/xfs")]
        )
    ]  # fmt: skip
    assert client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers).json()[
        "created"
    ] == len(runs)
    # A retry stores nothing, and a batch refused whole (one run conflicts) neither.
    client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    changed = {**runs[0], "target": "/mnt/other"}
    refused = client.post(
        "/api/v1/runs/batch", json={"runs": [run_body(), changed]}, headers=upload_headers
    )
    assert refused.status_code == 409
    for _ in range(3):
        assert (
            client.get(f"/api/v1/runs/{runs[1]['uuid']}", headers=read_headers).status_code == 200
        )
    assert client.get(f"/api/v1/runs/{uuid.uuid4()}", headers=read_headers).status_code == 404

    with Session(engine) as session:
        agents = session.scalars(select(Agent.id)).all()
        for status, n in (("queued", 3), ("running", 1), ("failed", 2)):
            for k in range(n):
                session.add(Job(agent_id=agents[k % len(agents)], spec={}, status=status))
        channel = Channel(name="team", kind="webhook", target="http://127.0.0.1:9/hook")
        session.add(channel)
        session.flush()
        for status, n in (("sent", 4), ("failed", 1), ("pending", 2)):
            for k in range(n):
                session.add(Notification(channel_id=channel.id, key=f"{status}{k}",
                                         event="alert.opened", status=status))  # fmt: skip
        session.commit()
        # The oldest run waits for the fold an hour, the oldest check 2 minutes.
        session.execute(text("UPDATE runs SET created_at = now() - interval '1 hour'"))
        session.execute(
            text("UPDATE detection_requests SET requested_at = now() - interval '2 minutes'")
        )
        session.commit()
        beat(session, queue=settings.queue, now=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=42))
        oracle = {
            "runs": session.scalar(select(func.count()).select_from(Run)),
            "fold": session.scalar(select(func.count()).select_from(RollupPending)),
            "check": session.scalar(select(func.count()).select_from(DetectionRequest)),
            "jobs": dict(session.execute(select(Job.status, func.count()).group_by(Job.status)).all()),
            "notes": dict(session.execute(
                select(Notification.status, func.count()).group_by(Notification.status)).all()),
        }  # fmt: skip

    after = scrape(client, read_headers)

    def delta(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert delta("perfatlas_runs_stored_total") == len(runs)
    assert delta("perfatlas_results_stored_total") == sum(len(r["results"]) for r in runs)
    route = {"method": "GET", "route": "/api/v1/runs/{run_uuid}"}
    assert delta("perfatlas_http_request_duration_seconds_count", **route, status="2xx") == 3
    assert delta("perfatlas_http_request_duration_seconds_count", **route, status="4xx") == 1
    batch = {"method": "POST", "route": "/api/v1/runs/batch"}
    assert delta("perfatlas_http_request_duration_seconds_count", **batch, status="2xx") == 2
    assert delta("perfatlas_http_request_duration_seconds_count", **batch, status="4xx") == 1

    def now(name: str, **labels: str) -> float:
        return after[(name, tuple(sorted(labels.items())))]

    assert now("perfatlas_runs") == oracle["runs"] == len(runs)
    assert now("perfatlas_backlog", kind="fold") == oracle["fold"] == len(runs)
    assert now("perfatlas_backlog", kind="check") == oracle["check"] > 0
    assert 3590 < now("perfatlas_backlog_age_seconds", kind="fold") < 3700
    assert 110 < now("perfatlas_backlog_age_seconds", kind="check") < 200
    for status in ("queued", "leased", "running", "succeeded", "failed", "cancelled", "expired"):
        assert now("perfatlas_jobs", status=status) == oracle["jobs"].get(status, 0), status
    for status in ("pending", "sending", "sent", "failed"):
        assert now("perfatlas_notifications", status=status) == oracle["notes"].get(status, 0)
    assert 42 <= now("perfatlas_worker_heartbeat_age_seconds") < 120
    assert now("perfatlas_worker_down") == 0
    assert now("process_resident_memory_bytes") > 0


def test_the_grafana_dashboard_reads_only_metrics_the_server_exposes(
    client: TestClient, engine: Engine, read_headers: dict[str, str]
) -> None:
    import json
    import re
    from pathlib import Path

    exposed = {name for name, _ in scrape(client, read_headers)}
    dashboard = json.loads(
        (Path(__file__).resolve().parents[3] / "docs/grafana/perfatlas-dashboard.json").read_text()
    )
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    assert len(exprs) >= 10
    for expr in exprs:
        names = set(re.findall(r"\b((?:perfatlas|process)_[a-z_]+)", expr))
        assert names and names <= exposed, (expr, names - exposed)
