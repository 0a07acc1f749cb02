"""Group compare on data built to trap pooling (tests/trap.py), on PostgreSQL and SQLite: the
headline split per fsync policy where the pairs disagree, tmpfs against ext4 not comparable,
filesystems paired across targets, the first run's label no bar to a reference column. Each
answer is checked against a plain computation over the uploaded samples."""

from __future__ import annotations

import csv
import io
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from perfatlas.auth.service import create_token
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.main import create_app
from tests.databases import migrate
from tests.factories import result, run_body
from tests.trap import ZFS_AGENTS, trap_runs

WORKLOAD = "trap_smallfile"


def get(client: TestClient, headers: dict[str, str], **params: Any) -> dict[str, Any]:
    response = client.get("/api/v1/compare/groups", params={"workload": WORKLOAD, **params},
                          headers=headers)  # fmt: skip
    assert response.status_code == 200, response.text
    return response.json()


def verdict_of(a: list[float], b: list[float], direction: str) -> str:
    """At a few repetitions a side, a change is real when the two sides' ranges do not
    overlap (compare/stats.py), and large enough when at least 5 %."""
    change = (statistics.median(b) - statistics.median(a)) / statistics.median(a) * 100
    apart = max(b) < min(a) or min(b) > max(a)
    if not apart or abs(change) < 5:
        return "noise"
    return "better" if (change > 0) == (direction == "higher") else "worse"


def zfs_oracle(runs, metric: str, base: str, other: str, direction: str) -> dict[str, dict]:
    """Per fsync policy: each pair's (agent's) medians and change, then the subset's values
    (median of the pairs' medians), median change and verdicts."""
    samples: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in runs:
        if r["agent"] not in ZFS_AGENTS:
            continue
        for res in r["results"]:
            if res["metric"] == metric:
                key = (r["agent"], r["parameters"]["fsync"])
                samples[key][r["labels"]["fs_version"]] += res["samples"]
    out: dict[str, dict] = {}
    for fsync in ("file", "none"):
        keys = [k for k in samples if k[1] == fsync]
        a = [samples[k][base] for k in keys]
        b = [samples[k][other] for k in keys]
        changes = [(statistics.median(y) - statistics.median(x)) / statistics.median(x) * 100
                   for x, y in zip(a, b, strict=True)]  # fmt: skip
        out[fsync] = {
            "values": [statistics.median([statistics.median(x) for x in side]) for side in (a, b)],
            "change": statistics.median(changes),
            "verdicts": sorted(verdict_of(x, y, direction) for x, y in zip(a, b, strict=True)),
            "pairs": len(keys),
        }
    return out


