"""`perfatlas export` and `perfatlas import`: a database with runs, results, an attachment,
rollups, a report, alerts and their incident, a channel and its notifications, and a schedule goes PostgreSQL → archive → SQLite → archive → PostgreSQL, and each archive holds the
same rows; the SQLite server answers as the PostgreSQL one did; nothing secret goes along."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from perfatlas.alerts.service import check_all
from perfatlas.auth.service import create_token
from perfatlas.backup.archive import LEFT_OUT, export_archive, import_archive, tables
from perfatlas.cli import run_migrations
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.errors import Conflict, Invalid
from perfatlas.main import create_app
from perfatlas.notifications.models import Channel
from perfatlas.rollups.service import fold_pending
from tests.databases import create_database, drop_database
from tests.factories import at, noisy, result, run_body

# The CLI's export and import, and a server on SQLite, as processes.
pytestmark = pytest.mark.slow


def _seed(client: TestClient, engine: Engine, settings: Settings, headers: dict[str, str]) -> str:
    rng = random.Random(5)
    runs = [
        run_body(
            agent=agent, target=target, parameters={"nfiles": 1000, "fsync": fsync},
            labels={"fs_version": version},
            started_at=at(days=day),
            results=[result("create.ops_per_s", noisy(rng, level)),
                     result("stat.ops_per_s", noisy(rng, 2 * level))],
        )
        for agent in ("lab-1", "lab-2")
        for target, fsync in (("/mnt/ext4", "file"), ("/mnt/xfs", "none"))
        for day, (version, level) in enumerate([("2.1.9", 1000.0)] * 12 + [("2.1.10", 800.0)] * 8)
    ]  # fmt: skip
    assert (
        client.post("/api/v1/runs/batch", json={"runs": runs}, headers=headers).status_code == 200
    )
    blob = bytes(range(256)) * 10 + b"\x00\xff"
    put = client.put(f"/api/v1/runs/{runs[0]['uuid']}/attachments/latencies.bin", content=blob,
                     headers={**headers, "Content-Type": "application/octet-stream"})  # fmt: skip
    assert put.status_code == 201, put.text
    report = {"slug": "kept", "title": "Kept", "notes": "# café ✓",
              "blocks": [{"kind": "explore", "workload": "smallfile", "metric": "create.ops_per_s",
                          "x": "label.fs_version", "group": "agent"}]}  # fmt: skip
    assert client.post("/api/v1/reports", json=report, headers=headers).status_code == 201
    schedule = {"name": "nightly", "spec": {"workload": "smallfile", "targets": ["/mnt/ext4"]},
                "agents": ["*"], "when": "cron:0 3 * * *"}  # fmt: skip
    made = client.post("/api/v1/schedules", json=schedule, headers=headers)
    assert made.status_code == 201, made.text
    with Session(engine) as session:
        session.add(Channel(name="team", kind="webhook", target="http://127.0.0.1:9/h"))
        session.commit()
        fold_pending(session)
        check_all(session, settings=settings, window=200)
        session.commit()
    return runs[0]["uuid"]


def _content(path: Path) -> dict[str, list[str]]:
    """Each table's rows, canonical and sorted: what two archives must agree on."""
    with zipfile.ZipFile(path) as zf:
        return {
            t.name: sorted(
                json.dumps(json.loads(line), sort_keys=True)
                for line in zf.read(f"tables/{t.name}.jsonl").splitlines()
            )
            for t in tables()
        }


