"""partialread's reads are cold one by one (cold=per_read): on a loop-mounted ext4, reading the
same range twice goes to the device twice, measured by the process's own /proc/self/io
read_bytes (bytes this process caused to be fetched from storage)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.measurement import RunBatchCreate
from perfatlas_agent.workloads.partialread import random_reads
from tests.agent.conftest import IS_ROOT, metric, run_agent
from tests.conftest import skip_unless_able


def storage_read_bytes() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("read_bytes:"):
            return int(line.split()[1])
    raise AssertionError("no read_bytes in /proc/self/io")


@pytest.fixture
def data_file(loopfs: Any) -> Any:
    if not IS_ROOT:
        skip_unless_able("loop-mounting an image needs root")
    folder = loopfs("ext4").mount_point / "cold"
    folder.mkdir(exist_ok=True)
    path = folder / "data.bin"
    with open(path, "wb") as f:
        f.write(random.Random(5).randbytes(8 << 20))
        f.flush()
        os.fsync(f.fileno())
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    yield str(path)
    path.unlink()


def test_each_read_misses_the_cache_with_per_read(data_file: str) -> None:
    off, rsize, seg = 3 * (1 << 20) + 100, 4096, 16384
    per_read = []
    for _ in range(3):  # the same range again and again: each read goes to the device
        before = storage_read_bytes()
        _, fetched = random_reads(data_file, [off], rsize, seg, drop_each=True)
        per_read.append(storage_read_bytes() - before)
        assert fetched == seg
    assert min(per_read) >= seg, per_read
    before = storage_read_bytes()
    random_reads(data_file, [off, off, off + 10], rsize, seg, drop_each=True)
    assert storage_read_bytes() - before >= 3 * seg
    # Without the drops the same range is read from the cache: nothing more from the device.
    # (This is what makes the measure above able to tell a miss from a hit.)
    random_reads(data_file, [off], rsize, seg, drop_each=False)
    before = storage_read_bytes()
    random_reads(data_file, [off, off], rsize, seg, drop_each=False)
    assert storage_read_bytes() - before == 0


def test_runs_record_how_they_were_made_cold(loopfs: Any, spool: Path, tmp_path: Path) -> None:
    target = loopfs("ext4").mount_point / "pr-cold"
    out = tmp_path / "runs.json"
    res = run_agent("run", "partialread", "--target", str(target), "--output", str(out),
                    "-p", "filesize=4M", "-p", "reads=40", "-p", "segsize=16k",
                    "-p", "cold=per_read,per_repetition,none", "-n", "1", spool=spool)  # fmt: skip
    assert res.returncode == 0, res.stderr
    RunBatchCreate.model_validate({"runs": res.runs})
    per_read, per_rep, none = res.runs
    assert [r["parameters"]["cold"] for r in res.runs] == ["per_read", "per_repetition", "none"]
    assert (per_read["cold_method"], per_rep["cold_method"], none["cold_method"]) == (
        "fadvise", "drop_caches", "none",
    )  # fmt: skip
    assert "before each read" in per_read["meta"]["cold"]
    for run in res.runs:
        # read.seconds is the reads' own time: the bytes asked for over it is the rate stored.
        assert metric(run, "read.mb_per_s") * metric(run, "read.seconds") == pytest.approx(
            40 * 4096 / 1e6
        )
