"""A scheduled series with a planted change, for the confirmation tests: an enrolled agent, a
schedule whose command reads `{version}`, a history uploaded by the agent, and the schedule's
job completed (with the newest run) through the job protocol, so detection (in a real worker)
sees a regression on a series a schedule feeds."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from typing import Any

from fastapi.testclient import TestClient

from tests.backend.alerts.conftest import wait_until
from tests.backend.jobs.support import bearer, claim, enroll
from tests.factories import BASE_TIME, within

AGENT = "lab-1"
METRIC = "ops"
CMD = "bench --version {version}"


def samples(level: float, seed: int, n: int = 3, spread: float = 0.01) -> list[float]:
    return within(random.Random(seed), level, spread, n, digits=3)


def run(
    level: float, *, version: str, at: dt.datetime, seed: int, job_id: int | None = None
) -> dict[str, Any]:
    return {
        "uuid": str(uuid.uuid4()), "workload": "command", "agent": AGENT,
        "agent_version": "0.1.0", "target": "/mnt/a", "parameters": {"cmd": CMD},
        "labels": {"version": version}, "started_at": at.isoformat(),
        "finished_at": (at + dt.timedelta(seconds=5)).isoformat(), "status": "ok",
        "environment": {"hostname": AGENT, "kernel": "6.1", "cores": 2},
        "results": [{"metric": METRIC, "unit": "ops/s", "samples": samples(level, seed)}],
        "job_id": job_id,
    }  # fmt: skip


def scheduled_series(
    client: TestClient, admin: str, history: list[tuple[float, str]], last: tuple[float, str]
) -> tuple[dict[str, str], int]:
    """History runs (level, version) an hour apart, then the schedule's job run at `last`.
    Returns the agent's headers and the schedule's job id."""
    agent = enroll(client, admin, AGENT)
    made = client.post(
        "/api/v1/schedules",
        json={"name": "nightly", "spec": {"workload": "command", "targets": ["/mnt/a"],
              "params": {"cmd": CMD}, "repetitions": 3, "labels": {"version": last[1]}},
              "agents": [AGENT], "when": "now"},
        headers=bearer(admin),
    )  # fmt: skip
    assert made.status_code == 201, made.text
    runs = [
        run(level, version=version, at=BASE_TIME + dt.timedelta(hours=i), seed=i)
        for i, (level, version) in enumerate(history)
    ]
    upload = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=agent)
    assert upload.status_code == 200, upload.text
    job = claim(client, agent)
    assert job is not None and job["kind"] == "run" and job["plan"] is None
    newest = run(last[0], version=last[1], at=BASE_TIME + dt.timedelta(hours=len(history)),
                 seed=len(history), job_id=job["id"])  # fmt: skip
    done = client.post(
        f"/api/v1/jobs/{job['id']}/complete",
        json={"attempt": job["attempt"], "status": "succeeded", "runs": [newest]},
        headers=agent,
    )
    assert done.status_code == 200, done.text
    return agent, int(job["id"])


def alerts(client: TestClient, headers: dict[str, str], **params: Any) -> list[dict[str, Any]]:
    page = client.get("/api/v1/alerts", params=params, headers=headers)
    assert page.status_code == 200, page.text
    items: list[dict[str, Any]] = page.json()["items"]
    return items


def wait_confirming(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    found: list[dict[str, Any]] = wait_until(
        lambda: alerts(client, headers, status="confirming"),
        timeout=30,
        what="the worker's detection to hold a regression for confirmation",
    )
    (alert,) = found
    return alert


def round_runs(
    plan: dict[str, Any], levels: dict[str, float], *, job_id: int, seed: int
) -> list[dict[str, Any]]:
    """One round: a run per variant of the plan, at the level given for it, labelled as the
    plan says (started now: after the history)."""
    now = dt.datetime.now(dt.UTC)
    out = []
    for i, variant in enumerate(plan["variants"]):
        body = run(levels[variant["name"]], version=variant["labels"]["version"],
                   at=now + dt.timedelta(seconds=i), seed=seed * 10 + i, job_id=job_id)  # fmt: skip
        body["labels"] = variant["labels"]
        out.append(body)
    return out
