"""Attachments end to end: the real agent CLI runs a workload on a real filesystem, spools
the run's files beside it and uploads them to a real `perfatlas serve` (live_server); the
files the server gives back are checked against the files and measurements themselves."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import uuid
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from perfatlas_agent.measure.attachments import MAX_BYTES, LatencyLog, fit_run, head, tail
from tests.agent.conftest import metric, run_agent
from tests.agent.http_helpers import FaultProxy


def _headers(live: Any) -> dict[str, str]:
    return {"Authorization": f"Bearer {live.read_token}"}


def _server_files(live: Any, run_uuid: str) -> dict[str, tuple[dict[str, Any], bytes]]:
    """name -> (listing entry, downloaded bytes) of one run's attachments on the server."""
    listing = httpx.get(
        f"{live.url}/api/v1/runs/{run_uuid}/attachments", headers=_headers(live), timeout=10
    )
    assert listing.status_code == 200, listing.text
    out = {}
    for item in listing.json()["items"]:
        got = httpx.get(f"{live.url}{item['url']}", headers=_headers(live), timeout=10)
        assert got.status_code == 200
        assert got.headers["etag"] == f'"{item["sha256"]}"'
        out[item["name"]] = (item, got.content)
    return out


def _leftovers(spool: Path) -> list[Path]:
    return [p for p in spool.rglob("*") if p.is_file() and ".owners" not in p.parts
            and not p.name.startswith(".")]  # fmt: skip


