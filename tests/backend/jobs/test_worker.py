"""The expiry pass runs in a real `perfatlas worker` from its beat schedule: a queued job past
its time expires and a lapsed lease is put back, with no agent polling."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import update
from sqlalchemy.orm import Session

from perfatlas.jobs.models import Job
from tests.backend.alerts.conftest import (
    mail_server,
    wait_until,
    worker,
    worker_queue,
    worker_settings,
)
from tests.backend.jobs.support import claim, enroll, job_row, lapse, queue

__all__ = ["mail_server", "worker", "worker_queue", "worker_settings"]


def test_the_beat_expires_and_requeues_jobs(client, tokens, engine, worker):
    a = enroll(client, tokens.admin, "a")
    held, stale = queue(engine, ["a"]), queue(engine, ["a"])
    assert claim(client, a)["id"] == held[0]
    lapse(engine, held[0])
    with Session(engine) as session:
        session.execute(
            update(Job)
            .where(Job.id == stale[0])
            .values(expires_at=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1))
        )
        session.commit()
    wait_until(
        lambda: [job_row(engine, j).status for j in (held[0], stale[0])] == ["queued", "expired"],
        timeout=40,
        what="the beat's expire_jobs pass",
    )
    assert job_row(engine, held[0]).attempts == 1
