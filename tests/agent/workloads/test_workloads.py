"""Every workload for real, at small sizes, on a tmpfs; runs must match the upload contract."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.measurement import RunBatchCreate
from tests.agent.conftest import metric, run_agent
from tests.conftest import skip_unless_able


def _run(target: Path, spool: Path, tmp_path: Path, *args: str) -> list[dict[str, Any]]:
    out = tmp_path / "runs.json"
    res = run_agent("run", *args, "--target", str(target), "--output", str(out), spool=spool)
    assert res.returncode == 0, res.stderr
    RunBatchCreate.model_validate({"runs": res.runs})  # exactly what the server accepts
    assert os.listdir(target) == [], "the workload left files behind"
    assert not spool.exists() or not list(spool.glob("*.json")), "--output alone must not spool"
    for run in res.runs:
        env = run["environment"]
        for key in ("kernel", "os", "cpu_model", "cores", "ram_bytes", "hostname", "fs_type"):
            assert key in env, key
        assert env["fs_type"] == "tmpfs"
        assert run["cold_method"] in (None, "none")  # tmpfs pages cannot be dropped
    return res.runs


def test_smallfile(tmpfs_target: Path, spool: Path, tmp_path: Path) -> None:
    runs = _run(
        tmpfs_target, spool, tmp_path, "smallfile",
        "--param", "nfiles=400", "--param", "threads=1,2", "--param", "fsync=true",
        "--repetitions", "2", "--label", "disk=ram",
    )  # fmt: skip
    assert [r["parameters"]["threads"] for r in runs] == [1, 2]
    for run in runs:
        assert run["fsync_policy"] == "file" and run["labels"] == {"disk": "ram"}
        for phase in ("create", "read_cold", "read_warm", "stat", "delete"):
            assert metric(run, f"{phase}.ops_per_s") > 0
            assert metric(run, f"{phase}.lat_p99") >= metric(run, f"{phase}.lat_p50")
        res = {r["metric"]: r for r in run["results"]}
        assert len(res["create.ops_per_s"]["samples"]) == 2  # warm-up discarded
        assert res["create.lat_p99"]["unit"] == "us"
        assert "create" in run["meta"]["short_phases"]
    assert metric(runs[1], "create.ops_per_s_first_done") > 0


def test_seqio(tmpfs_target: Path, spool: Path, tmp_path: Path) -> None:
    (run,) = _run(
        tmpfs_target, spool, tmp_path, "seqio",
        "-p", "filesize=8M", "-p", "blocksize=64k", "-p", "seeks=200", "-n", "1", "--no-warmup",
    )  # fmt: skip
    for name in ("write.mb_per_s", "rewrite.mb_per_s", "read.mb_per_s", "seeks.per_s"):
        assert metric(run, name) > 0
    assert run["parameters"]["blocksize"] == 65536
    assert run["fsync_policy"] == "end" and run["o_direct"] is False


def test_treeops_auto_threads(tmpfs_target: Path, spool: Path, tmp_path: Path) -> None:
    (run,) = _run(
        tmpfs_target, spool, tmp_path, "treeops",
        "-p", "depth=2", "-p", "fanout=3", "-p", "files=5", "-p", "threads=auto", "-n", "1",
    )  # fmt: skip
    assert run["parameters"]["threads"] == "auto", "one series for auto, whatever it chose"
    chosen = run["meta"]["auto_threads"]
    assert chosen["walk"] >= 1 and chosen["delete"] >= 1
    inodes = (1 + 3 + 9) * 6
    assert metric(run, "walk.inodes_per_s") * metric(run, "walk.seconds") == pytest.approx(inodes)
    for name in ("delete.speedup", "delete.speedup_vs_rm", "walk.speedup_vs_find"):
        assert metric(run, name) > 0


def test_extract_fsync_policies(tmpfs_target: Path, spool: Path, tmp_path: Path) -> None:
    runs = _run(
        tmpfs_target, spool, tmp_path, "extract",
        "-p", "files=300", "-p", "size=1k", "-p", "threads=2", "-p", "fsync=none,file,end", "-n", "1",
    )  # fmt: skip
    # tar (which cannot fsync each file) for none and end; the threaded extractor for all three
    assert [(r["parameters"]["extractor"], r["fsync_policy"]) for r in runs] == [
        ("tar", "none"), ("tar", "end"),
        ("threads", "none"), ("threads", "file"), ("threads", "end"),
    ]  # fmt: skip
    for run in runs[2:]:
        assert metric(run, "extract.files_per_s") > 0
    assert metric(runs[0], "tar.files_per_s") > 0
    assert "tar.files_per_s" not in {r["metric"] for r in runs[2]["results"]}


def test_extract_user_archive(tmpfs_target: Path, spool: Path, tmp_path: Path) -> None:
    from perfatlas_agent.workloads.archive import make_archive

    archive = tmp_path / "mine.tar"
    make_archive(archive, files=50, size=100)
    (run,) = _run(tmpfs_target, spool, tmp_path, "extract", "-p", f"archive={archive}",
                  "-p", "extractor=threads", "-n", "1")  # fmt: skip
    assert run["meta"]["archive_files"] == 50 and run["meta"]["archive_bytes"] == 5000
    assert set(run["parameters"]) == {"archive", "extractor", "threads", "fsync"}
    assert archive.exists()


def test_partialread_segsize(tmpfs_target: Path, spool: Path, tmp_path: Path) -> None:
    runs = _run(
        tmpfs_target, spool, tmp_path, "partialread",
        "-p", "filesize=4M", "-p", "readsize=1k", "-p", "segsize=4k,64k", "-n", "1",
    )  # fmt: skip
    small, big = runs
    # a 1 KiB read crosses a 4 KiB segment boundary 1 time in 4: 1.25 segments on average
    assert metric(small, "read.amplification") == pytest.approx(5.0, rel=0.2)
    assert metric(big, "read.amplification") > 40
    assert metric(small, "alacrity.latency") > 0


def test_fio(tmpfs_target: Path, spool: Path, tmp_path: Path) -> None:
    if shutil.which("fio") is None:
        skip_unless_able("fio is not installed (Debian: see tests/agent/SYSTEM_PACKAGES)")
    runs = _run(
        tmpfs_target, spool, tmp_path, "fio",
        "-p", "rw=write,read", "-p", "size=4M", "-p", "bs=64k", "-n", "1", "--no-warmup",
    )  # fmt: skip
    # the server's fio importer's names and units, so both land in the same series
    assert metric(runs[0], "write.bw") > 0
    assert metric(runs[1], "read.iops") > 0 and metric(runs[1], "read.clat_p99") > 0
    units = {r["metric"]: r["unit"] for r in runs[1]["results"]}
    assert units["read.bw"] == "KiB/s" and units["read.clat_p50"] == "us"
    assert runs[1]["meta"]["fio_json"]["jobs"][0]["jobname"] == "job"


def test_command_with_substitution(tmpfs_target: Path, spool: Path, tmp_path: Path) -> None:
    script = 'echo "hello"; echo "{\\"copy.seconds\\": {k}, \\"seg\\": {\\"value\\": {k}, \\"unit\\": \\"KiB\\", \\"direction\\": \\"lower\\"}}"'
    runs = _run(
        tmpfs_target, spool, tmp_path, "command", "-p", f"cmd={script}", "-p", "k=1,2", "-n", "1"
    )
    assert [metric(r, "copy.seconds") for r in runs] == [1.0, 2.0]
    assert [r["parameters"]["k"] for r in runs] == [1, 2]
    seg = next(x for x in runs[1]["results"] if x["metric"] == "seg")
    assert seg["unit"] == "KiB" and seg["direction"] == "lower"


def test_refuses_a_foreign_target(tmp_path: Path, spool: Path) -> None:
    target = tmp_path / "home"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    res = run_agent("run", "smallfile", "--target", str(target), "-p", "nfiles=10", spool=spool)
    assert res.returncode == 2
    assert "not empty" in res.stderr and "--force" in res.stderr
    assert os.listdir(target) == ["notes.txt"]


def test_workloads_lists_parameters(spool: Path) -> None:
    res = run_agent("workloads", spool=spool)
    assert res.returncode == 0
    for name in ("smallfile", "seqio", "treeops", "extract", "partialread", "fio", "command"):
        assert f"{name}:" in res.stdout
    for param in ("nfiles", "blocksize", "direct", "depth", "segsize", "readsize", "archive"):
        assert param in res.stdout


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(
    tmpfs_target: Path, spool: Path, tmp_path: Path
) -> None:
    out = tmp_path / "runs.json"
    cmd = 'test {k} = 2 && echo "broken on purpose" >&2 && exit 3; echo \'{"v": {k}}\''
    res = run_agent("run", "command", "--target", str(tmpfs_target), "-p", f"cmd={cmd}",
                    "-p", "k=1,2,3", "-n", "1", "--output", str(out), spool=spool)  # fmt: skip
    assert res.returncode == 5, res.stderr
    assert [r["status"] for r in res.runs] == ["ok", "failed", "ok"]
    assert "broken on purpose" in res.runs[1]["meta"]["error"]
    RunBatchCreate.model_validate({"runs": res.runs})
    assert os.listdir(tmpfs_target) == []
