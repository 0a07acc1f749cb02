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
        assert len(listed["items"]) == 6
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
        catalog = client.get("/api/v1/catalog", headers=headers).json()
        partial = next(w for w in catalog["workloads"] if w["name"] == "partialread")
        assert partial["parameters"]["k"] == [3, 10]
        assert partial["labels"]["version"] == ["1.7.1", "1.8.2"]
        assert client.get("/api/v1/agents", headers=headers).json()[0]["runs"] == 6
