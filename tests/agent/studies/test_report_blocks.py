"""The default study reports' blocks against the runs the studies make: every explore and
compare block splits or groups by filesystem, no compare cell pools runs that differ in more
than the study's row dimension (the file size, the tree size), and every comparison pairs this
machine's first-run runs with reference runs (no block needs the `firstrun` label). The runs
are enumerated from the studies' own specs (quick and full, every variant, tmpfs too), as
`study run` and the first run make them; the blocks are read from the shipped JSON."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from perfatlas_agent.measure.sweep import plan_runs
from perfatlas_agent.studies import all_studies
from perfatlas_agent.studies.model import DEFAULT, Options

DEFAULTS = Path(__file__).resolve().parents[3] / "backend" / "perfatlas" / "reports" / "defaults"
DISKS = ("ext4", "xfs", "btrfs")
FS_DIMENSIONS = {"fs", "label.fs", "fs_type", "env.fs_type"}
# What a study's table may hold several of in one cell's column: its rows.
ROWS = {"bonnie-001": {"filesize"}, "treewalk-002": {"inodes"}}
ORIGIN = {"firstrun", "label.firstrun"}


def blocks() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(DEFAULTS.glob("study-*.json")):
        study = path.stem.removeprefix("study-")
        out += [(study, b) for b in json.loads(path.read_text())["blocks"]]
    return out


def study_runs(name: str) -> list[dict[str, Any]]:
    """Every run the study makes (quick and full), as workload, parameters and labels."""
    study = all_studies()[name]
    runs = []
    for quick in (True, False):
        options = Options(quick=quick, ram_bytes=24 << 30)
        where = [(fs, v.name, False) for fs in DISKS for v in study.variants]
        for fs, variant, memory in [*where, ("tmpfs", DEFAULT, True)]:
            for spec in study.specs(options, variant, ["/x"], memory=memory,
                                    labels={"firstrun": "true"}):  # fmt: skip
                for request in spec.requests():
                    workload, points = plan_runs(request)
                    runs += [{"workload": workload.name, "parameters": p, "quick": quick,
                              "labels": {**request.labels, "fs": fs}} for p in points]  # fmt: skip
    return runs


def lookup(run: dict[str, Any], name: str) -> Any:
    """A bare name is the parameter if there is one, else the label (as explore resolves it)."""
    prefix, dot, rest = name.partition(".")
    if dot and prefix == "label":
        return run["labels"].get(rest)
    if dot and prefix == "param":
        return run["parameters"].get(rest)
    return run["parameters"].get(name, run["labels"].get(name))


def matches(run: dict[str, Any], filters: list[str]) -> bool:
    wanted: dict[str, set[str]] = defaultdict(set)
    for item in filters:
        name, _, value = item.partition(":")
        wanted[name].add(value)  # several values of one name: any of them
    return all(str(lookup(run, name)) in values for name, values in wanted.items())


def metrics_of(run: dict[str, Any]) -> str:
    """The metric prefix a run's results have (extract: tar.* for GNU tar, else extract.*)."""
    if run["workload"] == "extract":
        return "tar" if run["parameters"]["extractor"] == "tar" else "extract"
    return "*"


@pytest.mark.parametrize(
    ("study", "block"), blocks(), ids=[f"{s}:{i}" for i, (s, _) in enumerate(blocks())]
)
def test_every_block_splits_or_groups_by_filesystem(study: str, block: dict[str, Any]) -> None:
    if block["kind"] not in ("explore", "compare"):
        return
    grouped = block.get("group") in FS_DIMENSIONS or block.get("by") in FS_DIMENSIONS
    one_fs = [f for f in block.get("filter", []) if f.partition(":")[0] in FS_DIMENSIONS]
    assert grouped or len(one_fs) == 1, f"{study}: {block['title']} pools filesystems"
    assert not any(f.partition(":")[0] in ORIGIN for f in block.get("filter", []))
    if block["kind"] == "compare":
        # Across agents and targets (a filesystem is a mount), and the first run's label.
        assert {"agent", "target", "firstrun"} <= set(block["pair_ignore"]), block["title"]


@pytest.mark.parametrize("study", sorted(all_studies()))
def test_no_compare_cell_pools_series_beyond_the_studys_rows(study: str) -> None:
    """Each column of a compare block holds, per metric and per value of the study's row
    dimension, at most one series of the study's runs (the pairing's key without what the
    block leaves out), the same in every column it runs in (so they pair), and some column
    holds one."""
    runs = study_runs(study)
    assert runs
    # The blocks of the study's runs (not the seed's own tables, labelled with the seed's).
    compares = [b for s, b in blocks()
                if s == study and b["kind"] == "compare" and f"study:{study}" in b["filter"]]  # fmt: skip
    for block in compares:
        ignore = {n.removeprefix("label.") for n in block["pair_ignore"]} | {"quick"}
        by = block["by"].removeprefix("label.")
        filled = set()
        for quick in (True, False):
            cells: dict[tuple[str, str], set[str]] = defaultdict(set)
            for run in runs:
                if run["quick"] != quick or run["workload"] != block["workload"]:
                    continue
                if not matches(run, block["filter"]):
                    continue
                column = str(lookup(run, block["by"]))
                if column not in block["values"]:
                    continue
                rows = ROWS.get(study, set())
                key = {k: v for k, v in {**run["parameters"], **run["labels"]}.items()
                       if k not in ignore and k != by and k not in rows}  # fmt: skip
                cells[(column, metrics_of(run))].add(json.dumps(key, sort_keys=True, default=str))
                filled.add(column)
            for (column, metric), keys in cells.items():
                assert len(keys) == 1, (block["title"], quick, column, metric, sorted(keys))
            # Every column pairs with the others: the same series but the compared dimension
            # (tmpfs's write_cache=memory beside the disks' write-back: left out of the key).
            for metric in {m for _, m in cells}:
                keys = {c: k for (c, m), k in cells.items() if m == metric}
                assert len({json.dumps(sorted(k)) for k in keys.values()}) == 1, (
                    block["title"], quick, metric, keys)  # fmt: skip
        assert filled, f"{block['title']}: no run of the study in any column"
