"""--min-seconds: the agent grows the work until each timed phase lasts long enough, calibrated
outside the measured repetitions, and records the sizes it used."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.measurement import RunBatchCreate
from perfatlas_agent.measure.calibrate import MARGIN, Knob, apply_growth, plan_growth
from tests.agent.conftest import IS_ROOT, run_agent
from tests.conftest import skip_unless_able

PHASES = ("create", "read_cold", "read_warm", "stat", "delete")
WARM = ("read_warm", "stat")


def samples(run: dict[str, Any], name: str) -> list[float]:
    return next(r["samples"] for r in run["results"] if r["metric"] == name)


def one_run(target: Path, spool: Path, tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "runs.json"
    res = run_agent("run", *args, "--target", str(target), "--output", str(out), spool=spool)
    assert res.returncode == 0, res.stderr
    RunBatchCreate.model_validate({"runs": res.runs})
    (run,) = res.runs
    return run


@pytest.fixture
def roomy_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs with room for the files --min-seconds asks for (it takes memory only as used)."""
    if not IS_ROOT:
        skip_unless_able("mounting a tmpfs needs root")
    mnt = tmp_path / "roomy"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2g", "tmpfs", str(mnt)], check=True)
    yield mnt / uuid.uuid4().hex[:8]
    subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_min_seconds_grows_smallfile_on_tmpfs_and_records_the_sizes(
    roomy_tmpfs: Path, spool: Path, tmp_path: Path
) -> None:
    s = 0.2
    run = one_run(roomy_tmpfs, spool, tmp_path, "smallfile", "--min-seconds", str(s), "-n", "2")
    assert run["memory_backed"] is True
    params, meta = run["parameters"], run["meta"]
    steps = meta["min_seconds_steps"]
    assert meta["min_seconds"] == s
    # It started from the defaults and grew: 1000 files take milliseconds on tmpfs.
    assert steps[0]["sizes"] == {"nfiles": 1000}
    nfiles, passes = params["nfiles"], params.get("passes", 1)
    assert nfiles > 1000 and nfiles % 1000 == 0 and (nfiles // 1000).bit_count() == 1
    assert meta["min_seconds_sizes"] == {k: params[k] for k in ("nfiles", "passes") if k in params}
    # The last calibration repetition ran at the sizes kept, with every phase long enough, and
    # stood in for the warm-up; the measured repetitions are the two asked for.
    last = steps[-1]
    assert last["sizes"] == meta["min_seconds_sizes"] and last["factors"] == {}
    assert meta["warmup"] == "the last calibration repetition"
    assert "min_seconds_unreached" not in meta
    for phase in PHASES:
        assert last["phase_seconds"][phase] >= s * MARGIN, phase
    assert [len(r["samples"]) for r in run["results"] if r["metric"] == "create.seconds"] == [2]
    # The sizes recorded are the sizes that ran: operations = rate x time, in each repetition
    # (the warm phases' seconds are per pass, their timed total over `passes` passes).
    timed = {
        p: f"{p}.seconds_total" if p in WARM and passes > 1 else f"{p}.seconds" for p in PHASES
    }
    for phase in PHASES:
        ops = nfiles * (passes if phase in WARM else 1)
        rates, secs = samples(run, f"{phase}.ops_per_s"), samples(run, timed[phase])
        assert [r * t for r, t in zip(rates, secs, strict=True)] == pytest.approx([ops] * 2), phase
        per_pass = samples(run, f"{phase}.seconds")
        assert [r * t for r, t in zip(rates, per_pass, strict=True)] == pytest.approx(
            [nfiles] * 2
        ), phase
    # What the run flags as short is exactly what its samples of the timed phases say.
    short = {p for p in PHASES if min(samples(run, timed[p])) < 0.5}
    assert set(meta["short_phases"]) == short


def test_sizes_given_are_kept_and_zero_turns_it_off(
    tmpfs_target: Path, spool: Path, tmp_path: Path
) -> None:
    given = one_run(tmpfs_target, spool, tmp_path, "seqio", "--min-seconds", "0.5",
                    "-p", "filesize=4M", "-p", "seeks=20", "-p", "perchar_size=1M",
                    "-n", "1")  # fmt: skip
    assert given["parameters"]["filesize"] == 4 << 20 and given["parameters"]["seeks"] == 20
    assert given["meta"]["min_seconds_fixed"] == ["filesize", "perchar_size", "seeks"]
    assert "min_seconds_steps" not in given["meta"]
    off = one_run(tmpfs_target, spool, tmp_path, "smallfile", "--min-seconds", "0", "-n", "1")
    assert off["parameters"]["nfiles"] == 1000 and "passes" not in off["parameters"]
    assert "min_seconds" not in off["meta"]
    # Left short, and flagged by what its samples say (creating 1000 files on tmpfs takes
    # milliseconds, or over half a second on a busy machine: no phase is named here).
    short = {p for p in PHASES if samples(off, f"{p}.seconds")[0] < 0.5}
    assert short and set(off["meta"]["short_phases"]) == short


def test_plan_grows_by_powers_of_two_within_room_and_shrinks_passes_back() -> None:
    knobs = [Knob("nfiles", PHASES), Knob("passes", ("read_warm", "stat"))]
    params: dict[str, Any] = {"nfiles": 1000}
    floors = {"nfiles": 1000}
    # create needs 0.625 / 0.01 = 62.5x: capped at 32 per step; read_warm then predicts 0.032s
    # and needs 19.5x more -> passes 32.
    phases = {"create": 0.01, "read_cold": 0.05, "read_warm": 0.001, "stat": 0.004, "delete": 0.02}
    plan = plan_growth(knobs, phases, params, limits={"nfiles": 10**6, "passes": 4096},
                       floors=floors, min_seconds=0.5)  # fmt: skip
    assert plan.factors == {"nfiles": 32, "passes": 32} and not plan.limited
    apply_growth(knobs, plan, params)
    assert params == {"nfiles": 32000, "passes": 32}
    # Next step: create 0.4 s needs 2x; warm phases (2.0 s at 32 passes) would be 4.0 s: passes
    # shrinks by the largest power of two that keeps them over twice the target (1.25 s):
    # 4.0 / 1.25 = 3.2 -> 2.
    phases = {"create": 0.4, "read_cold": 1.0, "read_warm": 2.0, "stat": 3.0, "delete": 0.9}
    plan = plan_growth(knobs, phases, params, limits={"nfiles": 10**6, "passes": 4096},
                       floors=floors, min_seconds=0.5)  # fmt: skip
    assert plan.factors == {"nfiles": 2, "passes": 0.5}
    apply_growth(knobs, plan, params)
    assert params == {"nfiles": 64000, "passes": 16}
    # Warm phases at 1.5 s: under four times the target, passes stays.
    phases = {"create": 0.8, "read_cold": 1.0, "read_warm": 1.5, "stat": 2.0, "delete": 0.9}
    plan = plan_growth(knobs, phases, params, limits={"nfiles": 10**6, "passes": 4096},
                       floors=floors, min_seconds=0.5)  # fmt: skip
    assert plan.factors == {"nfiles": 1, "passes": 1} and not plan.changes
    # Warm phases at 4 s, far over four times the target, but measured so (a slow pass on a
    # busy machine), not predicted from nfiles growing: the growth before stays.
    slow = {**phases, "read_warm": 4.0, "stat": 4.5}
    plan = plan_growth(knobs, slow, params, limits={"nfiles": 10**6, "passes": 4096},
                       floors=floors, min_seconds=0.5)  # fmt: skip
    assert plan.factors == {"nfiles": 1, "passes": 1} and not plan.changes
    # No room for more: the largest power of two that fits, and the phase named as unreached.
    plan = plan_growth(knobs, {**phases, "create": 0.05}, params,
                       limits={"nfiles": 200000, "passes": 4096}, floors=floors,
                       min_seconds=0.5)  # fmt: skip
    assert plan.factors["nfiles"] == 2 and "create" in plan.limited


def test_partialread_grows_its_file_with_its_reads() -> None:
    knobs = [Knob("reads", ("read",), coupled=("filesize",))]
    params: dict[str, Any] = {"reads": 200, "filesize": 64 << 20}
    plan = plan_growth(knobs, {"read": 0.1}, params, limits={"reads": 10**6},
                       floors={"reads": 200, "filesize": 64 << 20}, min_seconds=0.5)  # fmt: skip
    apply_growth(knobs, plan, params)
    assert params == {"reads": 200 * 8, "filesize": 8 * (64 << 20)}, "the share read stays"
