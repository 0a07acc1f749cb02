"""A candidate that the re-run did not confirm must not hide the real change next to it.

With three points after a 20 % step, the detector (which wants four on each side) can place the
step one point early, at the last run of the old version; its confirmation re-runs that run's
version, finds the old level and resolves the alert not_confirmed. When the next run of the new
version arrives, the step moves to its true place: that is a new candidate, not the rejected
one, so it gets an alert (and its own confirmation). The samples are those of a benchmark run
where this happened (tests/bench/bench_confirm.py, repeat 2)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from fastapi.testclient import TestClient

from perfatlas.analysis.detector import detect
from tests.backend.alerts.conftest import Worker, wait_until
from tests.backend.confirm.support import AGENT, CMD, METRIC, alerts, round_runs, run
from tests.backend.jobs.support import bearer, claim, enroll
from tests.factories import BASE_TIME

OLD = [
    [990.902, 996.389, 1003.156],
    [1008.872, 1005.432, 1002.942],
    [1001.333, 1008.16, 1005.451],
    [995.034, 1006.193, 996.628],
    [1002.372, 993.794, 1005.135],
    [1003.392, 1007.011, 995.21],
    [1009.178, 1002.916, 991.998],
    [1003.589, 1008.812, 1007.204],
    [999.309, 994.53, 1002.376],
    [1006.112, 996.663, 994.357],
    [995.897, 1007.263, 996.784],
    [1004.317, 993.453, 1003.994],
    [996.217, 1008.422, 996.713],
    [994.585, 1006.429, 999.686],
    [1002.992, 998.292, 999.041],
    [996.413, 1007.457, 993.392],
]
NEW = [[799.092, 792.256, 803.326], [798.768, 794.05, 793.197], [792.605, 805.269, 799.96]]
FOURTH = [801.118, 796.502, 798.874]


def body(samples: list[float], version: str, i: int, job_id: int | None = None) -> dict[str, Any]:
    made = run(1.0, version=version, at=BASE_TIME + dt.timedelta(hours=i), seed=i, job_id=job_id)
    made["results"] = [{"metric": METRIC, "unit": "ops/s", "samples": samples}]
    return made


def test_a_step_that_moves_after_a_rejected_candidate_gets_its_own_alert(
    worker: Worker, worker_client: TestClient, tokens, read_headers,
) -> None:  # fmt: skip
    # The premise: the detector places the step one point early with these samples.
    (early,) = detect([*OLD, *NEW], "higher", min_confidence=0.99)
    assert early.index == len(OLD) - 1 and early.points_after == 4
    (true,) = detect([*OLD, *NEW, FOURTH], "higher", min_confidence=0.99)
    assert true.index == len(OLD)

    client = worker_client
    agent = enroll(client, tokens.admin, AGENT)
    made = client.post(
        "/api/v1/schedules",
        json={"name": "nightly", "spec": {"workload": "command", "targets": ["/mnt/a"],
              "params": {"cmd": CMD}, "repetitions": 3, "labels": {"version": "2"}},
              "agents": [AGENT], "when": "now"},
        headers=bearer(tokens.admin),
    )  # fmt: skip
    assert made.status_code == 201, made.text
    history = [body(s, "1", i) for i, s in enumerate(OLD)]
    history += [body(s, "2", len(OLD) + i) for i, s in enumerate(NEW[:-1])]
    assert client.post("/api/v1/runs/batch", json={"runs": history}, headers=agent).is_success
    job = claim(client, agent)
    assert job is not None
    newest = body(NEW[-1], "2", len(history), job_id=job["id"])
    done = client.post(f"/api/v1/jobs/{job['id']}/complete", headers=agent,
                       json={"attempt": job["attempt"], "status": "succeeded", "runs": [newest]})  # fmt: skip
    assert done.status_code == 200, done.text

    (held,) = wait_until(lambda: alerts(client, read_headers, status="confirming"), timeout=30,
                         what="the early candidate to be held for confirmation")  # fmt: skip
    assert held["change_run"]["uuid"] == history[len(OLD) - 1]["uuid"]  # the last old run
    confirm = claim(client, agent)
    assert confirm is not None and confirm["kind"] == "confirm"
    # The candidate's version is the old one: the re-run finds the old level.
    runs = round_runs(confirm["plan"], {"candidate": 1000.0}, job_id=confirm["id"], seed=3)
    answer = client.post(f"/api/v1/jobs/{confirm['id']}/rounds", headers=agent,
                         json={"attempt": confirm["attempt"], "round": 1, "runs": runs})  # fmt: skip
    assert answer.status_code == 200 and answer.json()["verdict"] == "same", answer.text
    client.post(f"/api/v1/jobs/{confirm['id']}/complete", headers=agent,
                json={"attempt": confirm["attempt"], "status": "succeeded", "runs": []})  # fmt: skip
    (rejected,) = alerts(client, read_headers, status="resolved")
    assert rejected["id"] == held["id"] and rejected["resolution"] == "not_confirmed"

    # The fourth run of the new version: the step moves to its true place.
    fourth = body(FOURTH, "2", len(history) + 1)
    assert client.post("/api/v1/runs", json=fourth, headers=agent).status_code == 201

    def the_true_step() -> list[dict[str, Any]]:
        return [a for a in alerts(client, read_headers) if a["id"] != held["id"]]

    (found,) = wait_until(the_true_step, timeout=30, what="an alert at the true step")
    assert found["change_run"]["uuid"] == history[len(OLD)]["uuid"]  # the first new-version run
    assert found["status"] in ("confirming", "open")
    assert found["kind"] == "regression" and found["change_pct"] < -15
