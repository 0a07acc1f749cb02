"""The spool and the upload client against the real server (`live_server`), faults by FaultProxy.

live_server's database is shared by the whole session, so every test gives its runs an agent
name of its own and reads back only that agent's runs."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from tests.agent.conftest import AgentResult, run_agent
from tests.agent.http_helpers import FaultProxy

QUICK = ["-p", "cmd=echo '{\"answer.seconds\": {k}}'", "-n", "1", "--no-warmup"]


def new_agent(kind: str) -> str:
    return f"upload-{kind}-{uuid.uuid4().hex[:8]}"


def quick_runs(
    tmp_path: Path, spool: Path, agent: str, *extra: str, ks: str = "1,2,3"
) -> AgentResult:
    target = tmp_path / f"t-{uuid.uuid4().hex[:6]}"
    return run_agent("run", "command", "--target", str(target), *QUICK, "-p", f"k={ks}",
                     "--agent-name", agent, *extra, spool=spool)  # fmt: skip


def upload(live: Any, spool: Path, *args: str, server: str | None = None) -> AgentResult:
    return run_agent("upload", *args, "--server", server or live.url,
                     "--token", live.upload_token, spool=spool)  # fmt: skip


def server_runs(live: Any, agent: str) -> dict[str, list[dict[str, Any]]]:
    """Every run of `agent` the server stores (all pages), by uuid: one entry per stored copy."""
    found: dict[str, list[dict[str, Any]]] = {}
    headers = {"Authorization": f"Bearer {live.read_token}"}
    params = {"agent": agent, "limit": "500"}
    while True:
        resp = httpx.get(f"{live.url}/api/v1/runs", params=params, headers=headers, timeout=10)
        resp.raise_for_status()
        page = resp.json()
        for item in page["items"]:
            assert item["agent"] == agent
            found.setdefault(item["uuid"], []).append(item)
        if not page.get("next_cursor"):
            return found
        params = {**params, "cursor": str(page["next_cursor"])}


def stored_counts(live: Any, agent: str) -> Counter[str]:
    return Counter({u: len(copies) for u, copies in server_runs(live, agent).items()})


def spooled(spool: Path) -> list[Path]:
    return sorted(spool.glob("*.json"))


def test_server_errors_are_retried_and_each_run_arrives_once(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("retry")
    proxy = FaultProxy(live_server.url, fail_first=3)
    try:
        out = tmp_path / "runs.json"
        res = quick_runs(tmp_path, spool, agent, "--output", str(out),
                         "--server", proxy.url, "--token", live_server.upload_token)  # fmt: skip
    finally:
        proxy.close()
    assert res.returncode == 0, res.stderr
    assert proxy.failed == 3 and "retrying" in res.stderr
    seen = stored_counts(live_server, agent)
    assert sorted(seen) == sorted(r["uuid"] for r in res.runs) and len(seen) == 3
    assert set(seen.values()) == {1}
    assert spooled(spool) == []


def test_no_server_keeps_runs_in_the_spool_until_upload(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("later")
    res = quick_runs(tmp_path, spool, agent)
    assert res.returncode == 0, res.stderr
    assert "perfatlas-agent upload" in res.stderr
    waiting = {p.stem for p in spooled(spool)}
    assert len(waiting) == 3
    assert stored_counts(live_server, agent) == Counter()
    up = upload(live_server, spool)
    assert up.returncode == 0, up.stderr
    assert "3 new" in up.stderr and spooled(spool) == []
    seen = stored_counts(live_server, agent)
    assert set(seen) == waiting and set(seen.values()) == {1}
    again = upload(live_server, spool)
    assert again.returncode == 0 and "nothing to upload" in again.stderr
    assert stored_counts(live_server, agent) == seen


def test_server_down_until_deadline_leaves_runs_spooled(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("down")
    proxy = FaultProxy(live_server.url)
    proxy.close()  # the way to the server is down: nothing listens at proxy.url any more
    assert quick_runs(tmp_path, spool, agent).returncode == 0  # no server: spooled
    res = run_agent("upload", "--server", proxy.url, "--token", live_server.upload_token,
                    "--retry-deadline", "1", spool=spool)  # fmt: skip
    assert res.returncode == 1
    assert "3 run(s) remain in the spool" in res.stderr
    assert len(spooled(spool)) == 3
    assert stored_counts(live_server, agent) == Counter()


def test_unreachable_server_stops_a_run_before_it_starts(tmp_path: Path, spool: Path) -> None:
    proxy = FaultProxy("http://127.0.0.1:9")
    proxy.close()
    target = tmp_path / "never"
    res = run_agent("run", "command", "--target", str(target), *QUICK, "-p", "k=1",
                    "--server", proxy.url, "--token", "pa_x", spool=spool)  # fmt: skip
    assert res.returncode == 1
    assert "cannot reach the server" in res.stderr and "nothing was run" in res.stderr
    assert not target.exists() and spooled(spool) == []


def test_validation_error_moves_only_the_bad_run_to_rejected(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("invalid")
    assert quick_runs(tmp_path, spool, agent, ks="1,2").returncode == 0
    good_path, bad_path = spooled(spool)
    bad: dict[str, Any] = json.loads(bad_path.read_text())
    bad["results"][0]["unit"] = "furlongs"
    bad_path.write_text(json.dumps(bad))
    res = upload(live_server, spool)
    assert res.returncode == 3
    assert "REJECTED" in res.stderr and "furlongs" in res.stderr and "unit" in res.stderr
    assert "422" in res.stderr
    assert stored_counts(live_server, agent) == Counter({good_path.stem: 1})
    assert spooled(spool) == []
    assert [p.name for p in (spool / "rejected").glob("*.json")] == [bad_path.name]
    reason = (spool / "rejected" / f"{bad_path.stem}.reason.txt").read_text()
    assert "furlongs" in reason and "known units" in reason, "the server's own message"
    again = upload(live_server, spool)
    assert again.returncode == 0 and "nothing to upload" in again.stderr
    assert stored_counts(live_server, agent) == Counter({good_path.stem: 1}), "not retried"


def test_same_uuid_other_body_is_a_loud_conflict(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("conflict")
    out = tmp_path / "runs.json"
    server = ["--server", live_server.url, "--token", live_server.upload_token]
    res = quick_runs(tmp_path, spool, agent, "--output", str(out), *server, ks="1")
    assert res.returncode == 0, res.stderr
    (original,) = res.runs
    assert spooled(spool) == [], "delivered, so no longer spooled"
    # The same uuid spooled again with another body: the server refuses it.
    path = spool / f"{original['uuid']}.json"
    path.write_text(json.dumps({**original, "labels": {**original["labels"], "changed": "yes"}}))
    res = upload(live_server, spool)
    assert res.returncode == 3
    assert "409" in res.stderr and "agent bug" in res.stderr
    assert [p.name for p in (spool / "rejected").glob("*.json")] == [path.name]
    assert spooled(spool) == []
    stored = server_runs(live_server, agent)
    assert list(stored) == [original["uuid"]] and len(stored[original["uuid"]]) == 1
    assert "changed" not in stored[original["uuid"]][0]["labels"], "the first body stays"


def test_bad_token_stops_a_run_before_any_workload_file(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("token")
    target = tmp_path / "t"
    # A workload that would leave a mark in the target if it ever ran.
    res = run_agent("run", "smallfile", "--target", str(target), "-p", "nfiles=10", "-n", "1",
                    "--agent-name", agent, "--server", live_server.url, "--token", "pa_wrong",
                    spool=spool)  # fmt: skip
    assert res.returncode == 4
    assert "refused the token" in res.stderr and "401" in res.stderr
    assert "Nothing was run" in res.stderr
    assert not target.exists(), "the check comes before the target is even made"
    assert spooled(spool) == []
    assert stored_counts(live_server, agent) == Counter()


def test_bad_token_on_upload_keeps_the_spool(live_server: Any, tmp_path: Path, spool: Path) -> None:
    agent = new_agent("token-upload")
    assert quick_runs(tmp_path, spool, agent).returncode == 0
    res = run_agent("upload", "--server", live_server.url, "--token", "wrong", spool=spool)
    assert res.returncode == 4
    assert "token" in res.stderr and "401" in res.stderr
    assert len(spooled(spool)) == 3
    assert stored_counts(live_server, agent) == Counter()


def test_upload_file_twice_never_duplicates(live_server: Any, tmp_path: Path, spool: Path) -> None:
    agent = new_agent("twice")
    out = tmp_path / "runs.json"
    res = quick_runs(tmp_path, spool, agent, "--output", str(out))
    assert res.returncode == 0 and spooled(spool) == [], "--output without a server: file only"
    first = upload(live_server, spool, str(out))
    assert first.returncode == 0, first.stderr
    assert "3 new" in first.stderr
    again = upload(live_server, spool, str(out))
    assert again.returncode == 0, again.stderr
    assert "3 already there" in again.stderr
    seen = stored_counts(live_server, agent)
    assert sorted(seen) == sorted(r["uuid"] for r in res.runs)
    assert set(seen.values()) == {1}
