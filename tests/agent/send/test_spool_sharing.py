"""The spool against a real server: one run that makes the server fail does not hold back the
others, and agent processes sharing one spool each report (and send) only their own runs."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from tests.agent.conftest import agent_cmd, run_agent
from tests.agent.http_helpers import PoisonProxy
from tests.agent.send.test_upload import new_agent, quick_runs, spooled, stored_counts
from tests.conftest import patient


def upload_via(server: str, live: Any, spool: Path) -> Any:
    return run_agent("upload", "--server", server, "--token", live.upload_token,
                     "--retry-deadline", "30", spool=spool)  # fmt: skip


def test_a_run_the_server_fails_on_is_kept_and_the_others_delivered(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("poison")
    assert quick_runs(tmp_path, spool, agent, ks="1,2,3,4,5,6").returncode == 0
    runs = [p.stem for p in spool.glob("*.json")]
    assert len(runs) == 6
    poison = runs[3]
    proxy = PoisonProxy(live_server.url, poison)
    try:
        res = upload_via(proxy.url, live_server, spool)
        assert res.returncode == 1, res.stderr  # a run is left in the spool
        assert f"KEPT {poison}" in res.stderr and "broke the test server" in res.stderr
        assert "uploaded 5 run(s)" in res.stderr
        assert stored_counts(live_server, agent) == Counter({u: 1 for u in runs if u != poison})
        assert [p.stem for p in spooled(spool)] == [poison]
        note = (spool / "errors" / f"{poison}.txt").read_text()
        assert "HTTP 500" in note and "broke the test server" in note
        status = run_agent("status", spool=spool)
        assert status.returncode == 0
        assert "1 run(s) waiting" in status.stdout and poison in status.stdout
        assert "the server failed on it: HTTP 500" in status.stdout

        # Next time it goes last and alone, after the new runs, which are not held back.
        assert quick_runs(tmp_path, spool, agent, ks="7,8").returncode == 0
        proxy.poisoned = 0
        proxy.batch_sizes.clear()
        again = upload_via(proxy.url, live_server, spool)
        assert again.returncode == 1 and "uploaded 2 run(s)" in again.stderr
        assert proxy.batch_sizes[0] == 2, "the new runs in one batch, without the failing one"
        assert set(proxy.batch_sizes[1:]) == {1} and proxy.poisoned == len(proxy.batch_sizes) - 1
        assert [p.stem for p in spooled(spool)] == [poison]
    finally:
        proxy.close()
    # The server is fixed: the kept run is delivered, and its note goes with it.
    fixed = upload_via(live_server.url, live_server, spool)
    assert fixed.returncode == 0, fixed.stderr
    assert spooled(spool) == [] and not (spool / "errors" / f"{poison}.txt").exists()
    seen = stored_counts(live_server, agent)
    assert len(seen) == 8 and set(seen.values()) == {1}


def test_invocations_sharing_a_spool_report_only_their_own_runs(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent_a, agent_b = new_agent("share-a"), new_agent("share-b")
    gate = tmp_path / "gate"
    server = ["--server", live_server.url, "--token", live_server.upload_token]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_AGENT_SPOOL"] = str(spool)
    # A: its first run is spooled at once; its second waits for the gate.
    wait = f"[ {{k}} = 1 ] || while [ ! -e {gate} ]; do sleep 0.05; done"
    a = subprocess.Popen(
        agent_cmd("run", "command", "--target", str(tmp_path / "a"), "-p",
                  f"cmd={wait}; echo '{{\"x.seconds\": {{k}}}}'", "-p", "k=1,2", "-n", "1",
                  "--no-warmup", "--agent-name", agent_a, *server),
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + patient(60)
        while not spooled(spool) and a.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        (a_first,) = [p.stem for p in spooled(spool)]
        # B runs to the end while A is still running, on the same spool.
        b = quick_runs(tmp_path, spool, agent_b, *server, ks="1,2,3")
        assert b.returncode == 0, b.stderr
        assert "uploaded 3 run(s) of this invocation" in b.stderr and "(3 new," in b.stderr
        assert "also uploaded" not in b.stderr
        assert f"belong to a running perfatlas-agent (pid {a.pid})" in b.stderr
        assert [p.stem for p in spooled(spool)] == [a_first], "B left A's run to A"
        assert stored_counts(live_server, agent_a) == Counter()
        gate.touch()
        _, a_err = a.communicate(timeout=120)
    finally:
        gate.touch()
        if a.poll() is None:
            a.kill()
    assert a.returncode == 0, a_err
    assert "uploaded 2 run(s) of this invocation" in a_err and "(2 new," in a_err
    assert "also uploaded" not in a_err
    assert spooled(spool) == []
    assert len(stored_counts(live_server, agent_a)) == 2
    assert len(stored_counts(live_server, agent_b)) == 3
    # A run left by an earlier invocation (no server then) is sent by the next one, and
    # reported as not its own.
    agent_c = new_agent("share-c")
    assert quick_runs(tmp_path, spool, agent_c, ks="1").returncode == 0
    c = quick_runs(tmp_path, spool, agent_c, *server, ks="2")
    assert c.returncode == 0, c.stderr
    assert "uploaded 1 run(s) of this invocation" in c.stderr
    assert "also uploaded 1 run(s) left in the spool by earlier invocations" in c.stderr
    assert len(stored_counts(live_server, agent_c)) == 2 and spooled(spool) == []
    assert not list((spool / ".owners").glob("*.lock")), "every claim was released"
    assert uuid.UUID(a_first)
