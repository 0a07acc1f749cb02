"""The embedded default: the same API on a SQLite file, end to end (a smaller smoke suite)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from perfatlas.core.config import Settings
from perfatlas.main import create_app
from tests.conftest import patient
from tests.factories import result, run_body


@pytest.fixture
def sqlite_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_DATA_DIR"] = str(tmp_path / "data")
    return env


def cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "perfatlas", *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_sqlite_end_to_end(sqlite_env: dict[str, str], tmp_path: Path) -> None:
    assert "up to date (sqlite)" in cli(sqlite_env, "migrate")
    assert (tmp_path / "data" / "perfatlas.db").is_file()
    token = cli(sqlite_env, "token", "create", "--scope", "upload", "--name", "smoke", "-q").strip()
    assert token.startswith("pa_")
    settings = Settings(data_dir=tmp_path / "data")
    assert settings.effective_database_url.startswith("sqlite:///")
    headers = {"Authorization": f"Bearer {token}"}
    runs = [
        run_body(parameters={"k": k, "segsize": 131072}, workload="partialread",
                 labels={"version": version},
                 results=[result("read.mb_per_s", [k * 1.0 + i for i in range(3)], unit="MB/s")])
        for version in ("1.7.1", "1.8.2") for k in (3, 10)
    ]  # fmt: skip
    safe, unsafe = run_body(fsync_policy="file"), run_body(fsync_policy="none", sync_mount=True)
    with TestClient(create_app(settings)) as client:
        assert (
            client.post("/api/v1/runs/batch", json={"runs": runs}, headers=headers).json()[
                "created"
            ]
            == 4
        )
        assert (
            client.post("/api/v1/runs/batch", json={"runs": runs}, headers=headers).json()[
                "existing"
            ]
            == 4
        )
        assert client.post("/api/v1/runs", json=safe, headers=headers).status_code == 201
        assert client.post("/api/v1/runs", json=unsafe, headers=headers).status_code == 201
        listed = client.get("/api/v1/runs", headers=headers).json()
        assert len(listed["items"]) == 6 and listed["total"] == 6
        one = client.get("/api/v1/runs", params={"limit": 1}, headers=headers).json()
        assert one["total"] == 6 and one["next_cursor"]
        for workload, n in (("partialread", 4), ("smallfile", 2)):  # the retry counted once
            some = client.get("/api/v1/runs", params={"workload": workload}, headers=headers)
            assert some.json()["total"] == len(some.json()["items"]) == n
        walked = client.get("/api/v1/series", params={"limit": 1}, headers=headers).json()
        assert walked["total"] == len(client.get("/api/v1/series", headers=headers).json()["items"])
        params = {
            "workload": "partialread",
            "metric": "read.mb_per_s",
            "x": "k",
            "group": "version",
        }
        data = client.get("/api/v1/explore", params=params, headers=headers).json()
        assert [t["group"] for t in data["traces"]] == ["1.7.1", "1.8.2"]
        assert [p["x"] for p in data["traces"][0]["points"]] == [3, 10]
        assert data["traces"][0]["points"][0]["median"] == 4.0
        filtered = client.get(
            "/api/v1/explore", params={**params, "filter": "param.segsize:131072"}, headers=headers
        ).json()
        assert filtered["traces"] == data["traces"]
        bools = client.get("/api/v1/runs", params={"param": "fsync:false"}, headers=headers).json()
        assert len(bools["items"]) == 2
        compare = client.get(
            "/api/v1/compare", params={"runs": [safe["uuid"], unsafe["uuid"]]}, headers=headers
        ).json()
        assert compare["durability_differs"] is True
        series = client.get("/api/v1/series", headers=headers).json()["items"]
        points = client.get(f"/api/v1/series/{series[0]['id']}/points", headers=headers).json()
        assert len(points["value"]) >= 1
        narrow = client.get(
            f"/api/v1/series/{series[0]['id']}/points",
            params={"fields": "run,p5,p95", "samples": True},
            headers=headers,
        ).json()
        assert set(narrow) == {"series", "older", "t", "value", "run", "p5", "p95", "samples"}
        assert narrow["run"] == points["run"] and narrow["t"] == points["t"]
        catalog = client.get("/api/v1/catalog", headers=headers).json()
        partial = next(w for w in catalog["workloads"] if w["name"] == "partialread")
        assert partial["parameters"]["k"] == [3, 10]
        assert partial["labels"]["version"] == ["1.7.1", "1.8.2"]
        assert client.get("/api/v1/agents", headers=headers).json()[0]["runs"] == 6


@pytest.mark.slow  # `perfatlas serve --with-worker` as a process
def test_serve_with_worker_detects_a_step_on_the_embedded_broker(
    sqlite_env: dict[str, str], tmp_path: Path
) -> None:
    """What `make up` runs: `perfatlas serve --with-worker` on SQLite, with the broker kept in
    a SQLite file; an upload with a step opens an alert through the worker, and the worker
    goes when the server goes."""
    import random
    import signal
    import socket
    import time

    import httpx

    from tests.factories import STEP, daily_runs

    cli(sqlite_env, "migrate")
    token = cli(sqlite_env, "token", "create", "--scope", "upload", "-q").strip()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**sqlite_env, "PERFATLAS_PORT": str(port)}
    log = (tmp_path / "serve.log").open("wb")
    serve = subprocess.Popen(
        [sys.executable, "-m", "perfatlas", "serve", "--no-migrate", "--with-worker"],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}/api/v1"
    headers = {"Authorization": f"Bearer {token}"}
    worker_log = tmp_path / "data" / "worker.log"
    try:
        deadline = time.monotonic() + patient(60)
        while not _answers(f"{base}/health") or "ready." not in (
            worker_log.read_text() if worker_log.exists() else ""
        ):
            assert serve.poll() is None, (tmp_path / "serve.log").read_text()
            assert time.monotonic() < deadline, "the server and worker did not start within 60 s"
            time.sleep(0.2)
        rng = random.Random(7)
        runs = daily_runs(STEP, rng)
        upload = httpx.post(f"{base}/runs/batch", json={"runs": runs}, headers=headers)
        assert upload.status_code == 200, upload.text
        deadline = time.monotonic() + patient(30)
        while not (alerts := httpx.get(f"{base}/alerts", headers=headers).json()["items"]):
            assert time.monotonic() < deadline, worker_log.read_text()[-3000:]
            time.sleep(0.2)
        (alert,) = alerts
        assert alert["change_run"]["uuid"] == runs[15]["uuid"]
        assert alert["change_pct"] < -15
        assert "Connected to sqla+sqlite:" in worker_log.read_text()
        # The embedded worker also folded the runs into explore's rollups: nothing pending,
        # and explore's point is the plain median and count of the runs.
        import sqlite3
        import statistics

        database = Settings(data_dir=tmp_path / "data").effective_database_url
        path = database.removeprefix("sqlite:///")
        deadline = time.monotonic() + patient(30)
        while True:
            with sqlite3.connect(path) as conn:
                pending = conn.execute("SELECT count(*) FROM rollup_pending").fetchone()[0]
                folded = conn.execute("SELECT sum(count) FROM explore_rollups").fetchone()[0]
            if pending == 0:
                break
            assert time.monotonic() < deadline, worker_log.read_text()[-3000:]
            time.sleep(0.2)
        assert folded == len(runs)
        explore = httpx.get(
            f"{base}/explore", headers=headers,
            params={"workload": "smallfile", "metric": "create.ops_per_s", "x": "agent"},
        ).json()  # fmt: skip
        (point,) = [p for t in explore["traces"] for p in t["points"]]
        values = [statistics.median(r["results"][0]["samples"]) for r in runs]
        assert point["n"] == len(runs)
        assert point["median"] == pytest.approx(statistics.median(values), rel=1e-12)
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=20)
        log.close()
    # The worker follows the server out.
    deadline = time.monotonic() + patient(20)
    while "Warm shutdown" not in worker_log.read_text():
        assert time.monotonic() < deadline, "the worker outlived perfatlas serve"
        time.sleep(0.2)


def _answers(url: str) -> bool:
    import httpx

    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.TransportError:
        return False


def test_the_embedded_broker_is_made_before_the_processes_that_use_it(tmp_path: Path) -> None:
    """kombu makes a queue's row on a process's first use, guarded only within the process: on
    a fresh database the worker's first declaration and the server's first send both inserted
    the row, and the worker died at start (UNIQUE constraint failed: kombu_queue.name).
    `perfatlas serve` and `perfatlas worker` make the tables and every queue's row first, so
    that a later first use finds its row and inserts none; making them again changes nothing."""
    import sqlite3

    from perfatlas.worker.celery_app import make_celery, prepare_broker

    settings = Settings(data_dir=tmp_path / "data", queue="race")
    settings.data_dir.mkdir(parents=True)
    path = settings.effective_broker_url.removeprefix("sqla+sqlite:///")
    prepare_broker(settings)
    prepare_broker(settings)
    with sqlite3.connect(path) as conn:
        queues = sorted(name for (name,) in conn.execute("SELECT name FROM kombu_queue"))
    assert queues == ["race", "race.notify"]
    # A process's first send now finds its queue's row: one message, no new row.
    app = make_celery(settings)
    with app.connection_for_write() as connection:
        app.send_task("perfatlas.nothing", queue="race", connection=connection)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM kombu_queue").fetchone()[0] == 2
        assert conn.execute("SELECT count(*) FROM kombu_message").fetchone()[0] == 1
