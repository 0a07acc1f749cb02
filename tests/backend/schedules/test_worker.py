"""A real `perfatlas worker` with its beat fires a due schedule (perfatlas.fire_schedules every
10 s), one job per matching agent, once."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import text

from tests.backend.alerts.conftest import wait_until
from tests.backend.schedules.conftest import SPEC, jobs_of


def test_beat_fires_a_due_schedule(client, admin_headers, engine, enroll, worker) -> None:
    enroll("w1", pool="nvme")
    enroll("w2", pool="nvme")
    enroll("w3", pool="hdd")
    # An hour ahead, then made due by its stored time: a `when` a second or two ahead was in
    # the past by the time a busy machine handled the request.
    later = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).replace(microsecond=0)
    body = {"name": "soon", "spec": SPEC, "agents": ["pool=nvme"], "when": later.isoformat()}
    made = client.post("/api/v1/schedules", json=body, headers=admin_headers)
    assert made.status_code == 201, made.text
    sid = made.json()["id"]
    assert dt.datetime.fromisoformat(made.json()["next_fire_at"]) == later
    assert jobs_of(engine) == []
    at = (dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)).replace(microsecond=0)
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE schedules SET next_fire_at = :at WHERE id = :sid"), {"at": at, "sid": sid}
        )
    fired = wait_until(lambda: jobs_of(engine, sid), timeout=60, what="the beat to fire it")
    assert fired == [("w1", at, "queued"), ("w2", at, "queued")]
    got = client.get(f"/api/v1/schedules/{sid}", headers=admin_headers).json()
    assert got["next_fire_at"] is None
    assert dt.datetime.fromisoformat(got["last_fired_at"]) == at

    def passes() -> int:
        return sum(
            "perfatlas.fire_schedules" in line and "succeeded" in line
            for line in worker.logs().splitlines()
        )

    # Later passes add nothing.
    done = passes()
    wait_until(lambda: passes() >= done + 2, timeout=60, what="two more passes")
    assert jobs_of(engine, sid) == fired