def check_trap(client: TestClient, headers: dict[str, str], runs: list[dict[str, Any]]) -> None:
    # 2.2.1 against 2.2.2: the pooled headline is the trap (2 of 4 worse: "within noise"); the
    # split gives each fsync policy its own answer.
    data = get(client, headers, by="fs_version", value=["2.2.1", "2.2.2"])
    assert data["pair_ignore"] == [] and data["pair_hint"] is None
    rows = {m["metric"]: m for m in data["metrics"]}
    for metric, direction in (("create.ops_per_s", "higher"), ("create.seconds", "lower")):
        row = rows[metric]
        expected = zfs_oracle(runs, metric, "2.2.1", "2.2.2", direction)
        assert row["cells"][1]["pairs"] == 4 and row["cells"][1]["verdict"] == "noise", metric
        assert {"agent", "fsync", "fsync_policy"} <= set(row["varying"])
        assert row["split"]["dimension"] == "fsync", metric
        assert [s["value"] for s in row["split"]["subsets"]] == ["file", "none"]
        for subset in row["split"]["subsets"]:
            want = expected[subset["value"]]
            base, other = subset["cells"]
            assert base["value"] == pytest.approx(want["values"][0])
            assert other["value"] == pytest.approx(want["values"][1])
            assert other["change_pct"] == pytest.approx(want["change"])
            assert other["pairs"] == other["tested"] == want["pairs"] == 2
            verdict = want["verdicts"][0]
            assert want["verdicts"] == [verdict] * 2 and other["verdict"] == verdict
            assert other["agree"] == (2 if verdict != "noise" else 0)
        file_cell = row["split"]["subsets"][0]["cells"][1]
        assert file_cell["verdict"] == "worse"
        assert file_cell["change_pct"] == pytest.approx(
            -19 if direction == "higher" else 1 / 0.81 * 100 - 100, abs=1.5
        )
        assert row["split"]["subsets"][1]["cells"][1]["verdict"] == "noise"
    # Versions whose text order differs from their order, with no change: nothing to split.
    same = get(client, headers, by="fs_version", value=["2.1.9", "2.1.10"], metric="create.*")
    for row in same["metrics"]:
        assert row["split"] is None and row["cells"][1]["verdict"] == "noise"
        assert row["cells"][1]["pairs"] == 4

    # tmpfs against ext4, by fs_type or the study's fs label: paired across targets by
    # default, and not comparable (durability) however large the difference.
    ext4_file = [
        r for r in runs if r["target"] == "/mnt/ext4" and r["parameters"]["fsync"] == "file"
    ]
    tmpfs_file = [
        r for r in runs if r["target"] == "/mnt/tmpfs" and r["parameters"]["fsync"] == "file"
    ]
    for by, ignore in (("fs_type", ["target", "label.firstrun", "label.fs", "label.study"]),
                       ("fs", ["target", "label.firstrun", "label.study"])):  # fmt: skip
        fs = get(client, headers, by=by, value=["ext4", "tmpfs"], metric="create.ops_per_s")
        assert fs["pair_ignore"] == ignore, by
        (row,) = fs["metrics"]
        cell = row["cells"][1]
        assert (cell["pairs"], cell["tested"], cell["not_comparable"]) == (2, 0, 2), by
        assert cell["verdict"] == "not_comparable" and "memory-backed" in cell["reason"]
        assert row["split"] is None
        file_pair = next(p for p in row["pairs"] if p["key"]["parameters"]["fsync"] == "file")
        a = [v for r in ext4_file for v in r["results"][0]["samples"]]
        b = [v for r in tmpfs_file for v in r["results"][0]["samples"]]
        change = file_pair["cells"][1]["change"]
        assert change["change_pct"] == pytest.approx(
            (statistics.median(b) - statistics.median(a)) / statistics.median(a) * 100
        )
        assert change["change_pct"] > 8000 and change["verdict"] == "not_comparable"
    # Two runs side by side: the same rule.
    two = client.get("/api/v1/compare", headers=headers,
                     params={"runs": [ext4_file[0]["uuid"], tmpfs_file[0]["uuid"]]}).json()  # fmt: skip
    for m in two["metrics"]:
        assert m["changes"][1]["verdict"] == "not_comparable" and m["better"][1] is None
        assert "this side is memory-backed" in m["changes"][1]["reason"]

    # This machine's first run (firstrun=true) against the study's reference column: another
    # agent, so no pair by default, and the hint names what keeps them apart.
    ref = get(client, headers, by="fs", value=["ext4", "xfs-seed"], metric="create.ops_per_s")
    assert ref["metrics"][0]["cells"][1]["pairs"] == 0
    assert ref["pair_hint"] == ["agent", "label.firstrun", "label.study", "target"]
    # The hint's fix, in the documented comma-separated form: the firstrun label is no bar.
    paired = get(client, headers, by="fs", value=["ext4", "xfs-seed"], metric="create.ops_per_s",
                 pair_ignore="agent,target")  # fmt: skip
    assert paired["pair_ignore"] == ["agent", "target", "label.firstrun", "label.study"]
    assert paired["pair_hint"] is None
    assert paired["metrics"][0]["cells"][1]["pairs"] == 1
    (pair,) = [p for p in paired["metrics"][0]["pairs"] if None not in p["cells"]]
    assert pair["key"] == {"parameters": {"nfiles": 1000, "fsync": "none"},
                           "labels": {"mount": "default"}}  # fmt: skip
    ext4_none = [v for r in runs if r["target"] == "/mnt/ext4" and r["parameters"]["fsync"] == "none"
                 for v in r["results"][0]["samples"]]  # fmt: skip
    assert pair["cells"][0]["value"] == pytest.approx(statistics.median(ext4_none))
    assert pair["cells"][1]["value"] == 12000.0 and pair["cells"][1]["change"]["verdict"] == "few"
    # `none` leaves nothing out, the origin labels included: apart again.
    apart = get(client, headers, by="fs", value=["ext4", "xfs-seed"], metric="create.ops_per_s",
                pair_ignore="agent,target,none")  # fmt: skip
    assert apart["pair_ignore"] == [] and apart["metrics"][0]["cells"][1]["pairs"] == 0

    # The CSV keeps what the page shows: intervals, n, agreement, verdicts, the subsets.
    exported = client.get("/api/v1/compare/groups.csv", headers=headers, params={
        "workload": WORKLOAD, "by": "fs_version", "value": ["2.2.1", "2.2.2"],
        "metric": "create.ops_per_s"})  # fmt: skip
    assert exported.status_code == 200
    table = [r for r in csv.DictReader(io.StringIO(exported.text)) if r["metric"]]
    g = "fs_version=2.2.2"
    subsets = {r["series"]: r for r in table if r["series"].startswith("fsync=")}
    row = rows["create.ops_per_s"]
    for subset in row["split"]["subsets"]:
        line = subsets[f"fsync={subset['value']}"]
        cell = subset["cells"][1]
        assert line[f"verdict {g}"] == cell["verdict"]
        assert float(line[f"change_pct {g}"]) == pytest.approx(cell["change_pct"])
        assert (line[f"agree {g}"], line[f"tested {g}"], line[f"pairs {g}"]) == ("2" if cell[
            "verdict"] == "worse" else "0", "2", "2")  # fmt: skip
        assert float(line[f"value {g}"]) == pytest.approx(cell["value"])
    for line in (r for r in table if r["series"].startswith("agent=")):
        assert float(line[f"ci_low_pct {g}"]) <= float(line[f"change_pct {g}"])
        assert float(line[f"change_pct {g}"]) <= float(line[f"ci_high_pct {g}"])
        assert int(line[f"samples {g}"]) == 6 and line[f"verdict {g}"] in ("worse", "noise")


