"""Fast checks of the agent's building blocks (no workload I/O)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from perfatlas_agent import ParameterError, TargetError
from perfatlas_agent.measure.params import expand_sweep, parse_size
from perfatlas_agent.measure.stats import summarize
from perfatlas_agent.measure.targets import MARKER, WORK_SUBDIR, claim_target, release_target
from perfatlas_agent.send.spool import Spool
from perfatlas_agent.workloads import get_workload
from perfatlas_agent.workloads.command import parse_output, substitute


def test_sizes_are_binary() -> None:
    assert parse_size("30B") == 30
    assert parse_size("4k") == 4096
    assert parse_size("4KiB") == 4096
    assert parse_size("1M") == 1 << 20
    assert parse_size("2g") == 2 << 30
    with pytest.raises(ParameterError):
        parse_size("lots")


def test_sweep_is_a_cartesian_product_over_defaults() -> None:
    specs = get_workload("smallfile").params
    points = expand_sweep(specs, {"threads": "1,2,4", "fsync": "false,true", "size": "30B"})
    assert len(points) == 6
    assert {(p["threads"], p["fsync"]) for p in points} == {
        (t, f) for t in (1, 2, 4) for f in ("none", "file")
    }, "fsync=false/true are the older spellings of none/file"
    assert [p["fsync"] for p in expand_sweep(specs, {"fsync": "none,file,end"})] == [
        "none", "file", "end",
    ]  # fmt: skip
    assert all(p["size"] == 30 and p["nfiles"] == 1000 for p in points)


def test_unknown_parameter_is_named() -> None:
    with pytest.raises(ParameterError, match="nfile"):
        expand_sweep(get_workload("smallfile").params, {"nfile": "10"})


def test_threads_auto_and_choices() -> None:
    points = expand_sweep(get_workload("treeops").params, {"threads": "auto,4"})
    assert [p["threads"] for p in points] == ["auto", 4]
    with pytest.raises(ParameterError, match="none, file, end"):
        expand_sweep(get_workload("extract").params, {"fsync": "always"})


def test_summary_median_and_spread() -> None:
    s = summarize([10, 12, 11, 30, 9])
    assert s["median"] == 11
    assert s["min"] == 9 and s["max"] == 30
    assert s["p5"] < s["median"] < s["p95"] <= 30
    assert s["spread"] == pytest.approx(21 / 11)


def test_target_guard_refuses_foreign_files(tmp_path: Path) -> None:
    target = tmp_path / "home"
    target.mkdir()
    (target / "thesis.tex").write_text("precious")
    with pytest.raises(TargetError, match="not empty"):
        claim_target(target, force=False)
    work = claim_target(target, force=True)
    assert work.path.parent == target and (work.path / MARKER).exists()
    release_target(work)
    assert (target / "thesis.tex").read_text() == "precious"
    assert not (target / WORK_SUBDIR).exists()


def test_target_guard_accepts_its_own_leftovers(tmp_path: Path) -> None:
    work = claim_target(tmp_path / "t", force=False)
    (work.path / "left-by-a-crash").write_text("x")
    work.release()
    again = claim_target(tmp_path / "t", force=False)
    assert again.path == work.path
    release_target(again)
    assert os.listdir(tmp_path / "t") == []


def test_two_agents_in_one_target_each_keep_the_others_runs(tmp_path: Path) -> None:
    """One host, or one network mount seen by two machines: the first agent done leaves the work
    folder to the other, whose run goes on; the last one out removes it."""
    first = claim_target(tmp_path / "t", force=False)
    second = claim_target(tmp_path / "t", force=False)
    assert first.path == second.path
    (second.path / "run-2").mkdir()
    (second.path / "run-2" / "data").write_text("the second agent's run")
    release_target(first)
    assert (second.path / "run-2" / "data").read_text() == "the second agent's run"
    third = claim_target(tmp_path / "t", force=False)  # a third comes and goes meanwhile
    release_target(third)
    assert (second.path / "run-2").is_dir()
    release_target(second)
    assert os.listdir(tmp_path / "t") == []
    release_target(second)  # twice is harmless


def test_target_guard_refuses_a_work_folder_it_did_not_make(tmp_path: Path) -> None:
    (tmp_path / "t" / WORK_SUBDIR).mkdir(parents=True)
    with pytest.raises(TargetError, match="not made by the agent"):
        claim_target(tmp_path / "t", force=False)


def test_spool_roundtrip_and_reject(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    run = {"uuid": "0b6f7c52-0c43-4bb5-9c59-6d7b8f1f1a01", "workload": "x"}
    path = spool.put(run)
    assert spool.pending() == [path]
    assert json.loads(path.read_text()) == run
    assert not [p for p in os.listdir(spool.root) if p.endswith(".tmp")]
    spool.reject(run["uuid"], "HTTP 422: unit: unknown unit")
    assert spool.pending() == []
    assert [p.name for p in spool.rejected()] == [path.name]
    assert "unknown unit" in (spool.rejected_dir / f"{run['uuid']}.reason.txt").read_text()


def test_command_substitution_keeps_json_braces() -> None:
    cmd = substitute('echo \'{"k": {k}, "x": 1}\' {missing}', {"k": 3})
    assert cmd == 'echo \'{"k": 3, "x": 1}\' {missing}'


def test_command_output_forms() -> None:
    out = parse_output('noise\n{"a.seconds": 1.5, "b": {"value": 2, "unit": "MB/s"}}\n')
    assert out["a.seconds"].unit == "s" and out["a.seconds"].direction is None
    assert out["b"].unit == "MB/s" and out["b"].value == 2
    assert parse_output('{"metrics": {"c": 3}}')["c"].direction == "higher"


def _disk(root: Path, name: str, kernel: str, **files: str) -> Path:
    """A block device's sysfs folder as the kernel lays it out (only the files read)."""
    disk = root / name
    (disk / "queue").mkdir(parents=True)
    (disk / "queue/write_cache").write_text(kernel + "\n")
    for rel, text in files.items():
        path = disk / rel.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    return disk


