"""Numbers that must make physical sense, on loop-mounted ext4 and xfs images on the disk."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.measurement import RunBatchCreate
from tests.agent.conftest import IS_ROOT, metric, run_agent
from tests.conftest import skip_unless_able


@pytest.fixture(autouse=True)
def _needs_root() -> None:
    if not IS_ROOT:
        skip_unless_able("mounting images and drop_caches need root")


def _smallfile(mnt: Path, spool: Path, tmp_path: Path, *params: str) -> list[dict[str, Any]]:
    out = tmp_path / f"{uuid.uuid4().hex}.json"
    args = ["run", "smallfile", "--target", str(mnt / uuid.uuid4().hex[:8]), "--output", str(out)]
    for p in params:
        args += ["--param", p]
    res = run_agent(*args, "--repetitions", "1", spool=spool)  # + the warm-up: margins are 10x+
    assert res.returncode == 0, res.stderr
    RunBatchCreate.model_validate({"runs": res.runs})
    return res.runs


@pytest.mark.parametrize("fs_type", ["ext4", "xfs"])
def test_fsync_per_file_is_slower_than_none(
    fs_type: str, loopfs: Any, spool: Path, tmp_path: Path
) -> None:
    fs = loopfs(fs_type)
    none, each = _smallfile(fs.mount_point, spool, tmp_path, "nfiles=100", "size=4k",
                            "fsync=false,true")  # fmt: skip
    assert (none["fsync_policy"], each["fsync_policy"]) == ("none", "file")
    assert none["environment"]["fs_type"] == fs_type
    assert none["environment"]["device"].startswith("/dev/loop")
    assert none["environment"]["fs_info"], "xfs_info / dumpe2fs -h should be parsed"
    assert metric(each, "create.ops_per_s") < 0.5 * metric(none, "create.ops_per_s")


@pytest.mark.parametrize("fs_type", ["ext4", "xfs"])
def test_sync_mount_is_slower_than_default(
    fs_type: str, loopfs: Any, spool: Path, tmp_path: Path
) -> None:
    default = loopfs(fs_type)
    sync = loopfs(fs_type, "sync")
    (fast,) = _smallfile(default.mount_point, spool, tmp_path, "nfiles=100", "size=4k")
    (slow,) = _smallfile(sync.mount_point, spool, tmp_path, "nfiles=100", "size=4k")
    assert fast["sync_mount"] is False and slow["sync_mount"] is True
    assert "sync" in slow["environment"]["mount_options"].split(",")
    assert metric(slow, "create.ops_per_s") < 0.5 * metric(fast, "create.ops_per_s")


def test_warm_reads_are_faster_than_cold(loopfs: Any, spool: Path, tmp_path: Path) -> None:
    fs = loopfs("ext4")
    # 64 KiB files: a cold read then waits for the device, which a busy CPU does not hide (with
    # 4 KiB files both phases took milliseconds and a loaded machine's scheduling decided them).
    (run,) = _smallfile(fs.mount_point, spool, tmp_path, "nfiles=300", "size=64k")
    assert run["cold_method"] == "drop_caches"
    warm, cold = metric(run, "read_warm.ops_per_s"), metric(run, "read_cold.ops_per_s")
    assert warm > 1.5 * cold, (warm, cold)


def test_seqio_direct_and_cold_read_on_xfs(loopfs: Any, spool: Path, tmp_path: Path) -> None:
    fs = loopfs("xfs")
    out = tmp_path / "seq.json"
    res = run_agent(
        "run", "seqio", "--target", str(fs.mount_point / "seq"), "--output", str(out),
        "-p", "filesize=16M", "-p", "blocksize=256k", "-p", "direct=false,true", "-p", "seeks=100",
        "-n", "1", spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    buffered, direct = res.runs
    assert (buffered["o_direct"], direct["o_direct"]) == (False, True)
    assert buffered["cold_method"] == "drop_caches"
    assert metric(direct, "read.mb_per_s") > 0 and metric(buffered, "write.mb_per_s") > 0


def test_partialread_cold_and_treeops_on_ext4(loopfs: Any, spool: Path, tmp_path: Path) -> None:
    fs = loopfs("ext4")
    out = tmp_path / "pr.json"
    res = run_agent(
        "run", "partialread", "--target", str(fs.mount_point / "pr"), "--output", str(out),
        "-p", "filesize=8M", "-p", "reads=50", "-n", "1", spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.runs[0]["cold_method"] == "fadvise"  # cold=per_read: DONTNEED before each read
    out = tmp_path / "tree.json"
    res = run_agent(
        "run", "treeops", "--target", str(fs.mount_point / "tree"), "--output", str(out),
        "-p", "depth=2", "-p", "files=5", "-p", "threads=4", "-n", "1", spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.runs[0]["cold_method"] == "drop_caches"
    assert metric(res.runs[0], "delete.inodes_per_s") > 0


@pytest.mark.parametrize("fs_type", ["ext4", "xfs"])
def test_extract_fsync_per_file_is_slower_than_none(
    fs_type: str, loopfs: Any, spool: Path, tmp_path: Path
) -> None:
    fs = loopfs(fs_type)
    out = tmp_path / "ex.json"
    res = run_agent(
        "run", "extract", "--target", str(fs.mount_point / "ex"), "--output", str(out),
        "-p", "files=200", "-p", "size=4k", "-p", "threads=2", "-p", "fsync=none,file",
        "-n", "1", spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    tar, none, each = res.runs
    # A flush per file costs on a loop device over the machine's disk, by how much depends on
    # that disk: 0.56 of the rate without on xfs in one quiet run, usually under half. Without
    # the flushes the two rates would be alike (1 within noise).
    assert metric(each, "extract.files_per_s") < 0.75 * metric(none, "extract.files_per_s")
    assert metric(tar, "tar.files_per_s") > 0 and "threads" not in tar["parameters"]
