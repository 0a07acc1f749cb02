"""`command` parameters written with size suffixes are stored in bytes (a numeric, ordered axis)
and given to the command as written."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx

from perfatlas.core.measurement import RunBatchCreate
from tests.agent.conftest import run_agent


def test_size_suffixes_are_stored_as_bytes(live_server: Any, tmp_path: Path, spool: Path) -> None:
    agent = f"sizes-{uuid.uuid4().hex[:8]}"
    out = tmp_path / "runs.json"
    written = ["4k", "128k", "1M", "1G", "30B", "2KiB"]
    res = run_agent(
        "run", "command", "--target", str(tmp_path / "t"), "--output", str(out),
        "-p", "cmd=echo {segsize} >&2; echo '{\"x.seconds\": 1}'", "-p", f"segsize={','.join(written)}",
        "-p", "mode=fast", "-p", "k=3", "-n", "1", "--no-warmup", "--agent-name", agent,
        "--server", live_server.url, "--token", live_server.upload_token, spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    RunBatchCreate.model_validate({"runs": res.runs})
    expected = [4 << 10, 128 << 10, 1 << 20, 1 << 30, 30, 2 << 10]  # k = 1024, as sizes elsewhere
    assert [r["parameters"]["segsize"] for r in res.runs] == expected
    assert all(type(r["parameters"]["segsize"]) is int for r in res.runs)
    assert {(r["parameters"]["mode"], r["parameters"]["k"]) for r in res.runs} == {("fast", 3)}
    # The command saw the value as written; the run says so.
    assert [r["meta"]["stderr_tail"].strip() for r in res.runs] == written
    assert [r["meta"]["params_as_written"] for r in res.runs] == [{"segsize": w} for w in written]
    headers = {"Authorization": f"Bearer {live_server.read_token}"}
    stored = [
        httpx.get(f"{live_server.url}/api/v1/runs/{r['uuid']}", headers=headers, timeout=10).json()
        for r in res.runs
    ]
    assert [s["parameters"]["segsize"] for s in stored] == expected
    catalog = httpx.get(f"{live_server.url}/api/v1/catalog", params={"workload": "command"},
                        headers=headers, timeout=10).json()  # fmt: skip
    (command,) = catalog["workloads"]
    assert set(expected) <= set(command["parameters"]["segsize"])
    assert all(isinstance(v, int) for v in command["parameters"]["segsize"])
