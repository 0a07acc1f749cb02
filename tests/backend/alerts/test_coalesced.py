"""Coalesced detection: a burst of uploads leaves at most one pending check per series and one
queued check for the lot; a check's claims never hold an upload up, an upload during a check
has its series checked again, a dead check's claims are taken again; and the check still finds
a step uploaded in the burst."""

from __future__ import annotations

import datetime as dt
import json
import random
import threading
import uuid
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, update
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.agents.models import Agent
from perfatlas.alerts import pending
from perfatlas.alerts.models import DetectionRequest
from perfatlas.core.config import Settings
from perfatlas.core.measurement import RunCreate
from perfatlas.core.models import utcnow
from perfatlas.flows.after_ingest import request_after_ingest, requested_after_commit
from perfatlas.main import create_app
from perfatlas.runs.ingest import ingest
from perfatlas.runs.models import Result, Series
from tests.backend.alerts.conftest import Worker, wait_until
from tests.conftest import REDIS_URL
from tests.factories import at, noisy, result, run_body

METRICS = ("create.ops_per_s", "stat.ops_per_s", "unlink.ops_per_s")


def one_run(day: int, level: float, *, agent: str = "lab-1") -> dict[str, Any]:
    rng = random.Random(day)
    return run_body(
        agent=agent,
        started_at=at(days=day),
        labels={"fs_version": "6.1" if day < 30 else "6.2"},
        results=[result(m, noisy(rng, level)) for m in METRICS],
    )


def _headers(settings: Settings) -> list[dict[str, Any]]:
    """The headers of the tasks waiting in the deployment's queue, oldest first."""
    client = redis.Redis.from_url(REDIS_URL)
    try:
        raw = client.lrange(settings.queue, 0, -1)
    finally:
        client.close()
    # kombu pushes on the left and pops on the right.
    return [json.loads(message)["headers"] for message in reversed(raw)]


def queued(settings: Settings) -> list[str]:
    """The names of the tasks waiting in the deployment's queue, oldest first."""
    return [headers["task"] for headers in _headers(settings)]


def etas(settings: Settings) -> list[str | None]:
    """The queued tasks' ETAs (a task sent with a countdown), oldest first."""
    return [headers.get("eta") for headers in _headers(settings)]


def requests(factory: sessionmaker[Session]) -> list[tuple[int, bool]]:
    """Every request row: (series, claimed by a check)."""
    with factory() as session:
        return sorted(
            (r.series_id, r.claimed_at is not None)
            for r in session.scalars(select(DetectionRequest))
        )


def series_of(factory: sessionmaker[Session], agent: str) -> list[int]:
    with factory() as session:
        return sorted(
            session.scalars(select(Series.id).join(Series.agent).where(Agent.name == agent))
        )


def test_a_burst_of_uploads_leaves_one_request_per_series_and_two_checks(
    settings: Settings, engine: Engine, factory: sessionmaker[Session],
    upload_headers: dict[str, str],
) -> None:  # fmt: skip
    # The whole test is one window of the wake-ups' coalescing (the default is one second),
    # on a queue of its own (the windows are kept per queue and task, in this process).
    settings = settings.model_copy(update={
        "wakeup_coalesce_seconds": 3600.0, "queue": f"{settings.queue}-burst-{uuid.uuid4().hex}",
    })  # fmt: skip
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        _burst(client, settings, factory, upload_headers)


