"""A poisoned spool file never blocks the others; a server that says "try later" (503 with
Retry-After, a connection dropped) is waited for, never taken for a bad run; temporary files of
writes that died are cleaned. The real server (`live_server`) and a real HTTP peer in a thread."""

from __future__ import annotations

import datetime as dt
import email.utils
import itertools
import json
import os
import subprocess
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from perfatlas_agent.send.client import retry_after
from tests.agent.conftest import run_agent
from tests.agent.http_helpers import TryLaterServer
from tests.agent.send.test_spool_room import base_run, clones
from tests.agent.send.test_upload import new_agent, quick_runs, spooled, stored_counts, upload


def write_run(spool: Path, name: str, run: dict[str, Any]) -> Path:
    path = spool / f"{name}.json"
    path.write_text(json.dumps(run, sort_keys=True))
    return path


def test_poisoned_spool_files_go_to_rejected_and_the_others_are_delivered(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("poisoned")
    good = clones(base_run(tmp_path, agent), 101)
    other = good.pop()  # a real run, spooled under another run's name
    spool.mkdir(parents=True)
    # Poison in the middle of the batches, not only at an end.
    for run in good[:50]:
        write_run(spool, run["uuid"], run)
    deep = spool / f"{uuid.uuid4()}.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    mismatched = write_run(spool, str(uuid.uuid4()), other)
    not_utf8 = spool / f"{uuid.uuid4()}.json"
    not_utf8.write_bytes(b'{"uuid": "\xff\xfe"}')
    for run in good[50:]:
        write_run(spool, run["uuid"], run)

    status = run_agent("status", spool=spool)
    assert status.returncode == 0, status.stderr
    assert "103 run(s) waiting" in status.stdout
    assert f"{deep.stem}  (unreadable: nested too deeply" in status.stdout
    assert f"{mismatched.stem}  (unreadable: its uuid '{other['uuid']}'" in status.stdout

    res = upload(live_server, spool)
    assert res.returncode == 3, res.stderr  # runs rejected (README: exit status 3)
    assert stored_counts(live_server, agent) == Counter({r["uuid"]: 1 for r in good})
    assert spooled(spool) == []
    rejected = spool / "rejected"
    assert sorted(p.name for p in rejected.glob("*.json")) == sorted(
        p.name for p in (deep, mismatched, not_utf8)
    )
    reasons = {
        p: (rejected / f"{p.stem}.reason.txt").read_text() for p in (deep, mismatched, not_utf8)
    }
    assert "nested too deeply" in reasons[deep]
    assert other["uuid"] in reasons[mismatched] and "is not its file's name" in reasons[mismatched]
    assert "not UTF-8" in reasons[not_utf8]
    for path in (deep, mismatched, not_utf8):
        assert f"REJECTED spool file {path.name}" in res.stderr
    # The files are moved whole, for a look later.
    assert (rejected / deep.name).stat().st_size == 200_000
    again = upload(live_server, spool)
    assert again.returncode == 0 and "nothing to upload" in again.stderr, "not re-sent, re-rejected"
    assert stored_counts(live_server, agent) == Counter({r["uuid"]: 1 for r in good})


@pytest.mark.parametrize("mode", ["503", "dropped"])
def test_try_later_keeps_the_runs_and_delivers_each_once(
    tmp_path: Path, spool: Path, mode: str
) -> None:
    agent = new_agent(f"later-{mode}")
    assert quick_runs(tmp_path, spool, agent, ks="1,2,3").returncode == 0  # spooled, no server
    uuids = {p.stem for p in spooled(spool)}
    peer = TryLaterServer(busy=2, retry_after=2 if mode == "503" else None, drop=mode == "dropped")
    try:
        res = run_agent("upload", "--server", peer.url, "--token", "pa_x", spool=spool)
    finally:
        peer.close()
    assert res.returncode == 0, res.stderr
    assert peer.stored == {u: 1 for u in uuids}, "each run delivered once"
    turned_away = 503 if mode == "503" else 0
    assert [status for _, _, status, _ in peer.uploads] == [turned_away, turned_away, 200]
    assert all(set(carried) == uuids for _, _, _, carried in peer.uploads)
    if mode == "503":
        # Retry-After: 2 is honoured (the backoff alone would wait 0.25 s, then 0.5 s).
        times = [t for t, _, _, _ in peer.uploads]
        assert min(b - a for a, b in itertools.pairwise(times)) >= 2.0
        assert "the server asked to retry after 2s" in res.stderr
    assert "retrying" in res.stderr
    assert "KEPT" not in res.stderr and "REJECTED" not in res.stderr
    assert spooled(spool) == []
    assert not (spool / "errors").exists() and not (spool / "rejected").exists()


def test_a_server_busy_past_the_deadline_leaves_the_runs_spooled_not_failed(
    tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("busy")
    assert quick_runs(tmp_path, spool, agent, ks="1,2").returncode == 0
    uuids = {p.stem for p in spooled(spool)}
    peer = TryLaterServer(busy=10**6, retry_after=1)
    try:
        res = run_agent("upload", "--server", peer.url, "--token", "pa_x",
                        "--retry-deadline", "3", spool=spool)  # fmt: skip
    finally:
        peer.close()
    assert res.returncode == 1, res.stderr  # runs left in the spool (README: exit status 1)
    assert "2 run(s) remain in the spool" in res.stderr
    assert len(peer.uploads) >= 2 and peer.stored == {}
    assert "KEPT" not in res.stderr and "REJECTED" not in res.stderr
    assert {p.stem for p in spooled(spool)} == uuids
    assert not (spool / "errors").exists() and not (spool / "rejected").exists()
    status = run_agent("status", spool=spool)
    assert "2 run(s) waiting" in status.stdout and "failed on it" not in status.stdout
    # The server is back: delivered, once.
    peer = TryLaterServer(busy=0)
    try:
        again = run_agent("upload", "--server", peer.url, "--token", "pa_x", spool=spool)
    finally:
        peer.close()
    assert again.returncode == 0, again.stderr
    assert peer.stored == {u: 1 for u in uuids} and spooled(spool) == []


def test_temporary_files_of_dead_writers_are_cleaned(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    agent = new_agent("tmp")
    assert quick_runs(tmp_path, spool, agent, ks="1").returncode == 0
    (run_path,) = spooled(spool)
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead, alive = gone.pid, os.getpid()  # a writer that died; this test process, alive
    (spool / "rejected").mkdir()
    dead_ones = [
        spool / f".{run_path.name}.{dead}.tmp",
        spool / "rejected" / f".{uuid.uuid4()}.reason.txt.{dead}.tmp",
        spool / f"{run_path.stem}.attachments" / f".stdout.txt.{dead}.tmp",
        spool / ".owners" / f".{dead}-0a1b2c3d.lock.tmp",
        spool / ".no-pid.tmp",
    ]
    for path in dead_ones:
        path.write_bytes(b"")
    old = time.time() - 2 * 3600
    os.utime(spool / ".no-pid.tmp", (old, old))
    live_ones = [spool / f".{uuid.uuid4()}.json.{alive}.tmp", spool / ".fresh-no-pid.tmp"]
    for path in live_ones:
        path.write_bytes(b"")
    res = upload(live_server, spool)
    assert res.returncode == 0, res.stderr
    assert stored_counts(live_server, agent) == Counter({run_path.stem: 1})
    assert sorted(p for p in spool.rglob("*.tmp")) == sorted(live_ones)
    assert not (spool / f"{run_path.stem}.attachments").exists(), "its folder went with its files"


def test_retry_after_reads_seconds_and_http_dates() -> None:
    ahead = email.utils.format_datetime(
        dt.datetime.now(dt.UTC) + dt.timedelta(seconds=20), usegmt=True
    )
    cases = {"7": 7.0, "0": 0.0, "-3": 0.0, "86400": 300.0, "soon": None, "": None}
    for value, expected in cases.items():
        answer = httpx.Response(503, headers={"Retry-After": value} if value else {})
        assert retry_after(answer) == expected, value
    from_date = retry_after(httpx.Response(503, headers={"Retry-After": ahead}))
    assert from_date is not None and 17.0 <= from_date <= 20.0
