"""seqio's per-character phases (bonnie's putc and getc), on tmpfs and a loop-mounted ext4."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.measurement import RunBatchCreate
from perfatlas_agent.workloads.seqio import getc_phase, putc_phase
from tests.agent.conftest import run_agent


def samples(run: dict[str, Any], name: str) -> list[float]:
    return next(r["samples"] for r in run["results"] if r["metric"] == name)


@pytest.mark.parametrize("where", ["tmpfs", "ext4"])
def test_putc_writes_and_getc_reads_every_byte(where: str, tmpfs_target: Path, loopfs: Any) -> None:
    folder = tmpfs_target if where == "tmpfs" else loopfs("ext4").mount_point / "perchar"
    folder.mkdir(parents=True, exist_ok=True)
    path = str(folder / "chr.dat")
    for n in (1, 8191, 8193, 300_001):  # around stdio's buffer and across many of them
        secs = putc_phase(path, n)
        assert secs > 0
        assert os.stat(path).st_size == n
        assert Path(path).read_bytes() == b"x" * n
        got, rsecs = getc_phase(path, n)
        assert (got, rsecs > 0) == (n, True)
        # Asked for more than the file holds: the bytes actually read, not the bytes asked for.
        got, _ = getc_phase(path, n + 5000)
        assert got == n
    os.unlink(path)


def _runs(target: Path, spool: Path, tmp_path: Path, *params: str) -> list[dict[str, Any]]:
    out = tmp_path / "runs.json"
    args = ["run", "seqio", "--target", str(target), "--output", str(out), "-n", "2"]
    for p in params:
        args += ["-p", p]
    res = run_agent(*args, spool=spool)
    assert res.returncode == 0, res.stderr
    RunBatchCreate.model_validate({"runs": res.runs})
    return res.runs


def test_perchar_metrics_are_bytes_over_seconds_on_ext4(
    loopfs: Any, spool: Path, tmp_path: Path
) -> None:
    target = loopfs("ext4").mount_point / "seq-perchar"
    runs = _runs(
        target, spool, tmp_path, "filesize=4M", "blocksize=64k", "seeks=50",
        "perchar=true,false", "perchar_size=1M,3000000",
    )  # fmt: skip
    # perchar=false does not use perchar_size: not stored, and that point runs once.
    assert [(r["parameters"]["perchar"], r["parameters"].get("perchar_size")) for r in runs] == [
        (True, 1 << 20), (True, 3_000_000), (False, None),
    ]  # fmt: skip
    for run in runs[:2]:
        size = run["parameters"]["perchar_size"]
        assert "putc/getc" in run["meta"]["perchar"]
        for phase in ("putc", "getc"):
            rates, secs = samples(run, f"{phase}.mb_per_s"), samples(run, f"{phase}.seconds")
            assert len(rates) == 2 and min(secs) > 0
            units = {r["metric"]: r["unit"] for r in run["results"]}
            assert (units[f"{phase}.mb_per_s"], units[f"{phase}.seconds"]) == ("MB/s", "s")
            products = [r * t for r, t in zip(rates, secs, strict=True)]
            assert products == pytest.approx([size / 1e6] * 2, rel=1e-9)
    names = {r["metric"] for r in runs[2]["results"]}
    assert "write.mb_per_s" in names and not {n for n in names if n.startswith(("putc", "getc"))}


def test_direct_io_runs_no_perchar_phase(loopfs: Any, spool: Path, tmp_path: Path) -> None:
    target = loopfs("ext4").mount_point / "seq-direct"
    (run,) = _runs(target, spool, tmp_path, "filesize=1M", "blocksize=64k", "seeks=10",
                   "direct=true")  # fmt: skip
    assert "perchar" not in run["parameters"] and "perchar_size" not in run["parameters"]
    assert not [r for r in run["results"] if r["metric"].startswith(("putc", "getc"))]
