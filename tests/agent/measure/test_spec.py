"""`perfatlas-agent run --spec FILE.json`: the server's WorkloadSpec run for real (several
targets, lists sweeping), bad specs refused naming the field; labels in a `command`."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.measurement import RunBatchCreate
from perfatlas.core.workload import WorkloadSpec
from tests.agent.conftest import metric, run_agent


@pytest.fixture
def two_targets(tmpfs_root: Path) -> Iterator[list[Path]]:
    made = [tmpfs_root / f"spec-{uuid.uuid4().hex[:8]}" for _ in range(2)]
    yield made
    for path in made:
        shutil.rmtree(path, ignore_errors=True)


def _write(tmp_path: Path, spec: dict[str, Any]) -> Path:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return path


def test_spec_sweeps_over_several_targets(
    two_targets: list[Path], tmp_path: Path, spool: Path
) -> None:
    spec = {
        "workload": "smallfile",
        "targets": [str(t) for t in two_targets],
        "params": {"nfiles": 150, "size": ["1k", "4k"], "threads": [1, 2], "fsync": "none"},
        "repetitions": 2,
        "labels": {"version": "1.2"},
        "min_seconds": 0,
        "warmup": False,
    }
    out = tmp_path / "runs.json"
    res = run_agent(
        "run", "--spec", str(_write(tmp_path, spec)), "--label", "rack=r7", "--output", str(out),
        spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    RunBatchCreate.model_validate({"runs": res.runs})
    # The server's own count of the spec's runs: targets × the product of the list lengths.
    assert len(res.runs) == WorkloadSpec.model_validate(spec).points() == 2 * 2 * 2
    by_target: dict[str, list[tuple[int, int]]] = {}
    for run in res.runs:
        by_target.setdefault(run["target"], []).append(
            (run["parameters"]["size"], run["parameters"]["threads"])
        )
        assert run["parameters"]["nfiles"] == 150
        assert run["labels"] == {"version": "1.2", "rack": "r7"}
        assert "version" not in run["parameters"]
        res_samples = {r["metric"]: r["samples"] for r in run["results"]}
        assert len(res_samples["create.ops_per_s"]) == 2  # repetitions, no warm-up
        # The create phase made nfiles files: each repetition's rate times its time (not the
        # medians' product, which with 2 repetitions exceeds nfiles by Jensen's inequality).
        for rate, secs in zip(
            res_samples["create.ops_per_s"], res_samples["create.seconds"], strict=True
        ):
            assert rate * secs == pytest.approx(150, rel=1e-6)
    expected_points = sorted((s, t) for s in (1024, 4096) for t in (1, 2))
    assert sorted(by_target) == sorted(str(t) for t in two_targets)
    assert all(sorted(points) == expected_points for points in by_target.values())
    assert [r["target"] for r in res.runs] == [str(two_targets[0])] * 4 + [str(two_targets[1])] * 4
    for target in two_targets:
        assert os.listdir(target) == [], "the runs left files behind"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"repetitions": 0}, "repetitions"),
        ({"params": {"nfiles": []}}, "params.nfiles"),
        ({"params": {"nfiles": {"a": 1}}}, "params.nfiles"),
        ({"labels": {"version": 12}}, "labels.version"),
        ({"targets": []}, "targets"),
        ({"target": "/tmp/x"}, "target"),
        ({"warmup": "maybe"}, "warmup"),
        ({"min_seconds": -1}, "min_seconds"),
        ({"workload": "Small File"}, "workload"),
    ],
)
def test_bad_spec_names_the_field(
    tmp_path: Path, spool: Path, change: dict[str, Any], field: str
) -> None:
    spec = {"workload": "smallfile", "targets": [str(tmp_path / "t")], **change}
    with pytest.raises(ValueError, match=field.split(".")[0]):  # the server refuses it too
        WorkloadSpec.model_validate(spec)
    res = run_agent("run", "--spec", str(_write(tmp_path, spec)), spool=spool)
    assert res.returncode == 2, res.stderr
    assert f"spec field {field}:" in res.stderr
    assert not (tmp_path / "t").exists(), "nothing may run for a bad spec"


def test_unknown_parameter_of_the_workload_is_refused_before_any_target(
    tmp_path: Path, spool: Path
) -> None:
    targets = [str(tmp_path / "a"), str(tmp_path / "b")]
    spec = {"workload": "smallfile", "targets": targets, "params": {"nfile": 10}}
    res = run_agent("run", "--spec", str(_write(tmp_path, spec)), spool=spool)
    assert res.returncode == 2, res.stderr
    assert "unknown parameter(s) nfile" in res.stderr
    assert not any(Path(t).exists() for t in targets)


def test_spec_excludes_the_workload_options(tmp_path: Path, spool: Path) -> None:
    spec = _write(tmp_path, {"workload": "smallfile", "targets": [str(tmp_path / "t")]})
    res = run_agent("run", "--spec", str(spec), "--target", str(tmp_path / "u"), "-n", "2",
                    spool=spool)  # fmt: skip
    assert res.returncode == 2
    assert "--target, --repetitions cannot be given with it" in res.stderr


def test_labels_are_substituted_into_a_command_and_exported(tmp_path: Path, spool: Path) -> None:
    # The metric depends on the label twice: through {version} and through the environment.
    cmd = 'echo "{\\"v\\": {version}{k}, \\"e\\": $PERFATLAS_LABEL_VERSION, \\"p\\": $PERFATLAS_PARAM_K}"'
    spec = {
        "workload": "command",
        "targets": [str(tmp_path / "t")],
        "params": {"cmd": cmd, "k": [1, 2]},
        "repetitions": 1,
        "labels": {"version": "3"},
        "min_seconds": 0,
        "warmup": False,
    }
    out = tmp_path / "runs.json"
    res = run_agent("run", "--spec", str(_write(tmp_path, spec)), "--output", str(out),
                    spool=spool)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert [(metric(r, "v"), metric(r, "e"), metric(r, "p")) for r in res.runs] == [
        (31.0, 3.0, 1.0),
        (32.0, 3.0, 2.0),
    ]
    for run in res.runs:
        assert run["labels"] == {"version": "3"}
        assert set(run["parameters"]) == {"cmd", "k", "timeout"}, "a label is no parameter"

    # --label on the command line, without a spec; a label name with a dot becomes _ in the
    # environment.
    out2 = tmp_path / "runs2.json"
    res2 = run_agent(
        "run", "command", "--target", str(tmp_path / "t2"), "-n", "1", "--no-warmup",
        "-p", 'cmd=echo "{\\"v\\": {version}, \\"f\\": $PERFATLAS_LABEL_FS_VERSION}"',
        "--label", "version=41", "--label", "fs.version=6", "--output", str(out2), spool=spool,
    )  # fmt: skip
    assert res2.returncode == 0, res2.stderr
    (run,) = res2.runs
    assert (metric(run, "v"), metric(run, "f")) == (41.0, 6.0)
    assert run["labels"] == {"version": "41", "fs.version": "6"}


def test_a_name_both_label_and_parameter_is_refused(tmp_path: Path, spool: Path) -> None:
    res = run_agent(
        "run", "command", "--target", str(tmp_path / "t"), "-p", "cmd=echo {version}",
        "-p", "version=1", "--label", "version=2", spool=spool,
    )  # fmt: skip
    assert res.returncode == 2
    assert "version is both a label and a parameter" in res.stderr
    assert not (tmp_path / "t").exists()
