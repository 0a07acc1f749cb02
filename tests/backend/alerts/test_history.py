"""What a check reads of each series (alerts/history.py), against the uploads themselves: the
newest `window` points (or the newest before a time), oldest first (runs started at the same
moment in id order), a run's
samples or its value alone, a series without points empty; on PostgreSQL (one statement for
the lot) and SQLite (a statement a series) alike. That reference figures stay out is
references/test_api.py's."""

from __future__ import annotations

import datetime as dt
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from perfatlas.alerts import history
from perfatlas.core.config import Settings
from perfatlas.core.db import make_engine, session_factory
from perfatlas.main import create_app
from perfatlas.runs.models import Run, Series
from tests.factories import BASE_TIME, result, run_body

METRICS = ("create.ops_per_s", "stat.ops_per_s")
WINDOW = 7


def bodies() -> list[dict[str, Any]]:
    """Two agents' runs of two metrics, out of time order, some at the same moment; one metric
    of some runs as a value without samples."""
    rng = random.Random(5)
    runs = []
    for agent, count in (("host-a", 12), ("host-b", 5)):
        for i in range(count):
            # Runs 9 and 10 of host-a start together: their order is their ids'.
            minutes = 9 if agent == "host-a" and i == 10 else i
            results = [
                result(METRICS[0], [rng.uniform(90, 110) for _ in range(rng.randint(1, 4))]),
                {"metric": METRICS[1], "unit": "ops/s", "value": rng.uniform(10, 20)}
                if i % 3 == 0
                else result(METRICS[1], [rng.uniform(10, 20) for _ in range(3)]),
            ]
            started = BASE_TIME + dt.timedelta(minutes=minutes)
            runs.append(run_body(agent=agent, started_at=started.isoformat(), results=results))
    rng.shuffle(runs)
    return runs


def expected(
    engine: Engine, runs: list[dict[str, Any]], until: dt.datetime | None = None
) -> dict[tuple[str, str], list[Any]]:
    """Per (agent, metric): (run id, start, samples or [value]) of the newest WINDOW runs (that
    started before `until`), oldest first, from the bodies (the run ids read back by uuid)."""
    with session_factory(engine)() as session:
        ids = {str(u): i for u, i in session.execute(select(Run.uuid, Run.id))}
    out: dict[tuple[str, str], list[Any]] = {}
    for body in runs:
        for res in body["results"]:
            started = dt.datetime.fromisoformat(body["started_at"]).astimezone(dt.UTC)
            if until is not None and started >= until:
                continue
            point = (ids[body["uuid"]], started, res.get("samples") or [res["value"]])
            out.setdefault((body["agent"], res["metric"]), []).append(point)
    return {
        key: sorted(points, key=lambda p: (p[1], p[0]))[-WINDOW:] for key, points in out.items()
    }


def check_windows(engine: Engine, runs: list[dict[str, Any]]) -> None:
    for until in (None, BASE_TIME + dt.timedelta(minutes=9), BASE_TIME + dt.timedelta(minutes=3)):
        _check_windows(engine, runs, until)


def _check_windows(engine: Engine, runs: list[dict[str, Any]], until: dt.datetime | None) -> None:
    # A window further back ends before `until`: before the two runs that share minute 9, and
    # with fewer than WINDOW runs before minute 3.
    want = expected(engine, runs, until)
    with session_factory(engine)() as session:
        series = {
            (s.agent.name, s.metric): s.id
            for s in session.scalars(select(Series).where(Series.workload == "smallfile"))
        }
        assert set(series) == set(want)
        missing = max(series.values()) + 1000
        windows = history.load_windows(session, [*series.values(), missing], WINDOW, until)
        assert windows[missing].run_ids == [] and windows[missing].points() == []
        for key, series_id in series.items():
            window = windows[series_id]
            got = list(zip(window.run_ids, window.started, window.samples, strict=True))
            got = [(r, t.astimezone(dt.UTC) if t.tzinfo else t.replace(tzinfo=dt.UTC), s)
                   for r, t, s in got]  # fmt: skip
            assert got == want[key], (key, until)
            # The points of a series to reconcile: the same, in UTC; `complete` adds their runs'
            # labels (a check reads them only next to a change: detection._with_causes).
            points = history.load_points(session, series_id, WINDOW, until)
            assert [(p.run_id, p.started_at, p.samples) for p in points] == want[key]
            assert all(p.started_at.tzinfo is dt.UTC and p.labels == {} for p in points)
            history.complete(session, [points])
            assert all(p.labels == {"fs_version": "6.1", "mode": "connected"} for p in points)


def test_windows_on_postgresql_are_the_uploads_newest_points(
    client: TestClient, engine: Engine, upload_headers: dict[str, str]
) -> None:
    runs = bodies()
    response = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert response.status_code == 200, response.text
    check_windows(engine, runs)


def test_windows_on_sqlite_are_the_uploads_newest_points(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_DATA_DIR"] = str(tmp_path / "data")
    command = [sys.executable, "-m", "perfatlas"]
    subprocess.run([*command, "migrate"], env=env, check=True, capture_output=True)
    token = subprocess.run(
        [*command, "token", "create", "--scope", "upload", "--name", "t", "-q"],
        env=env, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    settings = Settings(data_dir=tmp_path / "data")
    runs = bodies()
    with TestClient(create_app(settings)) as client:
        response = client.post(
            "/api/v1/runs/batch", json={"runs": runs}, headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 200, response.text
    engine = make_engine(settings.effective_database_url)
    try:
        check_windows(engine, runs)
    finally:
        engine.dispose()
