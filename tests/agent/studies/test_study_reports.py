"""The studies' default reports against real runs: `perfatlas report defaults` on a fresh server
(before any run: every report is created), then every quick study run for real and uploaded,
then every block of every default report answers with data from those runs, its numbers those
of the runs themselves (computed here from the runs the agent wrote); installing again keeps a
user's edits, `--replace` restores the shipped report."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.agent.conftest import run_agent
from tests.agent.studies.test_studies import needs_root
from tests.conftest import serve

DEFAULTS = Path(__file__).resolve().parents[3] / "backend" / "perfatlas" / "reports" / "defaults"
SLUGS = ["study-smallfiles-000", "study-bonnie-001", "study-treewalk-002", "study-partial-003",
         "study-durability-004"]  # fmt: skip
# Where each quick study runs: durability needs a disk for its write-cache variants, bonnie
# for its warm reads (tmpfs reads cold only: it is the cache).
WHERE = {"smallfiles-000": "ext4,tmpfs", "bonnie-001": "ext4,tmpfs", "treewalk-002": "tmpfs",
         "partial-003": "tmpfs", "durability-004": "ext4,tmpfs"}  # fmt: skip
FS_NAMES = ("fs", "label.fs")


def defaults(server: Any, *args: str) -> list[list[str]]:
    env = {**os.environ, "PERFATLAS_DATABASE_URL": server.database_url}
    res = subprocess.run([sys.executable, "-m", "perfatlas", "report", "defaults", *args],
                         env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert res.returncode == 0, res.stdout + res.stderr
    return [line.split("\t") for line in res.stdout.splitlines()]


def value(run: dict[str, Any], name: str) -> float:
    return float(next(r["value"] for r in run["results"] if r["metric"] == name))


def bare(name: str) -> str:
    prefix, dot, rest = name.partition(".")
    return rest if dot and prefix in ("label", "param") else name


def lookup(run: dict[str, Any], name: str) -> Any:
    """A bare name is the parameter if there is one, else the label (label.NAME: the label)."""
    if name.startswith("label."):
        return run["labels"].get(bare(name))
    return run["parameters"].get(bare(name), run["labels"].get(bare(name)))


def matches(run: dict[str, Any], filters: list[str]) -> bool:
    """Every name's filter holds (several values of one name: any of them)."""
    wanted: dict[str, set[str]] = {}
    for item in filters:
        name, _, want = item.partition(":")
        wanted.setdefault(name, set()).add(want)
    return all(str(lookup(run, name)) in values for name, values in wanted.items())


def not_run_here(block: dict[str, Any], study: str) -> bool:
    """A block of the study's runs on one filesystem (fs:xfs) this test did not run it on
    (the seed's own tables, fs:coda, are reference runs: not this)."""
    names = [f.partition(":")[2] for f in block.get("filter", [])
             if f.partition(":")[0] in FS_NAMES]  # fmt: skip
    mine = f"study:{study}" in block.get("filter", [])
    return mine and bool(names) and not set(names) & set(WHERE[study].split(","))


def same(got: Any, want: Any) -> bool:
    """A parameter against an answer's x or group (a number comes back as a float)."""
    if isinstance(got, int | float) and not isinstance(got, bool):
        try:
            return float(got) == float(want)
        except (TypeError, ValueError):
            return False
    return str(got) == str(want)


def check_explore(block: dict[str, Any], answer: dict[str, Any], runs: list[dict[str, Any]]) -> int:
    """Every point's median is the median of the values of the runs with its x and group."""
    assert answer["traces"], (block["title"], answer.get("note"))
    mine = [r for r in runs if r["workload"] == block["workload"] and
            matches(r, block["filter"])]  # fmt: skip
    checked = 0
    for trace in answer["traces"]:
        for point in trace["points"]:
            metric = trace["group"] if block["group"] == "metric" else block["metric"]
            values = [
                value(r, metric) for r in mine
                if same(lookup(r, block["x"]), point["x"])
                and (block["group"] == "metric" or same(lookup(r, block["group"]), trace["group"]))
            ]  # fmt: skip
            assert point["n"] == len(values) > 0, (block["title"], trace["group"], point["x"])
            assert point["median"] == pytest.approx(statistics.median(values), rel=1e-9)
            checked += 1
    return checked


def check_groups(block: dict[str, Any], answer: dict[str, Any], runs: list[dict[str, Any]]) -> int:
    """Every cell of every pair is the median of the samples of the runs in that group whose
    labels and parameters (but the ignored and the compared) are the pair's."""
    assert answer["metrics"], block["title"]
    # Labels that only say where a run came from never key a pair (compare/groups.py).
    ignore = {bare(n) for n in [*block.get("pair_ignore", []), block["by"]]} | {"firstrun", "study"}
    checked = 0
    for metric in answer["metrics"]:
        for pair in metric["pairs"]:
            for value_of_group, cell in zip(block["values"], pair["cells"], strict=True):
                if cell is None:
                    continue
                samples = [
                    s for r in runs
                    if r["workload"] == block["workload"] and matches(r, block["filter"])
                    and str(lookup(r, block["by"])) == value_of_group
                    and {k: v for k, v in r["parameters"].items() if k not in ignore}
                    == pair["key"]["parameters"]
                    and {k: v for k, v in r["labels"].items() if k not in ignore}
                    == pair["key"]["labels"]
                    for res in r["results"] if res["metric"] == metric["metric"]
                    for s in res["samples"]
                ]  # fmt: skip
                if cell["flags"] and "reference" in cell["flags"]:
                    continue  # the seed's figures: not runs of this test
                assert cell["n"] == len(samples) > 0, (block["title"], metric["metric"], pair)
                assert cell["value"] == pytest.approx(statistics.median(samples), rel=1e-9)
                checked += 1
    return checked