def test_a_command_run_keeps_its_script_and_output(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    script = tmp_path / "tools" / "bench.sh"
    script.parent.mkdir()
    # A script that says which k it ran with on both streams, so each run's files differ.
    script.write_text(
        '#!/bin/sh\n# toolchain kept with the results\necho "k is $1" >&2\n'
        'echo "progress $1"\necho "{\\"copy.seconds\\": $1}"\n'
    )
    script.chmod(0o755)
    agent = f"attach-cmd-{uuid.uuid4().hex[:8]}"
    out = tmp_path / "runs.json"
    res = run_agent(
        "run", "command", "--target", str(tmp_path / "t"), "-p", f"cmd={script} {{k}}",
        "-p", "k=3,7", "-n", "2", "--agent-name", agent, "--output", str(out),
        "--server", live_server.url, "--token", live_server.upload_token, spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "uploaded 8 attachment(s) (8 new, 0 already there)" in res.stderr
    assert _leftovers(spool) == []
    file_sha = hashlib.sha256(script.read_bytes()).hexdigest()
    assert len(res.runs) == 2
    for run in res.runs:
        k = run["parameters"]["k"]
        assert metric(run, "copy.seconds") == k
        files = _server_files(live_server, run["uuid"])
        assert sorted(files) == ["command.txt", "script-bench.sh", "stderr.txt", "stdout.txt"]
        entry, body = files["script-bench.sh"]
        assert body == script.read_bytes()
        assert entry["sha256"] == file_sha == hashlib.sha256(body).hexdigest()
        assert entry["media_type"] == "text/x-shellscript"
        command = files["command.txt"][1].decode()
        assert f"command as run (last repetition): {script} {k}\n" in command
        assert f"script: {script} ({script.stat().st_size} bytes) sha256 {file_sha}" in command
        # One section per repetition (the warm-up, rep0, too), each with what it printed.
        stdout = files["stdout.txt"][1].decode()
        assert stdout.count(f"progress {k}\n") == 3
        assert [line for line in stdout.splitlines() if line.startswith("===")] == [
            "=== rep0 ===", "=== rep1 ===", "=== rep2 ===",
        ]  # fmt: skip
        assert files["stderr.txt"][1].decode().count(f"k is {k}\n") == 3
        # The run's meta lists what was attached, as the server has it.
        stored = httpx.get(
            f"{live_server.url}/api/v1/runs/{run['uuid']}", headers=_headers(live_server)
        ).json()
        assert sorted((a["name"], a["size"], a["sha256"]) for a in stored["attachments"]) == sorted(
            (m["name"], m["size"], m["sha256"]) for m in run["meta"]["attachments"]
        )
        # --output wrote the same files beside the JSON.
        beside = tmp_path / "runs.attachments" / run["uuid"]
        assert {p.name: p.read_bytes() for p in beside.iterdir()} == {
            name: body for name, (_, body) in files.items()
        }

    # The same runs again, from the file: every run and file acknowledged, nothing doubled.
    again = run_agent("upload", str(out), "--server", live_server.url,
                      "--token", live_server.upload_token, spool=spool)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "2 already there" in again.stderr
    assert "uploaded 8 attachment(s) (0 new, 8 already there)" in again.stderr
    for run in res.runs:
        assert len(_server_files(live_server, run["uuid"])) == 4


def test_partialread_keeps_one_line_per_read(
    live_server: Any, tmpfs_target: Path, tmp_path: Path, spool: Path
) -> None:
    filesize, readsize, reads = 3 << 20, 1000, 120
    agent = f"attach-pr-{uuid.uuid4().hex[:8]}"
    out = tmp_path / "pr.json"
    res = run_agent(
        "run", "partialread", "--target", str(tmpfs_target), "-p", f"filesize={filesize}",
        "-p", f"readsize={readsize}", "-p", "segsize=64k", "-p", f"reads={reads}", "-n", "2",
        "--agent-name", agent, "--output", str(out),
        "--server", live_server.url, "--token", live_server.upload_token, spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    (run,) = res.runs
    files = _server_files(live_server, run["uuid"])
    assert list(files) == ["latencies.csv"]
    entry, body = files["latencies.csv"]
    assert entry["media_type"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    # The warm-up (rep0) and two measured repetitions, one line per read each.
    assert len(rows) == 3 * reads
    assert [(int(r["repetition"]), int(r["op"])) for r in rows] == [
        (rep, op) for rep in range(3) for op in range(reads)
    ]
    offsets = [int(r["offset"]) for r in rows]
    assert all(0 <= o <= filesize - readsize for o in offsets)
    assert len(set(offsets)) > 0.9 * len(offsets)  # random offsets over 3 MB, not one place
    assert {int(r["bytes"]) for r in rows} == {readsize}
    assert all(float(r["seconds"]) > 0 for r in rows)
    # The run's own p50 latency of each measured repetition, recomputed from the raw file.
    p50 = next(r for r in run["results"] if r["metric"] == "read.lat_p50")["samples"]
    for rep, sample in zip((1, 2), p50, strict=True):
        secs = [float(r["seconds"]) for r in rows if int(r["repetition"]) == rep]
        assert np.percentile(np.array(secs) * 1e6, 50) == pytest.approx(sample, rel=1e-6)


def test_files_of_a_stored_run_wait_in_the_spool_until_sent(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    """An agent killed after the server took the run but before its files: the run's JSON is
    gone from the spool, its files are not, and the next upload sends them."""
    agent = f"attach-late-{uuid.uuid4().hex[:8]}"
    res = run_agent(
        "run", "command", "--target", str(tmp_path / "t"), "-p", "cmd=echo '{\"x.seconds\": 1}'",
        "-n", "1", "--no-warmup", "--agent-name", agent, spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    (spooled,) = list(spool.glob("*.json"))
    run = json.loads(spooled.read_text())
    assert "_attachments" not in run
    stored = httpx.post(
        f"{live_server.url}/api/v1/runs", json=run,
        headers={"Authorization": f"Bearer {live_server.upload_token}"},
    )  # fmt: skip
    assert stored.status_code == 201
    spooled.unlink()  # what the upload does once the server acknowledged the run
    waiting = sorted(p.name for p in (spool / f"{run['uuid']}.attachments").iterdir())
    assert waiting == ["command.txt", "stdout.txt"]
    status = run_agent("status", spool=spool)
    assert f"attachments of stored run {run['uuid']} waiting: command.txt, stdout.txt" in (
        status.stdout
    )
    sent = run_agent("upload", "--server", live_server.url, "--token",
                     live_server.upload_token, spool=spool)  # fmt: skip
    assert sent.returncode == 0, sent.stderr
    assert "uploaded 2 attachment(s) (2 new, 0 already there)" in sent.stderr
    assert _leftovers(spool) == []
    files = _server_files(live_server, run["uuid"])
    assert files["stdout.txt"][1] == b'=== rep0 ===\n{"x.seconds": 1}\n\n'


def test_a_server_failing_on_files_keeps_them_for_the_next_upload(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    """The runs are stored; every PUT of a file gets a 500: the files stay in the spool (exit
    1), and the next upload, to a server that works, sends each one once."""
    agent = f"attach-500-{uuid.uuid4().hex[:8]}"
    proxy = FaultProxy(live_server.url, fail_puts=True)
    try:
        res = run_agent(
            "run", "command", "--target", str(tmp_path / "t"),
            "-p", "cmd=echo '{\"x.seconds\": {k}}'", "-p", "k=1,2", "-n", "1", "--no-warmup",
            "--agent-name", agent, "--server", proxy.url, "--token", live_server.upload_token,
            "--retry-deadline", "5", spool=spool,
        )  # fmt: skip
    finally:
        proxy.close()
    assert res.returncode == 1, res.stderr
    assert "uploaded 2 run(s) of this invocation" in res.stderr
    assert "4 attachment(s) of stored runs remain in the spool" in res.stderr
    # Each file was tried three times (a 5xx that may be the file's fault), then kept.
    assert proxy.failed == 4 * 3
    assert not list(spool.glob("*.json"))
    waiting = sorted(p.relative_to(spool).as_posix() for p in _leftovers(spool))
    assert len(waiting) == 4 and {w.split("/")[1] for w in waiting} == {"command.txt", "stdout.txt"}
    stored_runs = {w.split("/")[0].removesuffix(".attachments") for w in waiting}
    assert len(stored_runs) == 2
    for run_uuid in stored_runs:
        listing = httpx.get(
            f"{live_server.url}/api/v1/runs/{run_uuid}/attachments", headers=_headers(live_server)
        )
        assert listing.json()["items"] == []  # the run is stored, its files not yet
    sent = run_agent("upload", "--server", live_server.url, "--token",
                     live_server.upload_token, spool=spool)  # fmt: skip
    assert sent.returncode == 0, sent.stderr
    assert "uploaded 4 attachment(s) (4 new, 0 already there)" in sent.stderr
    assert _leftovers(spool) == []
    for run_uuid in stored_runs:
        files = _server_files(live_server, run_uuid)
        assert sorted(files) == ["command.txt", "stdout.txt"]
        assert files["stdout.txt"][1].startswith(b'=== rep0 ===\n{"x.seconds": ')


def test_a_file_the_server_refuses_is_set_aside_with_the_reason(
    live_server: Any, tmp_path: Path, spool: Path
) -> None:
    """409: the run's name holds other content on the server (an agent bug). The file moves to
    rejected/ with the server's message, the run's other file is delivered (exit 3)."""
    agent = f"attach-409-{uuid.uuid4().hex[:8]}"
    res = run_agent(
        "run", "command", "--target", str(tmp_path / "t"), "-p", "cmd=echo '{\"x.seconds\": 1}'",
        "-n", "1", "--no-warmup", "--agent-name", agent, spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    (spooled,) = list(spool.glob("*.json"))
    run = json.loads(spooled.read_text())
    up = {"Authorization": f"Bearer {live_server.upload_token}"}
    assert httpx.post(f"{live_server.url}/api/v1/runs", json=run, headers=up).status_code == 201
    other = httpx.put(
        f"{live_server.url}/api/v1/runs/{run['uuid']}/attachments/command.txt",
        content=b"something else", headers=up,
    )  # fmt: skip
    assert other.status_code == 201
    spooled.unlink()
    mine = (spool / f"{run['uuid']}.attachments" / "command.txt").read_bytes()
    sent = run_agent("upload", "--server", live_server.url, "--token",
                     live_server.upload_token, spool=spool)  # fmt: skip
    assert sent.returncode == 3, sent.stderr
    assert f"REJECTED attachment {run['uuid']}/command.txt: HTTP 409" in sent.stderr
    assert "uploaded 1 attachment(s) (1 new, 0 already there)" in sent.stderr
    kept = spool / "rejected" / f"{run['uuid']}.attachments"
    assert (kept / "command.txt").read_bytes() == mine
    assert "other content already" in (kept / ".command.txt.reason.txt").read_text()
    assert _leftovers(spool) == [kept / "command.txt"]
    files = _server_files(live_server, run["uuid"])
    assert files["command.txt"][1] == b"something else"
    assert sorted(files) == ["command.txt", "stdout.txt"]
    status = run_agent("status", spool=spool)
    assert f"attachment {run['uuid']}/command.txt rejected: HTTP 409" in status.stdout


def test_another_agents_token_cannot_attach(live_server: Any, tmp_path: Path, spool: Path) -> None:
    """The file stays with the agent (rejected/, with the server's reason), not lost."""
    admin = {"Authorization": f"Bearer {live_server.admin_token}"}
    name = f"attach-own-{uuid.uuid4().hex[:8]}"
    token = httpx.post(
        f"{live_server.url}/api/v1/tokens",
        json={"name": f"{name} agent", "scope": "agent", "agent": name}, headers=admin,
    ).json()["token"]  # fmt: skip
    res = run_agent(
        "run", "command", "--target", str(tmp_path / "t"), "-p", "cmd=echo '{\"x.seconds\": 1}'",
        "-n", "1", "--no-warmup", "--agent-name", "someone-else", spool=spool,
    )  # fmt: skip
    (spooled,) = list(spool.glob("*.json"))
    run = json.loads(spooled.read_text())
    up = {"Authorization": f"Bearer {live_server.upload_token}"}
    assert httpx.post(f"{live_server.url}/api/v1/runs", json=run, headers=up).status_code == 201
    spooled.unlink()
    refused = httpx.put(
        f"{live_server.url}/api/v1/runs/{run['uuid']}/attachments/command.txt",
        content=b"x", headers={"Authorization": f"Bearer {token}"},
    )  # fmt: skip
    assert refused.status_code == 403 and "path.run_uuid" in refused.text
    sent = run_agent("upload", "--server", live_server.url, "--token", token, spool=spool)
    assert sent.returncode == 4, sent.stderr  # the token is refused; the files stay
    assert sorted(p.name for p in (spool / f"{run['uuid']}.attachments").iterdir()) == [
        "command.txt", "stdout.txt",
    ]  # fmt: skip
    assert res.returncode == 0


def test_bounds_cut_with_a_note() -> None:
    log = LatencyLog("latencies.csv", limit=4000)
    log.add(0, list(range(0, 500_000, 1000)), 512, [1000 + i for i in range(500)])
    made = log.file()
    assert made is not None and made.truncated and len(made.content) <= 4000
    lines = made.content.decode().splitlines()
    kept = len(lines) - 2
    assert lines[0] == "repetition,op,offset,bytes,seconds"
    assert lines[1] == "0,0,0,512,0.000001000"
    assert lines[-2] == f"0,{kept - 1},{(kept - 1) * 1000},512,{(1000 + kept - 1) / 1e9:.9f}"
    assert lines[-1] == f"# truncated by perfatlas-agent: kept the first {kept} of 500 rows"

    big = os.urandom(3 * MAX_BYTES // 2)
    cut = tail("stdout.txt", big)
    assert cut.truncated and len(cut.content) <= MAX_BYTES
    assert cut.content.startswith(b"[truncated by perfatlas-agent: ")
    assert big.endswith(cut.content[cut.content.index(b"]\n") + 2 :])
    text = b"".join(b"line %d\n" % i for i in range(300_000))
    first = head("script-x.sh", text)
    assert first.truncated and len(first.content) <= MAX_BYTES
    body, note = first.content.rsplit(b"# truncated", 1)
    assert text.startswith(body) and body.endswith(b"\n")
    assert note == f" by perfatlas-agent: {len(text)} bytes, kept the first {len(body)}\n".encode()
    kept_files, left_out = fit_run(
        [head("a", b"x" * 10), head("b", b"y" * 10), head("c", b"z")], 12
    )
    assert [f.name for f in kept_files] == ["a", "c"] and left_out == ["b"]


def test_smallfile_keeps_every_operations_latency(
    tmpfs_target: Path, tmp_path: Path, spool: Path
) -> None:
    nfiles, size, threads = 240, 700, 2
    out = tmp_path / "sf.json"
    res = run_agent(
        "run", "smallfile", "--target", str(tmpfs_target), "-p", f"nfiles={nfiles}",
        "-p", f"size={size}", "-p", f"threads={threads}", "-p", "files_per_dir=60", "-n", "2",
        "--output", str(out), spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    (run,) = res.runs
    body = (tmp_path / "sf.attachments" / run["uuid"] / "latencies.csv").read_bytes()
    assert run["meta"]["attachments"] == [
        {"name": "latencies.csv", "size": len(body), "sha256": hashlib.sha256(body).hexdigest(),
         "media_type": "text/csv", "truncated": False},
    ]  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    phases = ("create", "read_cold", "read_warm", "stat", "delete")
    # Every file in every phase of the warm-up (rep0) and the two measured repetitions, each
    # thread's share (two folders of 60 files each) numbered from 0.
    assert len(rows) == 3 * len(phases) * nfiles
    for rep in range(3):
        for phase in phases:
            mine = [r for r in rows if int(r["repetition"]) == rep and r["phase"] == phase]
            assert sorted((int(r["thread"]), int(r["op"])) for r in mine) == [
                (t, op) for t in range(threads) for op in range(nfiles // threads)
            ]
            want = size if phase in ("create", "read_cold", "read_warm") else 0
            assert {int(r["bytes"]) for r in mine} == {want}
    # The run's p95 latency of each phase and measured repetition, from the raw file.
    for phase in phases:
        samples = next(r for r in run["results"] if r["metric"] == f"{phase}.lat_p95")["samples"]
        for rep, sample in zip((1, 2), samples, strict=True):
            secs = [float(r["seconds"]) for r in rows
                    if int(r["repetition"]) == rep and r["phase"] == phase]  # fmt: skip
            assert np.percentile(np.array(secs) * 1e6, 95) == pytest.approx(sample, rel=1e-6)
