"""Enrollment tokens, enrollment, heartbeat and revocation through the API on PostgreSQL."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import subprocess
import sys

from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent, EnrollmentToken
from perfatlas.auth.models import ApiToken
from perfatlas.jobs.models import Job
from tests.backend.jobs.support import bearer, claim, enroll, enrollment_token, queue
from tests.factories import run_body


def _enroll(client, token: str, name: str, **extra):
    return client.post(
        "/api/v1/agents/enroll", json={"enrollment_token": token, "name": name, **extra}
    )


def _agents(client, headers) -> dict[str, dict]:
    resp = client.get("/api/v1/agents", headers=headers)
    assert resp.status_code == 200, resp.text
    return {a["name"]: a for a in resp.json()}


def test_enrollment_token_is_one_time_stored_hashed_and_expires(client, tokens, engine):
    admin = bearer(tokens.admin)
    resp = client.post(
        "/api/v1/agents/enrollment-tokens",
        json={"labels": {"rack": "r1"}, "expires_in_hours": 2},
        headers=admin,
    )
    assert resp.status_code == 201, resp.text
    made = resp.json()
    token = made["token"]
    assert token.startswith("pae_") and made["prefix"] == token[:10]
    expires = dt.datetime.fromisoformat(made["expires_at"])
    assert (
        dt.timedelta(hours=1, minutes=59)
        < expires - dt.datetime.now(dt.UTC)
        <= dt.timedelta(hours=2)
    )
    with engine.connect() as conn:
        (row,) = conn.execute(text("SELECT * FROM agent_enrollment_tokens")).mappings().all()
        assert row["token_hash"] == hashlib.sha256(token.encode()).hexdigest()
        assert token not in str(dict(row))

    first = _enroll(client, token, "box-1", labels={"disk": "nvme"}, version="0.2.0")
    assert first.status_code == 201, first.text
    assert first.json()["labels"] == {"rack": "r1", "disk": "nvme"}
    again = _enroll(client, token, "box-2")
    assert again.status_code == 401 and again.json()["code"] == "unauthorized"
    unknown = _enroll(client, "pae_nothing", "box-3")
    assert unknown.status_code == 401

    late = enrollment_token(client, tokens.admin)
    with Session(engine) as session:
        session.execute(
            update(EnrollmentToken)
            .where(EnrollmentToken.used_at.is_(None))
            .values(expires_at=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1))
        )
        session.commit()
    assert _enroll(client, late, "box-4").status_code == 401
    names = set(_agents(client, admin))
    assert names == {"box-1"}
    with Session(engine) as session:
        (spent,) = session.scalars(
            select(EnrollmentToken).where(EnrollmentToken.used_by.is_not(None))
        )
        assert spent.used_by == "box-1"
        agent_token = session.scalar(select(ApiToken).where(ApiToken.agent_name == "box-1"))
        assert agent_token is not None and agent_token.scope == "agent"
        assert agent_token.token_hash == hashlib.sha256(first.json()["token"].encode()).hexdigest()


def test_enroll_adopts_an_uploading_agent_and_refuses_a_taken_name(client, tokens, engine):
    admin = bearer(tokens.admin)
    up = client.post("/api/v1/runs/batch", json={"runs": [run_body(agent="lab-1")]}, headers=admin)
    assert up.status_code == 200, up.text
    before = _agents(client, admin)["lab-1"]
    assert before["enrolled"] is False and before["runs"] == 1 and before["online"] is False

    headers = enroll(client, tokens.admin, "lab-1", labels={"pool": "a"})
    after = _agents(client, admin)["lab-1"]
    assert after["enrolled"] and not after["revoked"] and after["online"] and after["runs"] == 1
    assert after["labels"] == {"pool": "a"} and after["current_job"] is None

    token = enrollment_token(client, tokens.admin)
    taken = _enroll(client, token, "lab-1")
    assert taken.status_code == 409, taken.text
    assert taken.json()["errors"][0]["field"] == "name"
    # Nothing was written: the enrollment token is still good for another name.
    assert _enroll(client, token, "lab-2").status_code == 201

    beat = client.post(
        "/api/v1/agents/heartbeat", json={"version": "0.3.0", "labels": {"pool": "b"}},
        headers=headers,
    )  # fmt: skip
    assert beat.status_code == 200, beat.text
    server_time = dt.datetime.fromisoformat(beat.json()["server_time"])
    row = _agents(client, admin)["lab-1"]
    assert row["labels"] == {"pool": "b"} and row["version"] == "0.3.0"
    assert dt.datetime.fromisoformat(row["heartbeat_at"]) == server_time


def test_bad_enrollment_input_names_the_field(client, tokens):
    admin = bearer(tokens.admin)
    cases = [
        ("/api/v1/agents/enrollment-tokens", {"expires_in_hours": 0}, "body.expires_in_hours"),
        ("/api/v1/agents/enrollment-tokens", {"expires_in_hours": 721}, "body.expires_in_hours"),
        ("/api/v1/agents/enrollment-tokens", {"labels": {"a b": "x"}}, "body.labels.a b"),
        ("/api/v1/agents/enroll", {"enrollment_token": "x", "name": "a/b"}, "body.name"),
        ("/api/v1/agents/enroll", {"enrollment_token": "x", "name": ""}, "body.name"),
        ("/api/v1/agents/enroll", {"name": "ok"}, "body.enrollment_token"),
    ]
    for path, body, field in cases:
        resp = client.post(path, json=body, headers=admin)
        assert resp.status_code == 422, (body, resp.text)
        assert field in [e["field"] for e in resp.json()["errors"]], (body, resp.json())
    upload = client.post("/api/v1/agents/enrollment-tokens", json={}, headers=bearer(tokens.upload))
    assert upload.status_code == 403
    not_agent = client.post("/api/v1/agents/heartbeat", json={}, headers=admin)
    assert not_agent.status_code == 403 and "agent" in not_agent.json()["detail"]


def test_revoke_ends_tokens_and_hands_jobs_on(client, tokens, engine):
    admin = bearer(tokens.admin)
    old = enroll(client, tokens.admin, "old", labels={"pool": "a"})
    other = enroll(client, tokens.admin, "other", labels={"pool": "a"})
    held, pinned_held = queue(engine, ["old"], selector=["pool=a"]), []
    assert claim(client, old)["id"] == held[0]
    pinned_held = queue(engine, ["old"], selector=["pool=a"], pinned=True)
    assert claim(client, old)["id"] == pinned_held[0]
    bare = queue(engine, ["old"])  # no selector: no other agent may take it
    assert claim(client, old)["id"] == bare[0]
    waiting = queue(engine, ["old"], selector=["pool=a"])

    resp = client.post("/api/v1/agents/old/revoke", headers=admin)
    assert resp.status_code == 200, resp.text
    read = resp.json()
    assert read["revoked"] and read["enrolled"] and not read["online"]
    assert read["current_job"] is None

    for path, body in (
        ("/api/v1/agents/heartbeat", {}),
        ("/api/v1/agents/jobs/claim?wait=0", None),
    ):
        refused = client.post(path, json=body, headers=old)
        assert refused.status_code == 401, (path, refused.text)
    with Session(engine) as session:
        status = dict(session.execute(select(Job.id, Job.status)).all())
    assert status == {
        held[0]: "queued", pinned_held[0]: "cancelled", bare[0]: "cancelled",
        waiting[0]: "cancelled",
    }  # fmt: skip
    # The held job goes to another agent its selector picks, as its second attempt.
    taken = claim(client, other)
    assert taken is not None and taken["id"] == held[0] and taken["attempt"] == 2
    assert claim(client, other) is None
    assert client.post("/api/v1/agents/nobody/revoke", headers=admin).status_code == 404

    # A revoked agent enrolls again with a new enrollment token.
    again = enroll(client, tokens.admin, "old")
    assert client.post("/api/v1/agents/heartbeat", json={}, headers=again).status_code == 200
    row = _agents(client, admin)["old"]
    assert row["revoked"] is False and row["enrolled"] is True


def test_cli_makes_an_enrollment_token(client, settings, engine):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_DATABASE_URL"] = settings.effective_database_url
    out = subprocess.run(
        [sys.executable, "-m", "perfatlas", "agent", "enroll-token", "--label", "rack=r7",
         "--label", "disk=hdd", "--hours", "3"],
        env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    token = out.stdout.strip()
    assert token.startswith("pae_") and token not in out.stderr
    resp = _enroll(client, token, "cli-box", labels={"disk": "ssd"})
    assert resp.status_code == 201, resp.text
    assert resp.json()["labels"] == {"rack": "r7", "disk": "ssd"}
    with Session(engine) as session:
        agent = session.scalar(select(Agent).where(Agent.name == "cli-box"))
        assert agent is not None and agent.enrolled_at is not None
    bad = subprocess.run(
        [sys.executable, "-m", "perfatlas", "agent", "enroll-token", "--label", "nolabel"],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode != 0 and "--label" in bad.stderr
