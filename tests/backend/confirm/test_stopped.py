"""Stopped reporting: a series an hourly schedule feeds that misses two firings raises a
`stopped` alert (notified as any alert is), once; a run of the series resolves it (resumed).
The beat pass is called with a chosen `now`, so no test waits for hours."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from perfatlas.alerts import stopped
from perfatlas.alerts.models import Alert
from perfatlas.core.config import Settings
from perfatlas.notifications.models import Notification
from tests.backend.alerts.conftest import add_channel
from tests.backend.confirm.support import AGENT, CMD, run
from tests.backend.jobs.support import bearer, claim, enroll, queue


def _pass(engine: Engine, settings: Settings, now: dt.datetime) -> dict[str, int]:
    with Session(engine) as session:
        counts = stopped.check(session, settings=settings, delays=[], now=now)
        session.commit()
    return counts


def _alerts(engine: Engine) -> list[Alert]:
    with Session(engine) as session:
        rows = list(session.scalars(select(Alert).order_by(Alert.id)))
        session.expunge_all()
        return rows


def test_a_silent_series_raises_a_stopped_alert_until_it_reports_again(
    client, tokens, engine, settings, factory
) -> None:
    add_channel(factory, name="team", kind="webhook", target="http://127.0.0.1:9/hook")
    agent = enroll(client, tokens.admin, AGENT)
    spec = {"workload": "command", "targets": ["/mnt/a"], "params": {"cmd": CMD}}
    made = client.post(
        "/api/v1/schedules",
        json={"name": "hourly", "spec": spec, "agents": [AGENT], "when": "cron:0 * * * *"},
        headers=bearer(tokens.admin),
    )
    assert made.status_code == 201, made.text
    schedule_id = made.json()["id"]
    # A firing two hours ago, and its run a little after it.
    hour = dt.datetime.now(dt.UTC).replace(minute=0, second=0, microsecond=0)
    fired = hour - dt.timedelta(hours=2)
    (job_id,) = queue(engine, [AGENT], spec=spec, schedule_id=schedule_id, fire_at=fired)
    job = claim(client, agent)
    assert job is not None and job["id"] == job_id
    last_at = fired + dt.timedelta(minutes=5)
    body = run(1000.0, version="1", at=last_at, seed=1, job_id=job_id)
    done = client.post(
        f"/api/v1/jobs/{job_id}/complete",
        json={"attempt": job["attempt"], "status": "succeeded", "runs": [body]},
        headers=agent,
    )
    assert done.status_code == 200, done.text

    # The firings after the last run: fired + 1 h (missed), fired + 2 h (missed, + 30 min grace).
    second = fired + dt.timedelta(hours=2)
    assert _pass(engine, settings, second + dt.timedelta(minutes=29)) == {
        "stopped": 0,
        "resumed": 0,
    }
    assert _alerts(engine) == []
    assert _pass(engine, settings, second + dt.timedelta(minutes=31))["stopped"] == 1
    (alert,) = _alerts(engine)
    assert alert.kind == "stopped" and alert.status == "open" and not alert.tentative
    assert alert.change_at == fired + dt.timedelta(hours=1)  # the first missed firing
    assert alert.incident_id is not None
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(Notification)) == 1
    # Once: the next pass finds it raised already.
    assert _pass(engine, settings, second + dt.timedelta(hours=3))["stopped"] == 0
    listed = client.get(
        "/api/v1/alerts", params={"status": "open"}, headers=bearer(tokens.read)
    ).json()
    assert [a["kind"] for a in listed["items"]] == ["stopped"]

    # It reports again: resolved (resumed) by that run.
    again = run(1000.0, version="1", at=dt.datetime.now(dt.UTC), seed=2)
    assert client.post("/api/v1/runs", json=again, headers=agent).status_code == 201
    assert _pass(engine, settings, dt.datetime.now(dt.UTC))["resumed"] == 1
    (alert,) = _alerts(engine)
    assert alert.status == "resolved" and alert.resolution == "resumed"
    read = client.get(f"/api/v1/alerts/{alert.id}", headers=bearer(tokens.read)).json()
    assert read["resolved_by_run"]["uuid"] == again["uuid"]