def _burst(
    client: TestClient, settings: Settings, factory: sessionmaker[Session],
    upload_headers: dict[str, str],
) -> None:  # fmt: skip
    before = len(queued(settings))
    uploads = [one_run(day, 1000.0) for day in range(40)]  # lab-1's 3 series, 40 times
    uploads += [one_run(day, 500.0, agent="lab-2") for day in range(10)]  # lab-2's 3 series
    for body in uploads:
        resp = client.post("/api/v1/runs", json=body, headers=upload_headers)
        assert resp.status_code == 201, resp.text
    lab1, lab2 = series_of(factory, "lab-1"), series_of(factory, "lab-2")
    assert len(lab1) == len(lab2) == 3
    # The uploads wrote one request per series, in their own transactions.
    waiting = [(sid, False) for sid in sorted(lab1 + lab2)]
    assert requests(factory) == waiting
    # Only lab-1's first upload and lab-2's first found their series not waiting: each asked
    # for a check, the first at once, the second for the window's end (a countdown: it runs
    # after every upload of the window). Every upload asked for a fold: the first went at
    # once, the second for the window's end, and the other 48 rode on that one.
    check, fold = "perfatlas.detect_pending", "perfatlas.fold_rollups"
    assert queued(settings)[before:] == [check, fold, fold, check]
    assert [e is not None for e in etas(settings)[before:]] == [False, False, True, True]

    # An upload that fails writes no request: a new lab-3 run beside a stored uuid with
    # another body.
    fresh = one_run(3, 700.0, agent="lab-3")
    changed = {**uploads[0], "labels": {"fs_version": "6.9"}}
    resp = client.post("/api/v1/runs/batch", json={"runs": [fresh, changed]},
                       headers=upload_headers)  # fmt: skip
    assert resp.status_code == 409, resp.text
    assert requests(factory) == waiting
    assert len(queued(settings)) == before + 4

    # A check claims a batch, oldest request first, and commits the claim at once.
    with factory() as session:
        taken = pending.claim(session, 4)
        rest = pending.claim(session, 200)
    assert taken is not None and taken.series_ids == sorted(lab1 + lab2[:1])
    assert rest is not None and rest.series_ids == lab2[1:]
    assert requests(factory) == [(sid, True) for sid in sorted(lab1 + lab2)]
    # An upload to lab-1 meanwhile is not held up by the checks: the checks may have read its
    # series before it, so they wait again, beside the claims, and a check is queued.
    resp = client.post("/api/v1/runs", json=one_run(50, 1000.0), headers=upload_headers)
    assert resp.status_code == 201, resp.text
    # Its wake-ups ride on the window's trailing ones, which run after it.
    assert len(queued(settings)) == before + 4
    assert requests(factory) == sorted(
        [(sid, True) for sid in lab1 + lab2] + [(sid, False) for sid in lab1]
    )
    # The first check ends: its rows go; lab-1's series still wait, for the upload's sake.
    with factory() as session:
        pending.finish(session, taken)
        session.commit()
    assert requests(factory) == sorted(
        [(sid, False) for sid in lab1] + [(sid, True) for sid in lab2[1:]]
    )

    with factory() as session:
        # A check that died leaves its claims; once stale they are taken again.
        dead = pending.claim(session, 200)
        assert dead is not None and dead.series_ids == lab1
        session.execute(
            update(DetectionRequest)
            .where(DetectionRequest.id.in_(dead.row_ids))
            .values(claimed_at=utcnow() - pending.STALE_CLAIM - dt.timedelta(seconds=1))
        )
        session.commit()
        retaken = pending.claim(session, 200)
        assert retaken is not None and retaken.series_ids == lab1
        assert sorted(retaken.row_ids) == sorted(dead.row_ids)
        pending.finish(session, retaken)
        session.commit()
        assert pending.pending(session) == 2
        # A check that fails hands its series back: they wait again.
        pending.release(session, rest)
    assert requests(factory) == [(sid, False) for sid in lab2[1:]]
    with factory() as session:
        again = pending.claim(session, 200)
        assert again is not None and again.series_ids == lab2[1:]
        assert pending.claim(session, 200) is None


def test_an_upload_does_not_wait_for_a_check_that_holds_its_series(
    client: TestClient, factory: sessionmaker[Session], upload_headers: dict[str, str],
) -> None:  # fmt: skip
    """A check holds its claimed rows from its deletion until its commit; an upload to the same
    series meanwhile goes through (it inserts a new waiting row) instead of waiting."""
    assert client.post("/api/v1/runs", json=one_run(1, 1000.0), headers=upload_headers).is_success
    lab1 = series_of(factory, "lab-1")
    with factory() as check:
        taken = pending.claim(check, 200)
        assert taken is not None and taken.series_ids == lab1
        pending.finish(check, taken)  # rows deleted, the check's transaction still open
        answers: list[int] = []
        upload = threading.Thread(target=lambda: answers.append(client.post(
            "/api/v1/runs", json=one_run(2, 1000.0), headers=upload_headers
        ).status_code))  # fmt: skip
        upload.start()
        upload.join(timeout=20)
        waited = upload.is_alive()
        check.commit()
        upload.join()
    assert not waited, "the upload waited for the check's transaction"
    assert answers == [201]
    assert requests(factory) == [(sid, False) for sid in lab1]


