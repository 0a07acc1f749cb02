"""A job's life through the API on PostgreSQL: claim, progress, lapse, release, cancel,
completion with runs, and the beat pass."""

from __future__ import annotations

import datetime as dt
import threading

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from perfatlas.core.db import session_factory
from perfatlas.jobs.models import Job
from perfatlas.jobs.tasks import EXPIRE_JOBS, expire_jobs_pass
from perfatlas.runs.models import Run
from perfatlas.worker.schedule import beat_schedule
from tests.backend.jobs.support import bearer, claim, enroll, go_offline, job_row, lapse, queue
from tests.factories import run_body


def _progress(client, headers, job_id, attempt, **body):
    return client.post(
        f"/api/v1/jobs/{job_id}/progress", json={"attempt": attempt, **body}, headers=headers
    )


def _complete(client, headers, job_id, attempt, status="succeeded", runs=(), **body):
    return client.post(
        f"/api/v1/jobs/{job_id}/complete",
        json={"attempt": attempt, "status": status, "runs": list(runs), **body},
        headers=headers,
    )


def _runs(engine) -> int:
    with Session(engine) as session:
        return int(session.scalar(select(func.count()).select_from(Run)) or 0)


def test_claim_progress_complete_and_a_retry_of_the_completion(client, tokens, engine):
    a = enroll(client, tokens.admin, "a")
    assert claim(client, a) is None
    (job_id,) = queue(engine, ["a"])
    got = claim(client, a)
    assert got is not None and got["id"] == job_id and got["attempt"] == 1
    assert got["spec"]["targets"] == ["/mnt/a", "/mnt/b"] and got["kind"] == "run"
    assert got["lease_seconds"] == 30 and got["progress_every"] == 2.0
    assert claim(client, a) is None, "claimed once"

    row = job_row(engine, job_id)
    assert row.status == "leased" and row.attempts == 1 and row.leased_by_id is not None
    listed = {
        x["name"]: x for x in client.get("/api/v1/agents", headers=bearer(tokens.admin)).json()
    }
    assert listed["a"]["current_job"] == {"id": job_id, "status": "leased", "percent": None}

    step = _progress(client, a, job_id, 1, phase="measure", percent=25.0, point={"size": "4k"},
                     done=1, total=4, log=["one", "two"])  # fmt: skip
    assert step.status_code == 200, step.text
    assert step.json()["cancel"] is False
    assert (
        dt.datetime.fromisoformat(step.json()["lease_until"]) == job_row(engine, job_id).lease_until
    )
    read = client.get(f"/api/v1/jobs/{job_id}", headers=bearer(tokens.read)).json()
    assert read["status"] == "running" and read["started_at"] is not None
    assert read["progress"] == {"phase": "measure", "percent": 25.0, "point": {"size": "4k"},
                                "done": 1, "total": 4}  # fmt: skip
    assert read["log_tail"] == ["one", "two"] and read["points"] == 4 and read["agent"] == "a"

    runs = [run_body(agent="a", target=t, parameters={"size": s}) for t in ("/mnt/a", "/mnt/b")
            for s in ("4k", "64k")]  # fmt: skip
    done = _complete(client, a, job_id, 1, runs=runs, log=["three"])
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["status"] == "succeeded" and body["lease_until"] is None
    assert sorted(body["runs"]) == sorted(r["uuid"] for r in runs)
    assert body["log_tail"] == ["one", "two", "three"]
    again = _complete(client, a, job_id, 1, runs=runs, log=["three"])
    assert again.status_code == 200, again.text
    assert again.json()["log_tail"] == ["one", "two", "three"]
    assert _runs(engine) == 4
    with Session(engine) as session:
        assert set(session.scalars(select(Run.job_id))) == {job_id}
    # The job is final: progress and a completion of another attempt are refused.
    assert _progress(client, a, job_id, 1).json()["code"] == "lease_lost"
    assert _complete(client, a, job_id, 2).status_code == 409


