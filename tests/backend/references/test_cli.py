"""`perfatlas reference import FILE.json` on the embedded SQLite database: the shipped seed 000
table becomes reference runs; the same file again is a retry; a bad file writes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from perfatlas.core.config import Settings
from perfatlas.main import create_app

# The CLI as a process.
pytestmark = pytest.mark.slow

TABLE = (
    Path(__file__).resolve().parents[3]
    / "backend" / "perfatlas" / "references" / "tables" / "seed000_coda_nfs_xfs.json"
)  # fmt: skip


def test_reference_import_from_the_command_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_DATA_DIR"] = str(tmp_path / "data")

    def perfatlas(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "perfatlas", *args], env=env,
                              capture_output=True, text=True)  # fmt: skip

    assert perfatlas("migrate").returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**json.loads(TABLE.read_text()), "source_url": "nowhere"}))
    refused = perfatlas("reference", "import", str(bad))
    assert refused.returncode == 2
    assert "source_url: Value error, must be an http:// or https:// URL" in refused.stderr
    first = perfatlas("reference", "import", str(TABLE))
    assert first.returncode == 0, first.stderr
    assert [line.split("\t")[1] for line in first.stdout.splitlines()] == ["stored"] * 3
    again = perfatlas("reference", "import", str(TABLE))
    assert [line.split("\t")[1] for line in again.stdout.splitlines()] == ["already stored"] * 3
    assert [line.split("\t")[0] for line in again.stdout.splitlines()] == [
        line.split("\t")[0] for line in first.stdout.splitlines()
    ]
    token = perfatlas("token", "create", "--scope", "read", "--name", "t", "-q").stdout.strip()
    headers = {"Authorization": f"Bearer {token}"}
    table = json.loads(TABLE.read_text())
    with TestClient(create_app(Settings(data_dir=tmp_path / "data"))) as client:
        runs = client.get("/api/v1/runs", params={"agent": "reference"}, headers=headers).json()
        assert len(runs["items"]) == 3 and all(r["reference"] for r in runs["items"])
        coda = next(r for r in runs["items"] if r["target"] == "coda")
        run = client.get(f"/api/v1/runs/{coda['uuid']}", headers=headers).json()
        values = {m["metric"]: m["value"] for m in run["results"]}
        assert values == {
            row["metric"]: row["values"][0] for row in table["rows"] if row["values"][0] is not None
        }
        assert values["delete.seconds"] == 70.704
        assert run["meta"]["source_url"] == table["source_url"]
