"""treeops builds a tree of exactly the inodes asked for (studies sweep tree size), on tmpfs and
a loop-mounted ext4; counted with os.walk, not with the agent's own walk."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.measurement import RunBatchCreate
from perfatlas_agent.workloads.trees import TreeShape, build_tree, regular_shape
from tests.agent.conftest import metric, run_agent


def census(root: Path) -> tuple[int, int, int, int, list[int]]:
    """(inodes, directories, files, max depth below root, files per directory) by os.walk."""
    dirs, files, depth = 1, 0, 0
    per_dir: list[int] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirs += len(dirnames)
        files += len(filenames)
        per_dir.append(len(filenames))
        depth = max(depth, len(Path(dirpath).relative_to(root).parts))
    return dirs + files, dirs, files, depth, per_dir


@pytest.mark.parametrize("where", ["tmpfs", "ext4"])
def test_the_tree_has_exactly_the_inodes_asked_for(
    where: str, tmpfs_target: Path, loopfs: Any
) -> None:
    base = tmpfs_target if where == "tmpfs" else loopfs("ext4").mount_point / "shape"
    base.mkdir(parents=True, exist_ok=True)
    cases = [(1, 4, 10), (2, 4, 10), (11, 4, 10), (12, 4, 10), (250, 3, 0), (1234, 2, 7),
             (5000, 10, 3), (3001, 4, 10)]  # fmt: skip
    for k, (inodes, fanout, files) in enumerate(cases):
        shape = TreeShape(inodes, fanout, files)
        root = base / f"t{k}"
        made = build_tree(str(root), shape, size=3 if k % 2 else 0, threads=1 + k % 3)
        total, dirs, nfiles, depth, per_dir = census(root)
        assert (made, total) == (inodes, inodes), (inodes, fanout, files)
        assert (dirs, nfiles, depth) == (shape.dirs, shape.files, shape.depth)
        assert max(per_dir) <= files and sum(per_dir) == nfiles
        shutil.rmtree(root)


def test_a_regular_shape_is_depth_fanout_files(tmpfs_target: Path) -> None:
    tmpfs_target.mkdir()
    shape = regular_shape(depth=2, fanout=3, files=5)
    assert shape.inodes == (1 + 3 + 9) * 6 and shape.depth == 2
    build_tree(str(tmpfs_target / "r"), shape, size=0, threads=2)
    total, dirs, files, depth, per_dir = census(tmpfs_target / "r")
    assert (total, dirs, files, depth) == (78, 13, 65, 2) and per_dir == [5] * 13


def test_runs_sweep_the_tree_size_in_inodes(
    tmpfs_target: Path, spool: Path, tmp_path: Path
) -> None:
    out = tmp_path / "runs.json"
    res = run_agent("run", "treeops", "--target", str(tmpfs_target), "--output", str(out),
                    "-p", "inodes=300,1700", "-p", "fanout=3", "-p", "files=6",
                    "-p", "threads=2", "-n", "1", spool=spool)  # fmt: skip
    assert res.returncode == 0, res.stderr
    RunBatchCreate.model_validate({"runs": res.runs})
    for run, inodes in zip(res.runs, (300, 1700), strict=True):
        assert run["parameters"]["inodes"] == inodes and "depth" not in run["parameters"]
        shape = TreeShape(inodes, 3, 6)
        assert run["meta"]["tree"] == shape.describe()
        assert (
            run["meta"]["tree"]["depth"] == {300: 4, 1700: 5}[inodes]
        )  # 43 and 243 directories, fanout 3
        for phase in ("build", "walk_serial", "walk", "walk_find", "delete_serial", "delete"):
            rate, secs = metric(run, f"{phase}.inodes_per_s"), metric(run, f"{phase}.seconds")
            assert rate * secs == pytest.approx(inodes), phase
