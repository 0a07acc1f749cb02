"""The whole path on real parts: uploads through the API queue detection on Redis, a real
`perfatlas worker` opens and resolves alerts in PostgreSQL, and a webhook receives one
notification per incident state change."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.alerts.tasks import DETECT_ALL
from perfatlas.core.config import Settings
from perfatlas.core.queue import enqueue
from tests.backend.alerts.conftest import Receiver, Worker, add_channel, wait_until
from tests.factories import at, noisy, result, run_body

METRICS = ("create.ops_per_s", "stat.ops_per_s", "unlink.ops_per_s")


def batch(levels: list[float], *, first_day: int, version_at: Callable[[int], str]) -> list[Any]:
    rng = random.Random(first_day)
    return [
        run_body(
            agent="lab-1",
            started_at=at(days=first_day + i),
            labels={"mode": "connected", "fs_version": version_at(first_day + i)},
            results=[result(m, noisy(rng, level)) for m in METRICS],
        )
        for i, level in enumerate(levels)
    ]


def test_uploads_open_then_resolve_alerts_through_the_worker_with_one_notification_each(
    worker: Worker, worker_client: TestClient, worker_settings: Settings,
    factory: sessionmaker[Session], receiver: Callable[..., Receiver],
    upload_headers: dict[str, str], read_headers: dict[str, str],
) -> None:  # fmt: skip
    hook = receiver(200, 200, 200)
    add_channel(factory, name="team", kind="webhook", target=hook.url)

    def version(day: int) -> str:
        return "6.2" if 15 <= day < 30 else "6.1"

    def alerts(**params: Any) -> list[dict[str, Any]]:
        page = worker_client.get("/api/v1/alerts", params=params, headers=read_headers)
        items: list[dict[str, Any]] = page.json()["items"]
        return items

    # 15 days on 6.1, then 6.2 is 20 % slower in all three metrics.
    runs = batch([1000.0] * 15 + [800.0] * 10, first_day=0, version_at=version)
    upload = worker_client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert upload.status_code == 200, upload.text
    opened = wait_until(lambda: len(alerts(status="open")) == 3 and alerts(status="open"),
                        timeout=30, what="the worker to open 3 alerts")  # fmt: skip
    assert {a["series"]["metric"] for a in opened} == set(METRICS)
    assert {a["change_run"]["uuid"] for a in opened} == {runs[15]["uuid"]}
    assert len({a["incident_id"] for a in opened}) == 1

    # One notification for the incident, not three.
    (first,) = hook.wait_answered(1, timeout=20)
    assert first.event == "incident.opened"
    assert len(first.body["alerts"]) == 3
    assert "fs_version" in first.body["text"]

    # 6.3 fixes it: back to 1000; the step back resolves every alert and the incident.
    fixed = batch([800.0] * 5 + [1000.0] * 10, first_day=25,
                  version_at=lambda day: "6.2" if day < 30 else "6.3")  # fmt: skip
    upload = worker_client.post("/api/v1/runs/batch", json={"runs": fixed}, headers=upload_headers)
    assert upload.status_code == 200, upload.text
    wait_until(lambda: len(alerts(status="resolved")) == 3, timeout=30,
               what="the worker to resolve the alerts")  # fmt: skip
    assert {a["resolution"] for a in alerts(status="resolved")} == {"stepped_back"}
    deliveries = hook.wait_answered(2, timeout=20)
    assert [d.event for d in deliveries] == ["incident.opened", "incident.resolved"]

    # The nightly pass over the same data finds nothing new and sends nothing.
    assert enqueue(worker_settings, DETECT_ALL)
    wait_until(lambda: "perfatlas.detect_all" in worker.logs() and "succeeded" in
               worker.logs().split("perfatlas.detect_all")[-1], timeout=30,
               what="the nightly pass")  # fmt: skip
    assert "'opened': 0" in worker.logs().split("perfatlas.detect_all")[-1]
    assert len(hook.received()) == 2
    assert len(alerts()) == 3


def _priorities(worker: Worker) -> dict[str, int]:
    """The nice value of the worker's process and of every process it started (its pool's, its
    beat's), by command line and pid."""
    assert worker.proc is not None
    top = psutil.Process(worker.proc.pid)
    procs = [top, *top.children(recursive=True)]
    return {f"{' '.join(p.cmdline()[-3:])} ({p.pid})": p.nice() for p in procs}


def test_the_worker_runs_its_processes_below_the_servers_priority(
    worker: Worker, tmp_path: Path
) -> None:
    """PERFATLAS_WORKER_NICE (10 by default) lowers the priority of the worker and of each
    process it forks; 0 (what the other worker tests run with) leaves the caller's."""
    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert own < 10, "the test itself must run below nice 10 to see the worker lower it"
    asked = _priorities(worker)
    assert len(asked) >= 2, asked  # the worker and its beat at least
    assert set(asked.values()) == {own}, asked

    env = {k: v for k, v in worker.env.items() if k != "PERFATLAS_WORKER_NICE"}
    default = Worker(env, tmp_path / "default")
    default.log_dir.mkdir()
    default.start()
    try:
        lowered = _priorities(default)
    finally:
        default.stop()
    assert len(lowered) >= 2, lowered
    assert set(lowered.values()) == {10}, lowered