def test_a_lapsed_lease_goes_to_another_agent_and_the_old_holder_stores_nothing(
    client, tokens, engine
):
    a = enroll(client, tokens.admin, "a", labels={"pool": "x"})
    b = enroll(client, tokens.admin, "b", labels={"pool": "x"})
    c = enroll(client, tokens.admin, "c", labels={"pool": "y"})
    (job_id,) = queue(engine, ["a"], selector=["pool=x"])
    assert claim(client, b) is None, "a is online: its new job is its own"
    assert claim(client, a)["attempt"] == 1
    lapse(engine, job_id)
    assert claim(client, c) is None, "c's labels do not match the selector"
    taken = claim(client, b)
    assert taken is not None and taken["id"] == job_id and taken["attempt"] == 2
    lost = _progress(client, a, job_id, 1, log=["late"])
    assert lost.status_code == 409 and lost.json()["code"] == "lease_lost"
    late = _complete(client, a, job_id, 1, runs=[run_body(agent="a")])
    assert late.status_code == 409 and late.json()["code"] == "lease_lost"
    assert _runs(engine) == 0
    row = job_row(engine, job_id)
    assert row.status == "leased" and row.attempts == 2 and row.log_tail == []
    # Another agent's runs are refused; the holder's are stored.
    assert _complete(client, b, job_id, 2, runs=[run_body(agent="a")]).status_code == 403
    ok = _complete(client, b, job_id, 2, runs=[run_body(agent="b", job_id=job_id)])
    assert ok.status_code == 200 and len(ok.json()["runs"]) == 1 and ok.json()["leased_by"] == "b"
    wrong = _complete(client, b, job_id, 2, runs=[run_body(agent="b", job_id=job_id + 1)])
    assert wrong.status_code == 422 and wrong.json()["errors"][0]["field"] == "body.runs[0].job_id"


def test_an_offline_agents_job_goes_to_a_matching_agent_unless_pinned(client, tokens, engine):
    enroll(client, tokens.admin, "away", labels={"pool": "x"})
    b = enroll(client, tokens.admin, "b", labels={"pool": "x"})
    (free,) = queue(engine, ["away"], selector=["pool=x"])
    (pinned,) = queue(engine, ["away"], selector=["pool=x"], pinned=True)
    assert claim(client, b) is None
    go_offline(engine, "away")
    taken = claim(client, b)
    assert taken is not None and taken["id"] == free and taken["attempt"] == 1
    assert claim(client, b) is None and job_row(engine, pinned).status == "queued"
    (by_hand,) = queue(engine, ["away"])  # no selector: it waits for its own agent
    assert claim(client, b) is None and job_row(engine, by_hand).status == "queued"


def test_attempts_run_out_and_the_job_fails(client, tokens, engine):
    a = enroll(client, tokens.admin, "a")
    (job_id,) = queue(engine, ["a"], max_attempts=2)
    for attempt in (1, 2):
        assert claim(client, a)["attempt"] == attempt
        lapse(engine, job_id)
    assert claim(client, a) is None
    row = job_row(engine, job_id)
    assert row.status == "failed" and row.attempts == 2 and row.finished_at is not None
    assert row.error is not None and "lapsed" in row.error


def test_release_requeues_and_counts_the_attempt(client, tokens, engine):
    a = enroll(client, tokens.admin, "a")
    (job_id,) = queue(engine, ["a"], max_attempts=2)
    assert claim(client, a)["attempt"] == 1
    resp = client.post(f"/api/v1/jobs/{job_id}/release", json={"attempt": 1, "reason": "SIGTERM"},
                       headers=a)  # fmt: skip
    assert resp.status_code == 200, resp.text
    assert resp.json()["status"] == "queued" and resp.json()["attempts"] == 1
    assert "SIGTERM" in resp.json()["log_tail"][-1]
    assert claim(client, a)["attempt"] == 2
    last = client.post(f"/api/v1/jobs/{job_id}/release", json={"attempt": 2}, headers=a)
    assert last.status_code == 200 and last.json()["status"] == "failed"
    assert (
        client.post(f"/api/v1/jobs/{job_id}/release", json={"attempt": 1}, headers=a).status_code
        == 409
    )


