"""Durability facts that mean what they say, checked against what the block layer really did
(the device's flush counter in /sys/block/X/stat), on tmpfs, loop ext4 and loop btrfs."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from perfatlas.core.measurement import RunBatchCreate
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
    # As far as the disk under the image file takes a flush (true on a disk in write back).
    assert (safe["memory_backed"], safe["flush_to_device"]) == where_a_file_flushes(tmp_path)
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


def test_a_loop_device_on_a_file_in_memory_is_memory(
    private_loop: Any, tmpfs_root: Path, spool: Path, tmp_path: Path
) -> None:
    on_disk = private_loop("ext4")
    in_memory = private_loop("ext4", image_dir=tmpfs_root)
    (disk,) = smallfile(on_disk.mount_point / "a", spool, tmp_path, "nfiles=20")
    (ram,) = smallfile(in_memory.mount_point / "b", spool, tmp_path, "nfiles=20")
    # Both look like ext4 on a loop device with a write-back cache...
    for run in (disk, ram):
        assert run["environment"]["fs_type"] == "ext4" and run["write_cache"] == "write back"
    assert ram["environment"]["loop_backing_file"].startswith(str(tmpfs_root))
    # ...but an fsync of the second ends in a tmpfs file: nothing reaches stable storage.
    assert (ram["memory_backed"], ram["flush_to_device"]) == (True, False)
    assert (disk["memory_backed"], disk["flush_to_device"]) == where_a_file_flushes(tmp_path)


def where_a_file_flushes(path: Path) -> tuple[bool, bool | None]:
    """(memory_backed, flush_to_device) of a file under path, from findmnt and lsblk: memory
    on tmpfs; else the flush reaches the disk when its kernel mode is write back."""
    fs_type, source = subprocess.run(
        ["findmnt", "-n", "-o", "FSTYPE,SOURCE", "--target", str(path)],
        check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    if fs_type in ("tmpfs", "ramfs"):
        return True, False
    parent = subprocess.run(["lsblk", "-no", "PKNAME", source], capture_output=True, text=True)
    disk = parent.stdout.strip() or Path(source).name
    mode = (Path("/sys/block") / disk / "queue/write_cache").read_text().strip()
    if mode != "write back":
        skip_unless_able(f"{path} is on {disk} in {mode} mode: no known answer to compare with")
    return False, True


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
    # The syncfs at the end of create (at least one flush in each of the warm-up and the
    # repetition), the one before each cold read, and the journal's own commits: a handful.
    assert 2 <= at_end < NFILES / 10
    assert without < NFILES / 10


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
    memory, host_flush = where_a_file_flushes(fs.mount_point.parent)  # where the image is
    assert run["memory_backed"] is memory
    assert run["flush_to_device"] is (host_flush if wc == "write back" else False)
