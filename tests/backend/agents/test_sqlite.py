"""Agents' last seen and version on the embedded SQLite database (PostgreSQL: runs/test_query.py)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from perfatlas.core.config import Settings
from perfatlas.main import create_app
from tests.factories import run_body

# The CLI as a process.
pytestmark = pytest.mark.slow


def test_last_seen_is_the_last_upload_and_version_the_newest_run(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_DATA_DIR"] = str(tmp_path / "data")
    subprocess.run([sys.executable, "-m", "perfatlas", "migrate"], env=env, check=True,
                   capture_output=True)  # fmt: skip
    token = subprocess.run(
        [sys.executable, "-m", "perfatlas", "token", "create", "--scope", "admin", "--name", "t",
         "-q"], env=env, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    headers = {"Authorization": f"Bearer {token}"}
    settings = Settings(data_dir=tmp_path / "data")
    with TestClient(create_app(settings)) as client:

        def post(version: str, started: str) -> None:
            body = run_body(agent="lab", agent_version=version, started_at=started)
            resp = client.post("/api/v1/runs/batch", json={"runs": [body]}, headers=headers)
            assert resp.status_code == 200, resp.text

        def agent() -> tuple[str, dt.datetime]:
            (one,) = client.get("/api/v1/agents", headers=headers).json()
            seen = dt.datetime.fromisoformat(one["last_seen_at"].replace("Z", "+00:00"))
            return one["version"], seen

        before = dt.datetime.now(dt.UTC)
        post("0.2.0", "2025-11-02T00:00:00+00:00")
        version, first = agent()
        assert version == "0.2.0" and first >= before, "the upload's time, not the run's"
        before = dt.datetime.now(dt.UTC)
        post("0.1.0", "2025-01-01T00:00:00+00:00")  # an old run, uploaded late
        version, second = agent()
        assert version == "0.2.0" and second >= before >= first
        post("0.3.0", "2025-12-01T00:00:00+00:00")
        assert agent()[0] == "0.3.0"