def test_a_round_trip_through_sqlite_keeps_every_row(
    client: TestClient, engine: Engine, settings: Settings, tmp_path: Path,
    tokens: Any,
) -> None:  # fmt: skip
    admin = {"Authorization": f"Bearer {tokens.admin}"}
    first_uuid = _seed(client, engine, settings, admin)
    pg_archive = tmp_path / "pg.zip"
    counts = export_archive(engine, pg_archive)
    for name in ("runs", "results", "attachments", "reports", "alerts", "incidents", "schedules",
                 "notification_channels", "notifications", "explore_rollups", "agents"):  # fmt: skip
        assert counts[name] > 0, name
    assert counts["runs"] == 80 and counts["results"] == 160
    assert not LEFT_OUT & set(counts)
    # Nothing secret: no token or its hash, and the agents come back unenrolled.
    raw = zipfile.ZipFile(pg_archive).read("tables/agents.jsonl").decode()
    assert tokens.admin not in raw and "token_hash" not in raw
    assert all(json.loads(line)["enrolled_at"] is None for line in raw.splitlines())

    # Into the embedded default: SQLite.
    lite_url = f"sqlite:///{tmp_path / 'lite.db'}"
    run_migrations(lite_url)
    lite = get_engine(lite_url)
    assert import_archive(lite, pg_archive) == counts
    lite_archive = tmp_path / "lite.zip"
    export_archive(lite, lite_archive)
    assert _content(lite_archive) == _content(pg_archive)

    # The SQLite server answers what the PostgreSQL one did.
    with session_factory(lite)() as session:
        lite_token = create_token(session, name="after-import", scope="admin")[1]
    lite_settings = Settings(database_url=lite_url, broker_url="memory://",
                             detect_on_ingest=False)  # fmt: skip
    questions = [
        ("/api/v1/runs", {"limit": 200}),
        (
            "/api/v1/explore",
            {
                "workload": "smallfile",
                "metric": "create.ops_per_s",
                "x": "label.fs_version",
                "group": "agent",
            },
        ),
        ("/api/v1/alerts", {}),
        ("/api/v1/reports/kept/data", {}),
        (f"/api/v1/runs/{first_uuid}/attachments/latencies.bin", {}),
    ]
    with TestClient(create_app(lite_settings)) as lite_client:
        lite_headers = {"Authorization": f"Bearer {lite_token}"}
        for path, params in questions:
            there = client.get(path, params=params, headers=admin)
            here = lite_client.get(path, params=params, headers=lite_headers)
            assert there.status_code == here.status_code == 200, (path, here.text)
            assert here.content == there.content or here.json() == there.json(), path

    # And on to PostgreSQL again: the way from `make up`'s SQLite to production.
    name = f"perfatlas_test_backup_{os.getpid()}"
    url = create_database(name)
    try:
        run_migrations(url)
        again = get_engine(url)
        done = subprocess.run(
            [sys.executable, "-m", "perfatlas", "import", str(lite_archive)],
            env={**os.environ, "PERFATLAS_DATABASE_URL": url}, capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert f"imported {sum(counts.values())} rows" in done.stdout
        back = tmp_path / "back.zip"
        export_archive(again, back)
        assert _content(back) == _content(pg_archive)
        # Ids go on after the imported ones: a new upload is stored, not refused.
        with session_factory(again)() as session:
            token = create_token(session, name="after", scope="upload")[1]
        with TestClient(create_app(Settings(database_url=url, broker_url="memory://"))) as c:
            stored = c.post("/api/v1/runs", json=run_body(),
                            headers={"Authorization": f"Bearer {token}"})  # fmt: skip
            assert stored.status_code == 201, stored.text
        # Not into a database that holds anything.
        with pytest.raises(Conflict):
            import_archive(again, pg_archive)
        again.dispose()
    finally:
        drop_database(name)


def test_a_damaged_or_foreign_archive_is_refused_with_nothing_written(
    engine: Engine, tmp_path: Path
) -> None:
    lite_url = f"sqlite:///{tmp_path / 'empty.db'}"
    run_migrations(lite_url)
    lite = get_engine(lite_url)
    good = tmp_path / "good.zip"
    export_archive(engine, good)  # the empty test database: every table, no rows
    damaged = tmp_path / "damaged.zip"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(damaged, "w") as dst:
        for item in src.namelist():
            data = src.read(item)
            if item == "tables/reports.jsonl":
                data = b'{"id": 1, "slug": "x", "title": "x", "notes": "", "blocks": []}\n'
            dst.writestr(item, data)
    with pytest.raises(Invalid, match="damaged"):
        import_archive(lite, damaged)
    not_zip = tmp_path / "runs.json"
    not_zip.write_text("{}")
    with pytest.raises(Invalid, match="cannot read"):
        import_archive(lite, not_zip)
    assert import_archive(lite, good) == {t.name: 0 for t in tables()}
