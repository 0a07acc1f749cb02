"""Detection resolves an alert that is still being confirmed (the slow spell is over before the
confirmation ran): its confirmation job is cancelled through the jobs' cancel path, so the agent
stops. A queued job is cancelled at once (no agent gets it); a held one is told at its next
progress report and its next round, and completes as cancelled. The alert keeps the resolution
detection gave it, and nobody is notified. The agent's side is played over HTTP."""

from __future__ import annotations

import datetime as dt
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.notifications.models import Notification
from tests.backend.alerts.conftest import Worker, wait_until
from tests.backend.confirm.support import alerts, round_runs, run, scheduled_series, wait_confirming
from tests.backend.jobs.support import claim
from tests.factories import BASE_TIME

# A slow spell on one version (so the confirmation re-runs the candidate against history).
HISTORY = [(1000.0, "1")] * 12 + [(800.0, "1")] * 3
LAST = (800.0, "1")


def _recover(client: TestClient, agent: dict[str, str], n: int = 8) -> None:
    """The series back at its old level: ordinary runs (no job) after the spell."""
    start = len(HISTORY) + 1
    runs = [
        run(1000.0, version="1", at=BASE_TIME + dt.timedelta(hours=start + i), seed=100 + i)
        for i in range(n)
    ]
    resp = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=agent)
    assert resp.status_code == 200, resp.text


def _resolved(client: TestClient, headers: dict[str, str], alert_id: int) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        got: dict[str, Any] = client.get(f"/api/v1/alerts/{alert_id}", headers=headers).json()
        return got if got["status"] == "resolved" else None

    found: dict[str, Any] = wait_until(
        done, timeout=30, what="the worker's detection to resolve the confirming alert"
    )
    return found


def _job(client: TestClient, headers: dict[str, str], job_id: int) -> dict[str, Any]:
    resp = client.get(f"/api/v1/jobs/{job_id}", headers=headers)
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body


def _notifications(factory: sessionmaker[Session]) -> int:
    with factory() as session:
        return int(session.scalar(select(func.count()).select_from(Notification)) or 0)


def test_a_queued_confirmation_is_cancelled_when_detection_resolves_its_alert(
    worker: Worker, worker_client: TestClient, tokens, read_headers,
    factory: sessionmaker[Session],
) -> None:  # fmt: skip
    client = worker_client
    agent, _ = scheduled_series(client, tokens.admin, HISTORY, LAST)
    alert = wait_confirming(client, read_headers)
    job_id = alert["confirmation"]["job_id"]
    assert _job(client, read_headers, job_id)["status"] == "queued"

    _recover(client, agent)
    got = _resolved(client, read_headers, alert["id"])
    # Detection's own resolution, not the confirmation's (unconfirmed / not_confirmed).
    assert got["resolution"] == "withdrawn"  # the tentative step is not there
    assert got["status_changed_by"] != "confirmation"
    job = _job(client, read_headers, job_id)
    assert job["status"] == "cancelled" and job["cancel_requested"] is True
    assert job["verdict"] is None
    assert got["confirmation"]["status"] == "cancelled"
    assert claim(client, agent) is None  # no agent runs it now
    assert _notifications(factory) == 0
    # The settling pass leaves the alert as detection left it.
    again = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert again["resolution"] == got["resolution"]
    assert again["status_changed_at"] == got["status_changed_at"]


def test_a_running_confirmation_is_told_to_stop_and_completes_cancelled(
    worker: Worker, worker_client: TestClient, tokens, read_headers,
    factory: sessionmaker[Session],
) -> None:  # fmt: skip
    client = worker_client
    agent, _ = scheduled_series(client, tokens.admin, HISTORY, LAST)
    alert = wait_confirming(client, read_headers)
    job = claim(client, agent)
    assert job is not None and job["kind"] == "confirm"
    assert job["id"] == alert["confirmation"]["job_id"]
    attempt = job["attempt"]
    progress = client.post(
        f"/api/v1/jobs/{job['id']}/progress",
        json={"attempt": attempt, "phase": "measure", "done": 0, "total": 6}, headers=agent,
    )  # fmt: skip
    assert progress.status_code == 200 and progress.json()["cancel"] is False, progress.text

    _recover(client, agent)
    got = _resolved(client, read_headers, alert["id"])
    assert got["resolution"] == "withdrawn"  # the tentative step is not there
    held = _job(client, read_headers, job["id"])
    assert held["status"] == "running" and held["cancel_requested"] is True

    # The agent learns it at its next progress report...
    progress = client.post(
        f"/api/v1/jobs/{job['id']}/progress",
        json={"attempt": attempt, "phase": "measure", "done": 1, "total": 6}, headers=agent,
    )  # fmt: skip
    assert progress.status_code == 200 and progress.json()["cancel"] is True
    # ... and from the round it was running: its runs are kept, no other round, no verdict.
    runs = round_runs(job["plan"], {"candidate": 1000.0}, job_id=job["id"], seed=7)
    answer = client.post(
        f"/api/v1/jobs/{job['id']}/rounds",
        json={"attempt": attempt, "round": 1, "runs": runs}, headers=agent,
    )  # fmt: skip
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"verdict": None, "continue": False, "cancel": True}
    done = client.post(
        f"/api/v1/jobs/{job['id']}/complete",
        json={"attempt": attempt, "status": "cancelled", "runs": []}, headers=agent,
    )  # fmt: skip
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "cancelled" and done.json()["verdict"] is None

    after = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert after["status"] == "resolved" and after["resolution"] == got["resolution"]
    assert [r["uuid"] for r in after["confirmation"]["runs"]] == [runs[0]["uuid"]]
    assert after["confirmation"]["status"] == "cancelled"
    assert _notifications(factory) == 0
    # Nothing else for the agent to do.
    assert claim(client, agent) is None
    assert alerts(client, read_headers, status="confirming") == []


def test_a_person_resolving_a_confirming_alert_cancels_its_confirmation(
    worker: Worker, worker_client: TestClient, tokens, read_headers,
    factory: sessionmaker[Session],
) -> None:  # fmt: skip
    client = worker_client
    agent, _ = scheduled_series(client, tokens.admin, HISTORY, LAST)
    alert = wait_confirming(client, read_headers)
    job_id = alert["confirmation"]["job_id"]
    assert _job(client, read_headers, job_id)["status"] == "queued"

    admin = {"Authorization": f"Bearer {tokens.admin}"}
    resp = client.post(
        f"/api/v1/alerts/{alert['id']}/status",
        json={"status": "resolved", "note": "known: the disk was swapped"}, headers=admin,
    )  # fmt: skip
    assert resp.status_code == 200, resp.text
    assert resp.json()["status"] == "resolved" and resp.json()["resolution"] == "manual"
    job = _job(client, read_headers, job_id)
    assert job["status"] == "cancelled" and job["cancel_requested"] is True
    assert claim(client, agent) is None  # no agent re-runs what a person already decided