def test_cancel_queued_and_running_jobs(client, tokens, engine):
    admin = bearer(tokens.admin)
    a = enroll(client, tokens.admin, "a")
    queued_id, running_id, lapsing_id = (
        queue(engine, ["a"]) + queue(engine, ["a"]) + queue(engine, ["a"])
    )
    resp = client.post(f"/api/v1/jobs/{queued_id}/cancel", headers=admin)
    assert resp.status_code == 200 and resp.json()["status"] == "cancelled"
    assert client.post(f"/api/v1/jobs/{queued_id}/cancel", headers=admin).status_code == 409
    assert (
        client.post(f"/api/v1/jobs/{running_id}/cancel", headers=bearer(tokens.upload)).status_code
        == 403
    )

    assert claim(client, a)["id"] == running_id
    assert _progress(client, a, running_id, 1).json()["cancel"] is False
    resp = client.post(f"/api/v1/jobs/{running_id}/cancel", headers=admin)
    assert resp.status_code == 200, resp.text
    assert resp.json()["status"] == "running" and resp.json()["cancel_requested"] is True
    assert _progress(client, a, running_id, 1).json()["cancel"] is True
    done = _complete(client, a, running_id, 1, status="cancelled", runs=[run_body(agent="a")])
    assert done.status_code == 200 and done.json()["status"] == "cancelled"
    assert len(done.json()["runs"]) == 1

    # Cancel asked of a held job whose lease then lapses: cancelled, not queued again.
    assert claim(client, a)["id"] == lapsing_id
    client.post(f"/api/v1/jobs/{lapsing_id}/cancel", headers=admin)
    lapse(engine, lapsing_id)
    assert claim(client, a) is None
    assert job_row(engine, lapsing_id).status == "cancelled"
    assert client.post("/api/v1/jobs/999999/cancel", headers=admin).status_code == 404


def test_log_tail_keeps_the_last_500_lines_and_bad_progress_names_the_field(client, tokens, engine):
    a = enroll(client, tokens.admin, "a")
    (job_id,) = queue(engine, ["a"])
    claim(client, a)
    sent = [f"line {i}" for i in range(650)]
    for start in range(0, 650, 200):
        resp = _progress(client, a, job_id, 1, log=sent[start : start + 200])
        assert resp.status_code == 200, resp.text
    assert job_row(engine, job_id).log_tail == sent[-500:]
    for body, field in (
        ({"log": ["x"] * 201}, "body.log"),
        ({"log": ["x" * 2001]}, "body.log[0]"),
        ({"log": ["a\x00b"]}, "body.log[0]"),
        ({"percent": 101}, "body.percent"),
        ({"attempt": 0}, "body.attempt"),
        ({"done": -1}, "body.done"),
        ({"surprise": 1}, "body.surprise"),
    ):
        resp = _progress(client, a, job_id, **{"attempt": 1, **body})
        assert resp.status_code == 422, (body, resp.text)
        assert field in [e["field"] for e in resp.json()["errors"]], (body, resp.json())
    bad = _complete(client, a, job_id, 1, status="done")
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "body.status"
    wait = client.post("/api/v1/agents/jobs/claim?wait=31", headers=a)
    assert wait.status_code == 422 and wait.json()["errors"][0]["field"] == "query.wait"
    assert job_row(engine, job_id).log_tail == sent[-500:]


def test_long_poll_wakes_when_a_job_is_queued(client, tokens, engine):
    a = enroll(client, tokens.admin, "a")
    got: list[dict | None] = []
    waiter = threading.Thread(target=lambda: got.append(claim(client, a, wait=20)))
    waiter.start()
    # Queued by this process: the commit itself wakes the waiting claim.
    (job_id,) = queue(engine, ["a"])
    waiter.join(timeout=30)
    assert not waiter.is_alive() and got and got[0] is not None and got[0]["id"] == job_id


def test_beat_pass_requeues_fails_and_expires(client, tokens, engine):
    a = enroll(client, tokens.admin, "a")
    now = dt.datetime.now(dt.UTC)
    requeue, fail = queue(engine, ["a"]), queue(engine, ["a"], max_attempts=1)
    (stale,) = queue(engine, ["a"], expires_at=now + dt.timedelta(hours=1))
    for job_id in (requeue[0], fail[0]):
        assert claim(client, a)["id"] == job_id
    for job_id in (requeue[0], fail[0]):
        lapse(engine, job_id)
    with Session(engine) as session:
        session.execute(update(Job).where(Job.id == stale).values(expires_at=now))
        session.commit()
    with session_factory(engine)() as session:
        assert expire_jobs_pass(session) == {"cancelled": 0, "failed": 1, "queued": 1, "expired": 1}
    with session_factory(engine)() as session:
        assert expire_jobs_pass(session) == {"cancelled": 0, "failed": 0, "queued": 0, "expired": 0}
    assert [job_row(engine, j).status for j in (requeue[0], fail[0], stale)] == [
        "queued", "failed", "expired"
    ]  # fmt: skip
    entry = beat_schedule(client.app.state.settings)["expire-jobs"]
    assert entry["task"] == EXPIRE_JOBS and entry["options"]["expires"] == entry["schedule"]
