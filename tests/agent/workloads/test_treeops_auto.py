"""treeops threads=auto: the walk and the delete tuned apart, several samples per count, a count
kept only for a real gain; one series for auto whatever it chose. On tmpfs and on a FUSE
filesystem that waits 1 ms in every metadata operation (tests/bench/agent_fuse_latency.c)."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.measurement import RunBatchCreate
from perfatlas.runs.keys import series_key
from tests.agent.conftest import IS_ROOT, run_agent
from tests.conftest import patient, skip_unless_able

FUSE_SOURCE = Path(__file__).parents[2] / "bench" / "agent_fuse_latency.c"


def _runs(target: Path, spool: Path, tmp_path: Path, *params: str) -> list[dict[str, Any]]:
    out = tmp_path / f"runs-{time.monotonic_ns()}.json"
    args = ["run", "treeops", "--target", str(target), "--output", str(out), "-n", "1",
            "--no-warmup"]  # fmt: skip
    for p in params:
        args += ["-p", p]
    res = run_agent(*args, spool=spool, timeout=600)
    assert res.returncode == 0, res.stderr
    RunBatchCreate.model_validate({"runs": res.runs})
    assert all(r["status"] == "ok" for r in res.runs), [r["meta"].get("error") for r in res.runs]
    return res.runs


def expected_choice(rates: dict[str, list[float]]) -> int:
    """The rule, computed here from the samples the run recorded: climb 1, 2, 4... while a
    count's median beats the smaller count's median by 10 %."""
    counts = sorted(int(t) for t in rates)
    chosen = counts[0]
    for t in counts[1:]:
        if statistics.median(rates[str(t)]) < 1.10 * statistics.median(rates[str(chosen)]):
            break
        chosen = t
    return chosen


def check_tuning(auto: dict[str, Any]) -> None:
    for op in ("walk", "delete"):
        rates = auto[f"{op}_inodes_per_s"]
        counts = [int(t) for t in rates]
        assert counts == [1, 2, 4, 8, 16, 32, 64][: len(counts)], "candidates tried in order"
        assert all(len(v) == 3 and min(v) > 0 for v in rates.values()), "3 samples each"
        assert auto[op] == expected_choice(rates)
        # The climb stops at the first count without a real gain (or at the last candidate).
        last = counts[-1]
        assert auto[op] == last or counts[-2] == auto[op]
    assert auto["build"] == auto["delete"]


def test_auto_is_one_series_and_records_its_choices_on_tmpfs(
    tmpfs_target: Path, spool: Path, tmp_path: Path
) -> None:
    runs = [_runs(tmpfs_target, spool, tmp_path, "inodes=600", "threads=auto")[0] for _ in range(2)]
    keys = []
    for run in runs:
        assert run["parameters"]["threads"] == "auto"
        check_tuning(run["meta"]["auto_threads"])
        assert run["meta"]["auto_threads"]["probe"]["inodes"] == 600
        model = RunBatchCreate.model_validate({"runs": [run]}).runs[0]
        keys.append(series_key(model, metric="walk.inodes_per_s", unit="inodes/s",
                               ignore_labels=()))  # fmt: skip
    assert keys[0] == keys[1]  # whatever each chose
    fixed = _runs(tmpfs_target, spool, tmp_path, "inodes=600", "threads=4")[0]
    assert fixed["parameters"]["threads"] == 4 and "auto_threads" not in fixed["meta"]


@pytest.fixture
def latency_fuse(tmp_path: Path) -> Iterator[Path]:
    """A FUSE passthrough adding 1 ms to every metadata operation, over a folder on disk."""
    if not IS_ROOT or not Path("/dev/fuse").exists():
        skip_unless_able("FUSE needs root and /dev/fuse")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "fuse3"], capture_output=True,
                           text=True, check=False)  # fmt: skip
    if flags.returncode != 0 or shutil.which("gcc") is None:
        skip_unless_able("building the FUSE helper needs gcc, pkg-config and libfuse3-dev")
    exe = tmp_path / "latencyfs"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(FUSE_SOURCE), *flags.stdout.split()],
                   check=True, capture_output=True)  # fmt: skip
    backing, mnt = tmp_path / "backing", tmp_path / "mnt"
    backing.mkdir()
    mnt.mkdir()
    proc = subprocess.Popen([str(exe), str(backing), str(mnt), "1000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + patient(20)
        while not os.path.ismount(mnt):
            assert proc.poll() is None and time.monotonic() < deadline, "FUSE did not mount"
            time.sleep(0.05)
        yield mnt
    finally:
        subprocess.run(["fusermount3", "-u", str(mnt)], check=False, capture_output=True)
        proc.terminate()
        proc.wait(10)


def test_auto_picks_more_than_one_thread_where_each_op_waits(
    latency_fuse: Path, spool: Path, tmp_path: Path
) -> None:
    t0 = time.monotonic()
    (run,) = _runs(latency_fuse / "tree", spool, tmp_path, "inodes=150", "fanout=4",
                   "files=9", "threads=auto")  # fmt: skip
    assert run["environment"]["fs_type"].startswith("fuse")
    auto = run["meta"]["auto_threads"]
    check_tuning(auto)
    # Every operation waits 1 ms in the filesystem: threads overlap the waits.
    assert auto["walk"] > 1 and auto["delete"] > 1, auto
    assert run["parameters"]["threads"] == "auto"
    print(f"FUSE auto: walk {auto['walk']}, delete {auto['delete']} "
          f"in {time.monotonic() - t0:.1f} s")  # fmt: skip