def test_trap_on_postgresql(client, upload_headers, read_headers):
    runs = trap_runs(WORKLOAD)
    stored = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert stored.status_code == 200, stored.text
    check_trap(client, read_headers, runs)


def test_trap_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'trap.db'}"
    migrate(url)
    with session_factory(get_engine(url))() as session:
        token = create_token(session, name="t", scope="upload")[1]
    headers = {"Authorization": f"Bearer {token}"}
    runs = trap_runs(WORKLOAD, seed=41)
    with TestClient(create_app(Settings(database_url=url))) as client:
        stored = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=headers)
        assert stored.status_code == 200, stored.text
        check_trap(client, headers, runs)


def test_a_side_whose_flushes_are_dropped_is_not_comparable(client, upload_headers, read_headers):
    """A device that acknowledges flushes without making them stable (flush_to_device false)
    against one that does: not comparable, in run compare and its CSV; two durable runs are
    judged as ever."""

    def body(flush: bool, level: float) -> dict[str, Any]:
        return run_body(workload="flushes", fsync_policy="file", flush_to_device=flush,
                        memory_backed=False, parameters={"fsync": "file"},
                        results=[result("create.ops_per_s", [level, level * 1.01, level * 0.99])])  # fmt: skip

    safe, dropped, safe_too = body(True, 300.0), body(False, 5000.0), body(True, 240.0)
    stored = client.post("/api/v1/runs/batch", json={"runs": [safe, dropped, safe_too]},
                         headers=upload_headers)  # fmt: skip
    assert stored.status_code == 200, stored.text
    ids = [safe["uuid"], dropped["uuid"], safe_too["uuid"]]
    data = client.get("/api/v1/compare", params={"runs": ids}, headers=read_headers).json()
    (m,) = data["metrics"]
    assert m["changes"][1]["verdict"] == "not_comparable" and m["better"][1] is None
    assert (
        "does not flush to the device (flush_to_device=false), the baseline does"
        in (m["changes"][1]["reason"])
    )
    assert m["changes"][1]["change_pct"] == pytest.approx((5000 - 300) / 300 * 100)
    assert m["changes"][2]["verdict"] == "worse" and m["changes"][2]["reason"] is None
    exported = client.get("/api/v1/compare.csv", params={"runs": ids}, headers=read_headers)
    (line,) = [r for r in csv.DictReader(io.StringIO(exported.text)) if r["metric"] == m["metric"]]
    assert line[f"verdict {ids[1]}"] == "not_comparable"
    assert line[f"reason {ids[1]}"] == m["changes"][1]["reason"]
    assert float(line[f"ci_low_pct {ids[2]}"]) <= -20 + 2 and line[f"verdict {ids[2]}"] == "worse"
