"""Folding with real processes: concurrent uploads to one series on a real server (with folds
running meanwhile), a `perfatlas fold` killed half way, and a real Celery worker folding what
uploads left (queued after the upload, and by its beat)."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import orjson
import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.rollups import fold
from perfatlas.rollups import service as rollups
from tests.backend.alerts.conftest import Worker, wait_until
from tests.backend.rollups.history import WORKLOAD, bodies, check_all, runs_of
from tests.backend.rollups.test_fold import asker, counts, ingest
from tests.conftest import LiveServer

# Kills a worker process mid-fold.
pytestmark = pytest.mark.slow


def test_concurrent_uploads_to_one_series_then_the_fold(live_server: LiveServer) -> None:
    """4 uploaders send batches of runs of one series (one retried) while folds run; then the
    last fold: every run counted once, exactly."""
    metric = "live_concurrent.ops_per_s"  # the live server is shared: a metric of this test's own
    made = bodies(160, seed=7, agents=("host-live",), threads=(4,), metric=metric)
    batches = [made[i : i + 10] for i in range(0, len(made), 10)]
    headers = {"Authorization": f"Bearer {live_server.upload_token}"}
    factory = session_factory(get_engine(live_server.database_url))
    queue = list(enumerate(batches))
    lock = threading.Lock()
    errors: list[BaseException] = []
    uploading = threading.Event()
    uploading.set()

    def uploader() -> None:
        with httpx.Client(base_url=live_server.url, headers=headers, timeout=60) as client:
            while True:
                with lock:
                    if not queue:
                        return
                    number, batch = queue.pop()
                for body in [batch, batch[:3]] if number % 4 == 0 else [batch]:  # a retry
                    response = client.post(
                        "/api/v1/runs/batch", content=orjson.dumps({"runs": body}),
                        headers={"Content-Type": "application/json"},
                    )  # fmt: skip
                    if response.status_code != 200:
                        errors.append(AssertionError(response.text))

    def folder() -> None:
        try:
            with factory() as session:
                while uploading.is_set():
                    fold.fold_batch(session, limit=random.choice((3, 7, 20)))
                    session.commit()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=uploader) for _ in range(4)]
    folding = threading.Thread(target=folder)
    folding.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    uploading.clear()
    folding.join()
    assert not errors, errors
    with factory() as session:
        rollups.fold_pending(session)
        assert fold.pending_count(session) == 0

    read = {"Authorization": f"Bearer {live_server.read_token}"}

    def ask(*, x: str, group: str | None = None) -> Any:
        params = {
            "workload": WORKLOAD,
            "metric": metric,
            "x": x,
            "split": "none",  # pooled as the oracle's cells are
            **({"group": group} if group else {}),
        }
        response = httpx.get(f"{live_server.url}/api/v1/explore", params=params, headers=read)
        assert response.status_code == 200, response.text
        return response.json()

    check_all(
        ask, runs_of(made, metric), "concurrent uploads, folded",
        sketches=asker(factory, metric, sketched=True),
    )  # fmt: skip


def test_a_killed_fold_loses_and_doubles_nothing(engine: Engine, pg_url: str) -> None:
    """`perfatlas fold` SIGKILLed after its first batches: what it committed is folded, the
    rest still pending, and the next fold completes it exactly."""
    db: sessionmaker[Session] = session_factory(engine)
    made = bodies(3000, seed=8)
    for start in range(0, len(made), 500):
        ingest(db, made[start : start + 500])
    assert counts(db) == (3000, 0)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_DATABASE_URL"] = pg_url
    proc = subprocess.Popen([sys.executable, "-m", "perfatlas", "fold"], env=env)
    try:
        wait_until(lambda: counts(db)[0] < 3000, timeout=60, what="a first batch folded")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    pending, folded = counts(db)
    assert folded == 2 * (3000 - pending)
    assert pending > 0 and pending % fold.BATCH_RUNS == 0  # killed half way: whole batches
    runs = runs_of(made)
    check_all(_asker(db), runs, f"killed with {pending} pending")
    with db() as session:
        assert rollups.fold_pending(session).runs == pending
    assert counts(db) == (0, 6000)
    check_all(_asker(db), runs, "folded after the kill", sketches=asker(db, sketched=True))


def _asker(db: sessionmaker[Session]) -> Any:
    return asker(db)


def test_a_real_worker_folds_uploads(
    worker: Worker,
    worker_client: TestClient,
    worker_settings: Settings,
    tokens: Any,
    engine: Engine,
) -> None:
    """Uploads through the API queue the fold (with the check of their series); runs stored
    without any task (a lost message) are folded by the beat's pass."""
    db = session_factory(engine)
    headers = {"Authorization": f"Bearer {tokens.upload}"}
    made = bodies(60, seed=9)
    for start in range(0, 60, 20):
        response = worker_client.post(
            "/api/v1/runs/batch", json={"runs": made[start : start + 20]}, headers=headers
        )
        assert response.status_code == 200, response.text
    wait_until(lambda: counts(db) == (0, 120), timeout=30, what="the worker's fold")
    check_all(_asker(db), runs_of(made), "folded by the worker")
    # The uploads' last wake-up may come up to a coalescing window after them: wait until it
    # has been sent and run, so that what folds the next runs is the beat.
    time.sleep(worker_settings.wakeup_coalesce_seconds + 0.5)
    wait_until(lambda: not _folds_outstanding(worker, worker_settings), timeout=30,
               what="the uploads' folds done")  # fmt: skip
    more = bodies(10, seed=10, start=100)
    with db() as holding:  # no fold runs while the fold's lock is held here
        holding.execute(select(func.pg_advisory_xact_lock(fold.FOLD_LOCK)))
        ingest(db, more)  # no upload route: nothing queued but the beat's pass
        assert counts(db) == (10, 120)
    wait_until(lambda: counts(db) == (0, 140), timeout=30, what="the beat's fold")
    check_all(_asker(db), runs_of([*made, *more]), "folded by the beat")


def _folds_outstanding(worker: Worker, settings: Settings) -> bool:
    """Whether a task waits in the worker's queue, or a fold it received has not ended (its
    log: a task is received before it runs, and ends succeeded, raised, retried, rejected,
    ignored or discarded as expired)."""
    with redis.Redis.from_url(settings.broker_url) as broker:
        if broker.llen(settings.queue):
            return True
    logs = worker.logs()
    task = r"perfatlas\.fold_rollups\[([\w-]+)\]"
    received = set(re.findall(task + " received", logs))
    ended = set(re.findall(task + " (?:succeeded|raised|retry|rejected|ignored)", logs))
    ended |= set(re.findall("Discarding revoked task: " + task, logs))
    return bool(received - ended)
