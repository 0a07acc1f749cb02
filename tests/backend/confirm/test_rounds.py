"""Confirm before alerting, server side, with a real worker running detection: the agent's side
is played over HTTP with the agent's token (claim → rounds → complete)."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.notifications.models import Notification
from perfatlas.runs.models import Run
from tests.backend.alerts.conftest import Receiver, Worker, add_channel
from tests.backend.confirm.support import (
    METRIC,
    alerts,
    round_runs,
    scheduled_series,
    wait_confirming,
)
from tests.backend.jobs.support import claim


def _notifications(factory: sessionmaker[Session]) -> int:
    with factory() as session:
        return int(session.scalar(select(func.count()).select_from(Notification)) or 0)


def test_a_real_slowdown_is_confirmed_then_opens_and_notifies_once(
    worker: Worker, worker_client: TestClient, tokens, read_headers,
    factory: sessionmaker[Session], receiver: Callable[..., Receiver],
) -> None:  # fmt: skip
    hook = receiver(200)
    add_channel(factory, name="team", kind="webhook", target=hook.url)
    client = worker_client
    history = [(1000.0, "1")] * 12 + [(800.0, "2")] * 3
    agent, _ = scheduled_series(client, tokens.admin, history, (800.0, "2"))
    alert = wait_confirming(client, read_headers)
    assert alert["incident_id"] is None and alert["kind"] == "regression"
    assert _notifications(factory) == 0  # nobody is told while it is confirmed

    job = claim(client, agent)
    assert job is not None and job["kind"] == "confirm"
    plan = job["plan"]
    assert plan["mode"] == "baseline"
    assert plan["variants"] == [
        {"name": "candidate", "labels": {"version": "2"}},
        {"name": "baseline", "labels": {"version": "1"}},
    ]
    assert job["spec"]["targets"] == ["/mnt/a"] and job["spec"]["labels"] == {"version": "2"}
    assert job["spec"]["params"] == {"cmd": "bench --version {version}"}

    runs = round_runs(plan, {"candidate": 800.0, "baseline": 1000.0}, job_id=job["id"], seed=1)
    answer = client.post(
        f"/api/v1/jobs/{job['id']}/rounds", json={"attempt": job["attempt"], "round": 1,
                                                  "runs": runs}, headers=agent,
    )  # fmt: skip
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"verdict": "different", "continue": False, "cancel": False}
    # The same round again (a retry): nothing new, the same answer.
    again = client.post(
        f"/api/v1/jobs/{job['id']}/rounds", json={"attempt": job["attempt"], "round": 1,
                                                  "runs": runs}, headers=agent,
    )  # fmt: skip
    assert again.json() == {"verdict": "different", "continue": False, "cancel": False}
    done = client.post(
        f"/api/v1/jobs/{job['id']}/complete",
        json={"attempt": job["attempt"], "status": "succeeded", "runs": []}, headers=agent,
    )  # fmt: skip
    assert done.status_code == 200 and done.json()["verdict"] == "different"

    (opened,) = alerts(client, read_headers, status="open")
    assert opened["id"] == alert["id"] and opened["incident_id"] is not None
    assert opened["status_changed_by"] == "confirmation"
    confirmation = opened["confirmation"]
    assert confirmation["job_id"] == job["id"] and confirmation["verdict"] == "different"
    assert confirmation["rounds"] == 1 and confirmation["status"] == "succeeded"
    by_variant = {r["variant"]: r for r in confirmation["runs"]}
    assert {r["uuid"] for r in confirmation["runs"]} == {r["uuid"] for r in runs}
    for body in runs:
        name = "candidate" if body["labels"]["version"] == "2" else "baseline"
        assert by_variant[name]["median"] == statistics.median(body["results"][0]["samples"])
    cand, base = runs[0]["results"][0]["samples"], runs[1]["results"][0]["samples"]
    expected = (statistics.median(cand) - statistics.median(base)) / statistics.median(base) * 100
    assert abs(confirmation["change_pct"] - expected) < 1e-9
    lo, hi = confirmation["ci"]
    assert lo <= expected <= hi < -5.0

    # One notification, for the incident the confirmed alert opened.
    (delivery,) = hook.wait_answered(1, timeout=30)
    assert delivery.event == "incident.opened"
    assert _notifications(factory) == 1

    # The confirmation's runs are stored, but are not the series' history.
    with factory() as session:
        flags = dict(
            session.execute(select(Run.uuid, Run.confirming).where(Run.job_id == job["id"])).all()
        )
    assert len(flags) == 2 and all(flags.values())
    series_id = opened["series"]["id"]
    points = client.get(f"/api/v1/series/{series_id}/points", headers=read_headers).json()
    assert points["series"]["points"] == len(history) + 1 == len(points["value"])
    assert not {r["uuid"] for r in runs} & set(points["run"])
    detail = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert len(detail["points"]["value"]) == len(history) + 1
    assert detail["confirmation"]["verdict"] == "different"


def test_a_one_off_slow_spell_is_not_confirmed_and_never_notified(
    worker: Worker, worker_client: TestClient, tokens, read_headers,
    factory: sessionmaker[Session],
) -> None:  # fmt: skip
    client = worker_client
    # The same version throughout: a slow spell (the detector needs 4 points after a step).
    history = [(1000.0, "1")] * 12 + [(800.0, "1")] * 3
    agent, _ = scheduled_series(client, tokens.admin, history, (800.0, "1"))
    alert = wait_confirming(client, read_headers)
    job = claim(client, agent)
    assert job is not None and job["plan"]["mode"] == "history"
    assert [v["name"] for v in job["plan"]["variants"]] == ["candidate"]
    runs = round_runs(job["plan"], {"candidate": 1000.0}, job_id=job["id"], seed=2)
    answer = client.post(
        f"/api/v1/jobs/{job['id']}/rounds", json={"attempt": job["attempt"], "round": 1,
                                                  "runs": runs}, headers=agent,
    )  # fmt: skip
    assert answer.json() == {"verdict": "same", "continue": False, "cancel": False}
    client.post(
        f"/api/v1/jobs/{job['id']}/complete",
        json={"attempt": job["attempt"], "status": "succeeded", "runs": []}, headers=agent,
    )  # fmt: skip
    got = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert got["status"] == "resolved" and got["resolution"] == "not_confirmed"
    assert got["incident_id"] is None
    conf = got["confirmation"]
    assert conf["verdict"] == "same" and [r["uuid"] for r in conf["runs"]] == [runs[0]["uuid"]]
    # History: the 12 points before the change, every repetition.
    with factory() as session:
        pre = (
            session.execute(
                select(Run.uuid).where(Run.confirming.is_(False)).order_by(Run.started_at).limit(12)
            )
            .scalars()
            .all()
        )
    assert len(pre) == 12
    assert _notifications(factory) == 0


def test_a_confirmation_that_fails_leaves_the_answer_unknown(
    worker: Worker, worker_client: TestClient, tokens, read_headers,
    factory: sessionmaker[Session],
) -> None:  # fmt: skip
    client = worker_client
    history = [(1000.0, "1")] * 12 + [(800.0, "2")] * 3
    agent, run_job = scheduled_series(client, tokens.admin, history, (800.0, "2"))
    alert = wait_confirming(client, read_headers)
    job = claim(client, agent)
    assert job is not None
    # The job protocol's checks: not a confirm job; another attempt; a run of another agent.
    wrong = client.post(f"/api/v1/jobs/{run_job}/rounds", json={"attempt": 1, "round": 1},
                        headers=agent)  # fmt: skip
    assert wrong.status_code == 422 and "not a confirmation" in wrong.text
    lost = client.post(f"/api/v1/jobs/{job['id']}/rounds", json={"attempt": 9, "round": 1},
                       headers=agent)  # fmt: skip
    assert lost.status_code == 409 and lost.json()["code"] == "lease_lost"
    other = round_runs(job["plan"], {"candidate": 800.0, "baseline": 1000.0}, job_id=job["id"],
                       seed=3)  # fmt: skip
    other[0]["agent"] = "someone-else"
    refused = client.post(f"/api/v1/jobs/{job['id']}/rounds",
                          json={"attempt": job["attempt"], "round": 1, "runs": other},
                          headers=agent)  # fmt: skip
    assert refused.status_code in (403, 422) and "runs[0].agent" in refused.text
    failed = client.post(
        f"/api/v1/jobs/{job['id']}/complete",
        json={"attempt": job["attempt"], "status": "failed", "error": "disk gone", "runs": []},
        headers=agent,
    )  # fmt: skip
    assert failed.status_code == 200 and failed.json()["verdict"] == "unknown"
    got = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert got["status"] == "resolved" and got["resolution"] == "unconfirmed"
    assert got["confirmation"]["status"] == "failed"
    assert _notifications(factory) == 0
    assert got["series"]["metric"] == METRIC