@pytest.mark.parametrize(
    ("kernel", "device", "flush"),
    [
        ("write back", "write back", True),  # flushes sent to a caching disk
        ("write through", "write through", True),  # no cache: nothing to flush
        ("write through", "write back", False),  # set by hand over a caching disk: dropped
        ("write through", "write back, no read (daft)", False),
        ("write through", None, None),  # the disk does not say: unknown
    ],
)
def test_flush_to_device_decision(
    tmp_path: Path, kernel: str, device: str | None, flush: bool | None
) -> None:
    from perfatlas_agent.measure.durability import cache_facts, storage_facts

    files = {"device__scsi_disk__0:0:0:0__cache_type": device} if device else {}
    disk = _disk(tmp_path, "sda", kernel, **files)
    facts = cache_facts(disk)
    assert facts.kernel_mode == kernel and facts.flush_to_device is flush
    stored = storage_facts("ext4", [disk])
    assert stored["write_cache"] == kernel and stored["flush_to_device"] is flush
    assert stored["memory_backed"] is False
    assert storage_facts("tmpfs", [])["flush_to_device"] is False
    assert storage_facts("nfs4", [])["flush_to_device"] is None


def test_stacked_device_is_as_safe_as_its_least_safe_member(tmp_path: Path) -> None:
    from perfatlas_agent.measure.durability import cache_facts

    safe = _disk(tmp_path, "vda", "write back", cache_type="write back")
    unsafe = _disk(tmp_path, "vdb", "write through", cache_type="write back")
    md = _disk(tmp_path, "md0", "write back")
    (md / "slaves").mkdir()
    (md / "slaves/vda").symlink_to(safe)
    assert cache_facts(md).flush_to_device is True
    (md / "slaves/vdb").symlink_to(unsafe)
    assert cache_facts(md).flush_to_device is False
