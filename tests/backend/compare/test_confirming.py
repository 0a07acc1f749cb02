"""Group compares leave out a confirmation job's runs (runs.confirming), as explore and detection
do: the candidate and baseline re-run in turns are no history of either group. Here the
re-runs found no change, so counted in they would erase the group's step."""

from __future__ import annotations

import datetime as dt
import random
import statistics
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.jobs.enums import JobKind
from perfatlas.runs.models import Run
from tests.backend.jobs.support import enroll, queue
from tests.factories import BASE_TIME, result, run_body, within

AGENT = "lab-1"
LEVEL = {"6.1": 1000.0, "6.5": 800.0}
METRIC = "create.ops_per_s"


def _runs(version: str, level: float, n: int, *, seed: int, **extra: Any) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    runs = []
    for i in range(n):
        samples = within(rng, level)
        runs.append(run_body(
            agent=AGENT, target="/mnt/a", labels={"fs_version": version, "mode": "c"},
            environment={**run_body()["environment"], "hostname": AGENT},
            started_at=(BASE_TIME + dt.timedelta(hours=seed * 100 + i)).isoformat(),
            results=[result(METRIC, samples)], **extra,
        ))  # fmt: skip
    return runs


def _oracle(runs: list[dict[str, Any]]) -> tuple[float, float, float]:
    """Both groups' medians of all samples (one series per group here) and the change, %."""
    pooled: dict[str, list[float]] = {"6.1": [], "6.5": []}
    for r in runs:
        pooled[r["labels"]["fs_version"]] += r["results"][0]["samples"]
    a, b = statistics.median(pooled["6.1"]), statistics.median(pooled["6.5"])
    return a, b, (b - a) / a * 100


def test_group_compare_leaves_out_confirmation_runs(client, tokens, engine, read_headers) -> None:
    agent = enroll(client, tokens.admin, AGENT)
    history = _runs("6.1", LEVEL["6.1"], 4, seed=1) + _runs("6.5", LEVEL["6.5"], 4, seed=2)
    resp = client.post("/api/v1/runs/batch", json={"runs": history}, headers=agent)
    assert resp.status_code == 200, resp.text
    # A confirmation job re-ran both versions, in turns, and found them alike; one of its runs
    # measured a metric no ordinary run has.
    (job_id,) = queue(engine, [AGENT], kind=JobKind.confirm, pinned=True)
    reruns = _runs("6.5", LEVEL["6.1"], 6, seed=3, job_id=job_id)
    reruns += _runs("6.1", LEVEL["6.1"], 6, seed=4, job_id=job_id)
    reruns[0]["results"].append(result("only.in_confirmation", [5.0, 5.0, 5.0]))
    resp = client.post("/api/v1/runs/batch", json={"runs": reruns}, headers=agent)
    assert resp.status_code == 200, resp.text
    with Session(engine) as session:
        marked = dict(session.execute(select(Run.uuid, Run.confirming)).all())
    assert sum(marked.values()) == len(reruns)  # ingest marked the job's runs

    data = client.get(
        "/api/v1/compare/groups",
        params={"workload": "smallfile", "by": "fs_version", "value": ["6.1", "6.5"]},
        headers=read_headers,
    )
    assert data.status_code == 200, data.text
    body = data.json()
    assert [m["metric"] for m in body["metrics"]] == [METRIC]
    (metric,) = body["metrics"]
    base, other = metric["cells"]
    a, b, change = _oracle(history)
    assert base["value"] == pytest.approx(a) and other["value"] == pytest.approx(b)
    assert other["change_pct"] == pytest.approx(change) and other["verdict"] == "worse"
    assert [g["runs"] for g in body["groups"]] == [4, 4]
    assert base["samples"] == other["samples"] == 12
    assert all("confirming" not in c["flags"] for c in metric["cells"])
    # Counted in, the re-runs would have hidden the step: the test does tell them apart.
    _, b_all, change_all = _oracle(history + reruns)
    assert abs(change_all) < 2.0 < abs(change - change_all)
    assert abs(b_all - b) > 100
