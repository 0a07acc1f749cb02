"""Durability facts that mean what they say, checked against what the block layer really did
(the device's flush counter in /sys/block/X/stat), on tmpfs, loop ext4 and loop btrfs."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from perfatlas.runs.schemas import RunBatchCreate
from tests.agent.conftest import IS_ROOT, LoopDevice, run_agent
from tests.conftest import skip_unless_able

NFILES = 200


@pytest.fixture(autouse=True)
def _needs_root() -> None:
    if not IS_ROOT:
        skip_unless_able("mounting filesystems and changing a device's write cache need root")


def smallfile(target: Path, spool: Path, tmp_path: Path, *params: str) -> list[dict[str, Any]]:
    out = tmp_path / f"{uuid.uuid4().hex}.json"
    args = ["run", "smallfile", "--target", str(target), "--output", str(out), "-n", "1"]
    for p in params:
        args += ["-p", p]
    res = run_agent(*args, spool=spool)
    assert res.returncode == 0, res.stderr
    RunBatchCreate.model_validate({"runs": res.runs})
    return res.runs


def flushes_during(
    loop: LoopDevice, spool: Path, tmp_path: Path, fsync: str
) -> tuple[dict[str, Any], int]:
    before = loop.flushes()
    (run,) = smallfile(loop.mount_point / uuid.uuid4().hex[:6], spool, tmp_path,
                       f"nfiles={NFILES}", "size=4k", f"fsync={fsync}")  # fmt: skip
    return run, loop.flushes() - before


def test_tmpfs_is_memory_backed_and_flushes_go_nowhere(
    tmpfs_target: Path, spool: Path, tmp_path: Path, live_server: Any
) -> None:
    (run,) = smallfile(tmpfs_target, spool, tmp_path, "nfiles=50", "fsync=true")
    assert run["fsync_policy"] == "file", "what the program asked for"
    assert run["memory_backed"] is True and run["flush_to_device"] is False
    assert run["environment"]["fs_type"] == "tmpfs"
    # The server keeps them as sent.
    resp = httpx.post(f"{live_server.url}/api/v1/runs", json=run, timeout=10,
                      headers={"Authorization": f"Bearer {live_server.upload_token}"})  # fmt: skip
    assert resp.status_code == 201, resp.text
    stored = httpx.get(f"{live_server.url}/api/v1/runs/{run['uuid']}", timeout=10,
                       headers={"Authorization": f"Bearer {live_server.read_token}"}).json()  # fmt: skip
    assert (stored["memory_backed"], stored["flush_to_device"]) == (True, False)


def test_write_through_over_a_caching_loop_device_drops_flushes(
    private_loop: Any, spool: Path, tmp_path: Path
) -> None:
    loop = private_loop("ext4")
    safe, sent = flushes_during(loop, spool, tmp_path, "file")
    assert safe["write_cache"] == "write back"
    assert safe["flush_to_device"] is True and safe["memory_backed"] is False
    assert safe["environment"]["block_device"] == loop.device
    assert safe["environment"]["device_write_cache"] == "write back"
    # Warm-up + 1 repetition, each fsyncing every file: at least one flush per file reached it.
    assert sent >= 2 * NFILES

    loop.set_write_cache("write through")
    unsafe, dropped = flushes_during(loop, spool, tmp_path, "file")
    assert unsafe["write_cache"] == "write through"
    assert unsafe["environment"]["device_write_cache"] == "write back", "the device still caches"
    assert unsafe["flush_to_device"] is False
    assert dropped == 0, "the kernel sent no flush at all: fsync returned with data in the cache"
    assert unsafe["fsync_policy"] == safe["fsync_policy"] == "file"


def test_smallfile_fsync_end_flushes_once_per_repetition(
    private_loop: Any, spool: Path, tmp_path: Path
) -> None:
    loop = private_loop("ext4")
    each, per_file = flushes_during(loop, spool, tmp_path, "file")
    end, at_end = flushes_during(loop, spool, tmp_path, "end")
    none, without = flushes_during(loop, spool, tmp_path, "none")
    assert [r["fsync_policy"] for r in (each, end, none)] == ["file", "end", "none"]
    assert [r["parameters"]["fsync"] for r in (each, end, none)] == ["file", "end", "none"]
    assert end["meta"]["create_includes_syncfs"] is True
    assert per_file >= 2 * NFILES
    # The syncfs at the end of create, and the ones before each cold read: a handful per rep.
    assert at_end < NFILES / 10
    assert without <= at_end


def test_btrfs_runs_resolve_their_device(loopfs: Any, spool: Path, tmp_path: Path) -> None:
    fs = loopfs("btrfs")
    (run,) = smallfile(fs.mount_point / uuid.uuid4().hex[:6], spool, tmp_path, "nfiles=50")
    env = run["environment"]
    assert env["fs_type"] == "btrfs"
    device = env["device"]
    assert device.startswith("/dev/loop")
    assert env["block_device"] == Path(device).name, "not btrfs's anonymous device"
    assert env["device_model"] == "loop" and isinstance(env["rotational"], bool)
    wc = (Path("/sys/block") / env["block_device"] / "queue/write_cache").read_text().strip()
    assert run["write_cache"] == wc
    assert run["flush_to_device"] is (wc == "write back")
    assert run["memory_backed"] is False
