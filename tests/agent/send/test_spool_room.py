"""A full spool never loses a measured run: no room is said before anything is measured; a
spool that fills during a run sends the run to the fallback spool, else holds it in memory and
sends it directly, else prints it; `upload FILE` into a small spool sends what fits, round after
round. Real small filesystems (tmpfs), the real server (`live_server`)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.agent.conftest import run_agent
from tests.agent.http_helpers import FaultProxy
from tests.agent.send.test_upload import new_agent, quick_runs, spooled, stored_counts, upload

MIB = 1024 * 1024
ECHO = """echo '{"answer.seconds": 1}'"""


def free_mib(path: Path) -> str:
    st = os.statvfs(path)
    return f"{st.f_bavail * st.f_frsize / MIB:.1f} MiB"


def bound_mib(runs: int, repetitions: int, attachments: bool) -> str:
    """The bound the README states: each run's JSON (256 KiB + 16 KiB a repetition, the
    warm-up counted), one run's attachments at their 4 MiB limit, and 256 KiB to spare."""
    need = runs * (256 + 16 * (repetitions + 1)) * 1024 + 256 * 1024
    return f"{(need + (4 * MIB if attachments else 0)) / MIB:.1f} MiB"


def leftovers(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.tmp"))


def base_run(tmp_path: Path, agent: str) -> dict[str, Any]:
    out = tmp_path / f"base-{uuid.uuid4().hex[:6]}.json"
    res = quick_runs(tmp_path, tmp_path / "base-spool", agent, "--output", str(out), ks="1")
    assert res.returncode == 0, res.stderr
    return res.runs[0]


def clones(run: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """n runs like run, each its own uuid and `k` (no attachments)."""
    made = []
    for i in range(n):
        one = copy.deepcopy(run)
        one["uuid"] = str(uuid.uuid4())
        one["parameters"]["k"] = i + 10
        one["meta"].pop("attachments", None)
        made.append(one)
    return made


def stored_attachments(live: Any, run_uuid: str) -> dict[str, bytes]:
    """name -> content of the files the server keeps with a run."""
    headers = {"Authorization": f"Bearer {live.read_token}"}
    resp = httpx.get(f"{live.url}/api/v1/runs/{run_uuid}/attachments", headers=headers, timeout=10)
    resp.raise_for_status()
    return {
        item["name"]: httpx.get(f"{live.url}{item['url']}", headers=headers, timeout=10).content
        for item in resp.json()["items"]
    }


@pytest.mark.parametrize(
    ("size", "ks", "room"), [("2m", "1", False), ("8m", "1", True), ("8m", ",".join(map(str, range(1, 21))), False)]
)  # fmt: skip
def test_no_room_in_the_spool_is_said_before_anything_is_measured(
    small_tmpfs: Any, tmp_path: Path, size: str, ks: str, room: bool
) -> None:
    mnt = small_tmpfs(size)
    spool = mnt / "spool"
    marker = tmp_path / "measured"
    target = tmp_path / "target"
    res = run_agent("run", "command", "--target", str(target), "-p", f"cmd=touch {marker}; {ECHO}",
                    "-p", f"k={ks}", "-n", "1", "--no-warmup", spool=spool)  # fmt: skip
    runs = len(ks.split(","))
    if room:
        assert res.returncode == 0, res.stderr
        assert marker.exists() and len(spooled(spool)) == runs
        return
    assert res.returncode == 6, res.stderr
    assert f"the spool {spool} has {free_mib(mnt)} free" in res.stderr
    assert f"the {runs} run(s) asked for may need up to {bound_mib(runs, 1, True)}" in res.stderr
    assert "nothing was run" in res.stderr
    assert not marker.exists() and not target.exists(), "nothing measured, the target untouched"
    assert list(mnt.rglob("*.json")) == [] and leftovers(mnt) == []


@pytest.mark.parametrize("fallback", ["usable", "unusable"])
def test_a_spool_that_fills_during_a_run_loses_nothing(
    live_server: Any, small_tmpfs: Any, tmp_path: Path, fallback: str
) -> None:
    """The command itself fills the spool's filesystem after the check: the run goes to the
    fallback spool, or (no fallback) is held in memory and sent directly, files included."""
    agent = new_agent(f"fill-{fallback}")
    mnt = small_tmpfs("6m")
    spool = mnt / "spool"
    if fallback == "usable":
        fb = tmp_path / "fallback"
    else:
        (tmp_path / "a-file").write_text("not a folder")
        fb = tmp_path / "a-file" / "fallback"
    fill = f"head -c 8000000 /dev/zero > {mnt}/filler 2>/dev/null; {ECHO}"
    res = run_agent("run", "command", "--target", str(tmp_path / "t"), "-p", f"cmd={fill}",
                    "-n", "1", "--no-warmup", "--agent-name", agent, "--server", live_server.url,
                    "--token", live_server.upload_token, spool=spool,
                    env={"PERFATLAS_AGENT_FALLBACK_SPOOL": str(fb)})  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "cannot write run" in res.stderr and "No space left on device" in res.stderr
    (stored,) = stored_counts(live_server, agent).items()
    assert stored[1] == 1
    if fallback == "usable":
        assert f"run {stored[0]} kept in the fallback spool {fb}" in res.stderr
        assert list(fb.glob("*.json")) == [] and leftovers(fb) == []
    else:
        assert f"run {stored[0]} held in memory" in res.stderr
        assert "delivered 1 run(s) held in memory" in res.stderr
    files = stored_attachments(live_server, stored[0])
    assert sorted(files) == ["command.txt", "stdout.txt"]
    assert files["stdout.txt"] == b'=== rep0 ===\n{"answer.seconds": 1}\n\n'
    assert b"head -c 8000000" in files["command.txt"]
    # The full spool holds no half of the run: no JSON, no files of a run it does not have.
    assert sorted(p.name for p in spool.iterdir()) == [".flush.lock", ".owners"]
    assert leftovers(mnt) == []


def test_a_run_neither_spool_can_take_is_printed_and_can_be_sent_later(
    live_server: Any, small_tmpfs: Any, tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("printed")
    mnt = small_tmpfs("6m")
    (tmp_path / "a-file").write_text("not a folder")
    fill = f"head -c 8000000 /dev/zero > {mnt}/filler 2>/dev/null; {ECHO}"
    res = run_agent("run", "command", "--target", str(tmp_path / "t"), "-p", f"cmd={fill}",
                    "-n", "1", "--no-warmup", "--agent-name", agent, spool=mnt / "spool",
                    env={"PERFATLAS_AGENT_FALLBACK_SPOOL": str(tmp_path / "a-file" / "fb")})  # fmt: skip
    assert res.returncode == 6, res.stderr
    assert "LOST UNLESS SAVED: 1 run(s)" in res.stderr
    line = res.stdout.strip().splitlines()[-1]
    (printed,) = json.loads(line)["runs"]
    assert printed["agent"] == agent and printed["workload"] == "command"
    saved = tmp_path / "saved.json"
    saved.write_text(line)
    assert stored_counts(live_server, agent) == Counter()
    up = upload(live_server, spool, str(saved))
    assert up.returncode == 0, up.stderr
    assert stored_counts(live_server, agent) == Counter({printed["uuid"]: 1})


def test_upload_of_a_large_file_into_a_small_spool_sends_it_all(
    live_server: Any, small_tmpfs: Any, tmp_path: Path
) -> None:
    agent = new_agent("bigfile")
    runs = clones(base_run(tmp_path, agent), 1300)
    big = tmp_path / "many.json"
    big.write_text(json.dumps({"runs": runs}))
    mnt = small_tmpfs("2m")
    spool = mnt / "spool"
    res = upload(live_server, spool, str(big))
    assert res.returncode == 0, res.stderr
    # A run takes a 4 KiB page of tmpfs: about 500 at a time fit in 2 MB.
    assert res.stderr.count("is full") >= 2, res.stderr
    assert stored_counts(live_server, agent) == Counter({r["uuid"]: 1 for r in runs})
    assert spooled(spool) == [] and leftovers(mnt) == []


def test_upload_of_a_large_file_with_the_server_down_says_what_was_left(
    live_server: Any, small_tmpfs: Any, tmp_path: Path
) -> None:
    agent = new_agent("bigfile-down")
    runs = clones(base_run(tmp_path, agent), 700)
    big = tmp_path / "many.json"
    big.write_text(json.dumps({"runs": runs}))
    mnt = small_tmpfs("2m")
    spool = mnt / "spool"
    proxy = FaultProxy(live_server.url)
    proxy.close()  # nothing listens there any more
    res = run_agent("upload", str(big), "--server", proxy.url, "--token", "pa_x",
                    "--retry-deadline", "1", spool=spool)  # fmt: skip
    assert res.returncode == 1, res.stderr
    queued = len(spooled(spool))
    assert 0 < queued < 700
    assert f"{700 - queued} of the 700 run(s) of {big} were not queued" in res.stderr
    assert f"{queued} run(s) remain in the spool" in res.stderr
    assert leftovers(mnt) == [], "a write that failed left no temporary file"
    assert {p.stem for p in spooled(spool)} == {r["uuid"] for r in runs[:queued]}, "in order"
    # Once the server is back, the same command sends everything, each run once.
    again = upload(live_server, spool, str(big))
    assert again.returncode == 0, again.stderr
    assert stored_counts(live_server, agent) == Counter({r["uuid"]: 1 for r in runs})
    assert spooled(spool) == [] and leftovers(mnt) == []


def test_runs_in_the_fallback_spool_are_listed_and_uploaded_later(
    live_server: Any, small_tmpfs: Any, tmp_path: Path
) -> None:
    agent = new_agent("fallback-later")
    mnt = small_tmpfs("6m")
    spool, fb = mnt / "spool", tmp_path / "fallback"
    fill = f"head -c 8000000 /dev/zero > {mnt}/filler 2>/dev/null; {ECHO}"
    env = {"PERFATLAS_AGENT_FALLBACK_SPOOL": str(fb)}
    res = run_agent("run", "command", "--target", str(tmp_path / "t"), "-p", f"cmd={fill}",
                    "-p", "k=1,2", "-n", "1", "--no-warmup", "--agent-name", agent,
                    spool=spool, env=env)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert f"(2 in the fallback spool {fb})" in res.stderr
    waiting = {p.stem for p in fb.glob("*.json")}
    assert len(waiting) == 2 and spooled(spool) == []
    status = run_agent("status", spool=spool, env=env)
    assert status.returncode == 0, status.stderr
    assert "0 run(s) waiting" in status.stdout and "the fallback spool" in status.stdout
    assert f"spool {fb}: 2 run(s) waiting" in status.stdout
    up = run_agent("upload", "--server", live_server.url, "--token", live_server.upload_token,
                   spool=spool, env=env)  # fmt: skip
    assert up.returncode == 0, up.stderr
    assert f"sending the runs of the fallback spool {fb}" in up.stderr
    assert stored_counts(live_server, agent) == Counter({u: 1 for u in waiting})
    assert list(fb.glob("*.json")) == [] and list(fb.glob("*.attachments")) == []


def test_a_read_only_spool_is_said_before_anything_is_measured(
    small_tmpfs: Any, tmp_path: Path
) -> None:
    mnt = small_tmpfs("64m")
    spool = mnt / "spool"
    spool.mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True, capture_output=True)
    marker = tmp_path / "measured"
    res = run_agent("run", "command", "--target", str(tmp_path / "t"), "-p",
                    f"cmd=touch {marker}; {ECHO}", "-n", "1", "--no-warmup", spool=spool)  # fmt: skip
    assert res.returncode == 6, res.stderr
    assert f"the spool {spool} cannot be written" in res.stderr
    assert "Read-only file system" in res.stderr and "nothing was run" in res.stderr
    assert not marker.exists()


@pytest.mark.parametrize("content", [None, "not json", '{"runs": 3}'])
def test_upload_of_a_file_without_runs_is_bad_usage(
    tmp_path: Path, spool: Path, content: str | None
) -> None:
    given = tmp_path / "given.json"
    if content is not None:
        given.write_text(content)
    res = run_agent("upload", str(given), "--server", "http://127.0.0.1:9", spool=spool)
    assert res.returncode == 2, res.stderr  # README: 2 bad usage
    assert str(given) in res.stderr
    assert spooled(spool) == []
