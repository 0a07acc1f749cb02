"""Fault tests against the real server: 500s, then recovery; SIGKILL between spool and upload."""

from __future__ import annotations

import os
import signal
import subprocess
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from tests.agent.conftest import agent_cmd, run_agent
from tests.agent.http_helpers import FaultProxy

QUICK = ["-p", "cmd=echo '{\"answer.seconds\": {k}}'", "-n", "1", "--no-warmup"]


def server_uuids(live: Any, agent: str) -> Counter[str]:
    """How many times each run of `agent` is stored on the server (every page)."""
    seen: Counter[str] = Counter()
    cursor: str | None = None
    headers = {"Authorization": f"Bearer {live.read_token}"}
    while True:
        params = {"limit": "200", **({"cursor": cursor} if cursor else {})}
        resp = httpx.get(f"{live.url}/api/v1/runs", params=params, headers=headers, timeout=10)
        resp.raise_for_status()
        page = resp.json()
        for item in page["items"]:
            if item["agent"] == agent:
                seen[item["uuid"]] += 1
        cursor = page.get("next_cursor")
        if not cursor:
            return seen


def test_500s_then_recovery_delivers_each_run_exactly_once(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent = f"fault-{uuid.uuid4().hex[:8]}"
    proxy = FaultProxy(live_server.url, fail_first=3)
    try:
        out = tmp_path / "runs.json"
        res = run_agent(
            "run", "command", "--target", str(tmp_path / "t"), *QUICK, "-p", "k=1,2,3,4,5",
            "--agent-name", agent, "--output", str(out),
            "--server", proxy.url, "--token", live_server.upload_token, spool=spool,
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
        assert proxy.failed == 3 and "retrying" in res.stderr
        # The same runs again, straight to the server: acknowledged, never stored twice.
        again = run_agent("upload", str(out), "--server", live_server.url,
                          "--token", live_server.upload_token, spool=spool)  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert "5 already there" in again.stderr
    finally:
        proxy.close()
    seen = server_uuids(live_server, agent)
    assert sorted(seen) == sorted(r["uuid"] for r in res.runs)
    assert set(seen.values()) == {1}
    assert not list(spool.glob("*.json"))


def _kill_during_upload(live: Any, tmp_path: Path, spool: Path, hang: str) -> tuple[str, Path]:
    agent = f"kill-{hang}-{uuid.uuid4().hex[:8]}"
    proxy = FaultProxy(live.url, hang=hang)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_AGENT_SPOOL"] = str(spool)
    proc = subprocess.Popen(
        agent_cmd("run", "command", "--target", str(tmp_path / "t"), *QUICK, "-p", "k=1,2",
                  "--agent-name", agent, "--server", proxy.url, "--token", live.upload_token),
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert proxy.got_request.wait(60), "the agent never tried to upload"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proxy.close()
    assert proc.returncode == -signal.SIGKILL
    return agent, spool


def test_sigkill_before_the_server_got_the_runs_loses_nothing(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent, spool = _kill_during_upload(live_server, tmp_path, spool, "before")
    assert len(list(spool.glob("*.json"))) == 2
    assert server_uuids(live_server, agent) == Counter()
    res = run_agent("upload", "--server", live_server.url, "--token", live_server.upload_token,
                    spool=spool)  # fmt: skip
    assert res.returncode == 0, res.stderr
    seen = server_uuids(live_server, agent)
    assert len(seen) == 2 and set(seen.values()) == {1}
    assert not list(spool.glob("*.json"))


def test_sigkill_after_the_server_stored_the_runs_never_duplicates(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent, spool = _kill_during_upload(live_server, tmp_path, spool, "after")
    assert len(list(spool.glob("*.json"))) == 2, "not acknowledged, so still spooled"
    res = run_agent("upload", "--server", live_server.url, "--token", live_server.upload_token,
                    spool=spool)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "2 already there" in res.stderr
    seen = server_uuids(live_server, agent)
    assert len(seen) == 2 and set(seen.values()) == {1}