def test_default_reports_show_every_quick_studys_runs(tmp_path: Path) -> None:
    needs_root()
    with serve("studyreports", tmp_path) as server:
        # Before any run: the reference tables are stored and every report is created.
        first = defaults(server)
        assert [o[:2] for o in first if o[0] != "stored"] == [["created", s] for s in sorted(SLUGS)]
        assert [o[1] for o in first if o[0] == "stored"] == [
            "seed000_coda_2007.json", "seed000_coda_nfs_xfs.json"]  # fmt: skip
        runs: list[dict[str, Any]] = []
        for study, where in WHERE.items():
            out = tmp_path / f"{study}.json"
            res = run_agent("study", "run", study, "--quick", "--filesystems", where,
                            "--image-dir", str(tmp_path / "images"), "--output", str(out),
                            "--server", server.url, "--token", server.upload_token,
                            spool=tmp_path / "spool", timeout=600)  # fmt: skip
            assert res.returncode == 0, res.stderr[-3000:]
            assert res.runs and all(r["status"] == "ok" for r in res.runs), study
            runs += res.runs
        read = {"Authorization": f"Bearer {server.read_token}"}
        checked: dict[str, int] = {}
        for slug in SLUGS:
            shipped = json.loads((DEFAULTS / f"{slug}.json").read_text())
            data = httpx.get(f"{server.url}/api/v1/reports/{slug}/data", headers=read,
                             timeout=60).json()  # fmt: skip
            assert data["report"]["blocks"] == shipped["blocks"] or len(
                data["report"]["blocks"]) == len(shipped["blocks"])  # fmt: skip
            checked[slug] = 0
            for block, got in zip(shipped["blocks"], data["blocks"], strict=True):
                if not_run_here(block, slug.removeprefix("study-")):
                    # Empty: no run of that filesystem.
                    if got["explore"] is not None:
                        assert not got["explore"]["traces"], block["title"]
                    elif got["groups"] is not None:
                        pairs = [p for m in got["groups"]["metrics"] for p in m["pairs"]]
                        assert not pairs, block["title"]
                    else:
                        assert got["error"], block["title"]
                    continue
                assert got["error"] is None, (slug, block["title"], got["error"])
                if block["kind"] == "explore":
                    checked[slug] += check_explore(block, got["explore"], runs)
                elif block["kind"] == "compare":
                    checked[slug] += check_groups(block, got["groups"], runs)
        assert all(checked.values()), checked
        # The seed's figures sit in the smallfiles tables, in their own columns, one row each.
        blocks = httpx.get(f"{server.url}/api/v1/reports/study-smallfiles-000/data",
                           headers=read, timeout=60).json()["blocks"]  # fmt: skip
        for index, fs, seed in ((0, "nfs", 2.891), (0, "xfs-seed", 2.088), (1, "coda", 49.017)):
            table = blocks[index]["groups"]
            create = next(m for m in table["metrics"] if m["metric"] == "create.seconds")
            column = table["values"].index(fs)
            assert len(create["pairs"]) == 1, create["pairs"]  # one series per column
            assert create["pairs"][0]["cells"][column]["value"] == seed
            here = create["pairs"][0]["cells"][table["values"].index("ext4")]
            assert here is not None and here["runs"] == 1

        # Installing again keeps a user's edit; --replace puts the shipped report back.
        admin = {"Authorization": f"Bearer {server.admin_token}"}
        edited = httpx.patch(f"{server.url}/api/v1/reports/study-bonnie-001", headers=admin,
                             json={"title": "My bonnie"}, timeout=30)  # fmt: skip
        assert edited.status_code == 200, edited.text
        again = defaults(server)
        assert [o[0] for o in again if o[1] in SLUGS] == ["kept"] * 5
        bonnie = httpx.get(f"{server.url}/api/v1/reports/study-bonnie-001", headers=read,
                           timeout=30).json()  # fmt: skip
        assert bonnie["title"] == "My bonnie"
        replaced = defaults(server, "--replace")
        assert [o[0] for o in replaced if o[1] in SLUGS] == ["replaced"] * 5
        bonnie = httpx.get(f"{server.url}/api/v1/reports/study-bonnie-001", headers=read,
                           timeout=30).json()  # fmt: skip
        assert bonnie["title"] == json.loads((DEFAULTS / "study-bonnie-001.json").read_text())[
            "title"]  # fmt: skip
