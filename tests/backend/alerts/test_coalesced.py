"""Coalesced detection: a burst of uploads leaves at most one pending check per series and one
queued task for the lot, and the check still finds a step uploaded in the burst."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import redis
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.alerts import detection, pending
from perfatlas.alerts.models import DetectionRequest
from perfatlas.core.config import Settings
from perfatlas.runs.models import Series
from tests.backend.alerts.conftest import Worker, wait_until
from tests.conftest import REDIS_URL
from tests.factories import BASE_TIME, result, run_body

METRICS = ("create.ops_per_s", "stat.ops_per_s", "unlink.ops_per_s")


def one_run(day: int, level: float, *, agent: str = "lab-1") -> dict[str, Any]:
    rng = random.Random(day)
    return run_body(
        agent=agent,
        started_at=(BASE_TIME + dt.timedelta(days=day)).isoformat(),
        labels={"fs_version": "6.1" if day < 30 else "6.2"},
        results=[result(m, [level * rng.gauss(1, 0.01) for _ in range(3)]) for m in METRICS],
    )


def queued(settings: Settings) -> int:
    client = redis.Redis.from_url(REDIS_URL)
    try:
        return int(client.llen(settings.queue))
    finally:
        client.close()


def test_a_burst_of_uploads_leaves_one_request_per_series_and_two_checks(
    client: TestClient, settings: Settings, factory: sessionmaker[Session],
    upload_headers: dict[str, str],
) -> None:  # fmt: skip
    before = queued(settings)
    uploads = [one_run(day, 1000.0) for day in range(40)]  # lab-1's 3 series, 40 times
    uploads += [one_run(day, 500.0, agent="lab-2") for day in range(10)]  # lab-2's 3 series
    for body in uploads:
        resp = client.post("/api/v1/runs", json=body, headers=upload_headers)
        assert resp.status_code == 201, resp.text
    # The upload only sends its runs' uuids: one cheap message each, no database work.
    assert queued(settings) - before == len(uploads)
    # What the worker's request_checks task does with each, in upload order: a check is
    # queued only by the uploads that found their series not waiting already.
    checks_queued = 0
    with factory() as session:
        for body in uploads:
            series = detection.series_for_runs(session, [body["uuid"]])
            assert len(series) == 3
            checks_queued += pending.request_checks(session, series) > 0
            session.commit()
        waiting = sorted(session.scalars(select(DetectionRequest.series_id)))
        every_series = sorted(session.scalars(select(Series.id)))
        assert pending.pending(session) == 6
    assert len(every_series) == 6 and waiting == every_series
    assert checks_queued == 2  # lab-1's first upload and lab-2's first
    # Taken a batch at a time: the first batch takes every waiting series, then none is left.
    with factory() as session:
        assert pending.take_batch(session, 200) == every_series
        session.commit()
        assert pending.take_batch(session, 200) == []


def test_the_worker_finds_a_step_uploaded_in_a_burst_and_clears_the_requests(
    worker: Worker, worker_client: TestClient, factory: sessionmaker[Session],
    upload_headers: dict[str, str], read_headers: dict[str, str],
) -> None:  # fmt: skip
    runs = [one_run(day, 1000.0 if day < 30 else 800.0) for day in range(45)]
    for run in runs:  # one request per run, as fast as the API takes them
        resp = worker_client.post("/api/v1/runs", json=run, headers=upload_headers)
        assert resp.status_code == 201, resp.text

    def open_alerts() -> list[dict[str, Any]]:
        page = worker_client.get("/api/v1/alerts", params={"status": "open"}, headers=read_headers)
        items: list[dict[str, Any]] = page.json()["items"]
        return items

    opened = wait_until(lambda: len(open_alerts()) == 3 and open_alerts(), timeout=60,
                        what="the worker to open 3 alerts")  # fmt: skip
    assert {a["change_run"]["uuid"] for a in opened} == {runs[30]["uuid"]}
    assert {a["series"]["metric"] for a in opened} == set(METRICS)

    def cleared() -> bool:
        with factory() as session:
            return not list(session.scalars(select(DetectionRequest.series_id)))

    wait_until(cleared, timeout=30, what="the pending checks to be taken")