def test_an_upload_whose_request_was_claimed_before_its_commit_asks_again(
    client: TestClient, settings: Settings, factory: sessionmaker[Session],
    upload_headers: dict[str, str],
) -> None:  # fmt: skip
    """An upload that finds its series waiting relies on that request's check. When a check
    claims the request between the upload's insert and its commit, it reads the series without
    the upload's run: once committed, the upload asks again, and its series waits again. When
    the request still waits, asking again adds nothing."""
    assert client.post("/api/v1/runs", json=one_run(1, 1000.0), headers=upload_headers).is_success
    lab1 = series_of(factory, "lab-1")
    assert requests(factory) == [(sid, False) for sid in lab1]
    late = RunCreate.model_validate(one_run(2, 800.0))
    with factory() as upload, factory() as check:
        stored = ingest(upload, runs=[late], ignore_labels=settings.series_ignore_labels)
        requested = request_after_ingest(upload, settings, stored)
        # Every series was waiting: the upload added no request, it relies on theirs.
        assert requested.added == 0 and sorted(requested.ask_again) == lab1
        taken = pending.claim(check, 200)
        assert taken is not None and taken.series_ids == lab1
        # What the check reads of the series: the upload's run is not committed yet.
        read = check.scalars(select(Result.run_uuid).where(Result.series_id.in_(lab1))).all()
        assert late.uuid not in set(read) and len(read) == len(lab1)
        upload.commit()
        assert requested_after_commit(upload, requested) == len(lab1)
        pending.finish(check, taken)
        check.commit()
    # The check's rows are gone and each series waits again, for the upload's sake.
    assert requests(factory) == [(sid, False) for sid in lab1]

    # A request that still waits when the upload commits covers it: nothing is added.
    with factory() as upload:
        stored = ingest(
            upload, runs=[RunCreate.model_validate(one_run(3, 800.0))],
            ignore_labels=settings.series_ignore_labels,
        )  # fmt: skip
        requested = request_after_ingest(upload, settings, stored)
        assert requested.added == 0 and sorted(requested.ask_again) == lab1
        upload.commit()
        assert requested_after_commit(upload, requested) == 0
    assert requests(factory) == [(sid, False) for sid in lab1]

    # An upload whose requests are all new (its series are new) has nothing to ask again.
    with factory() as upload:
        stored = ingest(
            upload, runs=[RunCreate.model_validate(one_run(4, 900.0, agent="lab-9"))],
            ignore_labels=settings.series_ignore_labels,
        )  # fmt: skip
        requested = request_after_ingest(upload, settings, stored)
        assert requested.added == len(METRICS) and requested.ask_again == ()
        upload.commit()
        assert requested_after_commit(upload, requested) == len(METRICS)
    lab9 = series_of(factory, "lab-9")
    assert requests(factory) == sorted((sid, False) for sid in lab1 + lab9)


def test_the_worker_finds_a_step_uploaded_in_a_burst_and_clears_the_requests(
    worker: Worker, worker_client: TestClient, factory: sessionmaker[Session],
    upload_headers: dict[str, str], read_headers: dict[str, str],
) -> None:  # fmt: skip
    runs = [one_run(day, 1000.0 if day < 30 else 800.0) for day in range(45)]
    for run in runs:  # one request per run, as fast as the API takes them
        resp = worker_client.post("/api/v1/runs", json=run, headers=upload_headers)
        assert resp.status_code == 201, resp.text

    def open_alerts() -> list[dict[str, Any]]:
        page = worker_client.get("/api/v1/alerts", params={"status": "open"}, headers=read_headers)
        items: list[dict[str, Any]] = page.json()["items"]
        return items

    opened = wait_until(lambda: len(open_alerts()) == 3 and open_alerts(), timeout=60,
                        what="the worker to open 3 alerts")  # fmt: skip
    assert {a["change_run"]["uuid"] for a in opened} == {runs[30]["uuid"]}
    assert {a["series"]["metric"] for a in opened} == set(METRICS)

    def cleared() -> bool:
        with factory() as session:
            return not list(session.scalars(select(DetectionRequest.series_id)))

    wait_until(cleared, timeout=30, what="the pending checks to be taken")


def test_the_coalescer_sends_each_window_at_once_then_for_its_end() -> None:
    """Each call is followed by a send that runs after it: the window's first at once, the
    second for the window's end, the rest ride on that one; a window of 0 sends every call."""
    from perfatlas.core.queue import Coalescer

    coalescer = Coalescer()
    key = ("redis://", "q", "task")
    calls = [(10.0, None), (10.2, 0.8), (10.5, -1.0), (10.99, -1.0), (11.0, None),
             (11.9, 0.1), (14.0, None)]  # fmt: skip
    for now, want in calls:
        got = coalescer.countdown(key, now, 1.0)
        assert got == (None if want is None else pytest.approx(want)), now
    other = ("redis://", "q", "other task")
    assert coalescer.countdown(other, 14.1, 1.0) is None, "each task has its own window"
    coalescer.forget(key)  # a send that failed: the next call sends at once
    assert coalescer.countdown(key, 14.2, 1.0) is None
    assert [coalescer.countdown(key, 20.0, 0.0) for _ in range(3)] == [None, None, None]
