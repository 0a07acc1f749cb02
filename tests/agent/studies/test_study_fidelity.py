"""The studies measure what their seeds did: smallfile's warm phases per pass over the files
(as read_cold's one pass), seqio's warm reads (bonnie's, without a cache drop) apart from its
cold ones, and quick studies with the repetitions compare needs for a verdict."""

from __future__ import annotations

import csv
import io
import statistics
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.significance import MIN_SAMPLES
from perfatlas_agent.firstrun.plan import schedules
from perfatlas_agent.firstrun.targets import Target
from perfatlas_agent.studies import all_studies
from perfatlas_agent.studies.model import Options
from tests.agent.conftest import run_agent


def samples(run: dict[str, Any], name: str) -> list[float]:
    return next(r["samples"] for r in run["results"] if r["metric"] == name)


def smallfile(target: Path, spool: Path, tmp_path: Path, nfiles: int, passes: int) -> Any:
    out = tmp_path / f"sf-{target.parent.name}.json"
    res = run_agent(
        "run", "smallfile", "--target", str(target), "-p", f"nfiles={nfiles}",
        "-p", f"passes={passes}", "-p", "size=29B", "-n", "3", "--no-warmup",
        "--output", str(out), spool=spool,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    (run,) = res.runs
    rows = list(csv.DictReader(io.StringIO(
        (out.with_suffix(".attachments") / run["uuid"] / "latencies.csv").read_text())))  # fmt: skip
    return run, rows


@pytest.mark.parametrize("fs", ["tmpfs", "ext4"])
def test_smallfile_warm_phases_are_seconds_per_pass(
    fs: str, tmpfs_target: Path, loopfs: Any, spool: Path, tmp_path: Path
) -> None:
    """read_warm.seconds and stat.seconds are one pass over the files: the timed total over
    the passes, which is the sum of every operation's latency in the raw file (one thread:
    each latency is the time since the previous operation ended), divided by the passes."""
    target = tmpfs_target if fs == "tmpfs" else loopfs("ext4").mount_point / "perpass"
    nfiles, passes = 300, 4
    run, rows = smallfile(target, spool, tmp_path, nfiles, passes)
    assert run["environment"]["fs_type"] == fs
    assert "one pass over the files" in run["meta"]["per_pass"]
    for phase, rounds in (("create", 1), ("read_cold", 1), ("read_warm", passes),
                          ("stat", passes), ("delete", 1)):  # fmt: skip
        per_pass = samples(run, f"{phase}.seconds")
        rates = samples(run, f"{phase}.ops_per_s")
        # The measured repetitions in order (no warm-up asked for): rep0, rep1, rep2.
        reps = sorted({int(r["repetition"]) for r in rows})
        for rep, secs, rate in zip(reps, per_pass, rates, strict=True):
            ops = [float(r["seconds"]) for r in rows
                   if int(r["repetition"]) == rep and r["phase"] == phase]  # fmt: skip
            assert len(ops) == nfiles * rounds, phase
            # The oracle: the raw latencies' sum (the timed phase), one pass of it.
            assert secs == pytest.approx(sum(ops) / rounds, rel=1e-6, abs=1e-8), phase
            # ops/s is per operation: a pass's nfiles in a pass's seconds.
            assert rate * secs == pytest.approx(nfiles, rel=1e-6), phase
        if rounds > 1:
            total = samples(run, f"{phase}.seconds_total")
            assert total == pytest.approx([s * passes for s in per_pass], rel=1e-9)
        else:
            assert f"{phase}.seconds_total" not in {r["metric"] for r in run["results"]}
    if fs == "ext4":
        # Cold reads after drop_caches against warm ones from the cache, pass for pass: the
        # totals (what the rows held before) hid this.
        warm = statistics.median(samples(run, "read_warm.seconds"))
        assert warm < statistics.median(samples(run, "read_cold.seconds"))
    # The short-phase flag reads the timed total of a per-pass phase.
    short = set(run["meta"]["short_phases"])
    for phase in ("read_warm", "stat"):
        timed = min(samples(run, f"{phase}.seconds_total"))
        assert (phase in short) == (timed < run["meta"]["short_phase_threshold_s"]), phase


def test_seqio_reads_warm_or_cold_and_says_which(loopfs: Any, spool: Path, tmp_path: Path) -> None:
    """cache=warm reads what the writes left in the page cache (no drop: cold_method none);
    cache=cold drops it as a run without the option does (and that run's parameters stay as
    they were, so its series go on)."""
    target = loopfs("ext4").mount_point / "seqio-cache"
    common = ["-p", "filesize=16M", "-p", "blocksize=64k", "-p", "seeks=200",
              "-p", "perchar=false", "-n", "3", "--no-warmup"]  # fmt: skip
    out = tmp_path / "cache.json"
    res = run_agent("run", "seqio", "--target", str(target), *common, "-p", "cache=cold,warm",
                    "--output", str(out), spool=spool)  # fmt: skip
    assert res.returncode == 0, res.stderr
    cold, warm = res.runs
    plain_out = tmp_path / "plain.json"
    plain = run_agent("run", "seqio", "--target", str(target), *common,
                      "--output", str(plain_out), spool=spool)  # fmt: skip
    assert plain.returncode == 0, plain.stderr
    (before,) = plain.runs
    assert (cold["parameters"]["cache"], warm["parameters"]["cache"]) == ("cold", "warm")
    assert "cache" not in before["parameters"]
    assert cold["cold_method"] == before["cold_method"] == "drop_caches"
    assert warm["cold_method"] == "none" and "no drop" in warm["meta"]["cache"]
    # The file fits in memory: read warm it comes from the cache, faster than from the disk
    # after a drop, in every repetition.
    assert min(samples(warm, "read.mb_per_s")) > max(samples(cold, "read.mb_per_s"))


def test_quick_studies_repeat_enough_for_a_verdict() -> None:
    """Every spec of every quick study, and every schedule of the first run, repeats at least
    as often as compare needs for a verdict."""
    quick = Options(quick=True, ram_bytes=24 << 30)
    for name, study in all_studies().items():
        for variant in study.variants:
            for memory in (False, True):
                for spec in study.specs(quick, variant.name, ["/x"], memory=memory):
                    assert spec.repetitions >= MIN_SAMPLES >= 3, (name, variant.name, memory)
    targets = [Target("ext4", Path("/x/ext4"), memory=False),
               Target("tmpfs", Path("/x/tmpfs"), memory=True)]  # fmt: skip
    planned = schedules(list(all_studies()), targets, quick)
    assert planned and min(p.spec["repetitions"] for p in planned) >= MIN_SAMPLES


def test_bonnie_runs_cold_and_warm_at_both_sizes_on_disks() -> None:
    """bonnie-001's warm variant: both file sizes read cold and warm on a disk filesystem;
    tmpfs (the cache itself) reads the small file cold only."""
    study = all_studies()["bonnie-001"]
    for quick in (True, False):
        options = Options(quick=quick, ram_bytes=24 << 30)
        for memory in (False, True):
            got = {}
            for spec in study.specs(options, "default", ["/x"], memory=memory):
                if spec.workload == "seqio":
                    sizes = spec.params["filesize"]
                    got[spec.params["cache"]] = sizes if isinstance(sizes, list) else [sizes]
            if memory:
                assert list(got) == ["cold"] and len(got["cold"]) == 1
            else:
                assert sorted(got) == ["cold", "warm"] and got["cold"] == got["warm"]
                assert len(got["warm"]) == 2
