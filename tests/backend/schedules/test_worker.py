"""A real `perfatlas worker` with its beat fires a due schedule (perfatlas.fire_schedules every
10 s), one job per matching agent, once."""

from __future__ import annotations

import datetime as dt

from tests.backend.alerts.conftest import wait_until
from tests.backend.schedules.conftest import SPEC, jobs_of


def test_beat_fires_a_due_schedule(client, admin_headers, engine, enroll, worker) -> None:
    enroll("w1", pool="nvme")
    enroll("w2", pool="nvme")
    enroll("w3", pool="hdd")
    at = (dt.datetime.now(dt.UTC) + dt.timedelta(seconds=2)).replace(microsecond=0)
    body = {"name": "soon", "spec": SPEC, "agents": ["pool=nvme"], "when": at.isoformat()}
    made = client.post("/api/v1/schedules", json=body, headers=admin_headers)
    assert made.status_code == 201, made.text
    assert jobs_of(engine) == []
    sid = made.json()["id"]
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
