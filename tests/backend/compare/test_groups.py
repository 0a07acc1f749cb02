"""Group compare on PostgreSQL (and SQLite): series paired like with like, checked against a
plain computation over the uploaded samples; filters, several groups, durability, CSV."""

from __future__ import annotations

import csv
import datetime as dt
import io
import random
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from perfatlas.auth.service import create_token
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.main import create_app
from tests.backend.rollups.states import FOLD_STATES, fold_to
from tests.databases import migrate
from tests.factories import BASE_TIME, result, run_body, within

LEVELS = {("lab-1", "/mnt/a"): 1000.0, ("lab-1", "/mnt/b"): 3000.0,
          ("lab-2", "/mnt/a"): 500.0, ("lab-2", "/mnt/b"): 8000.0}  # fmt: skip
FACTOR = {"6.1": 1.0, "6.5": 0.78, "6.8": 1.0}  # a real -22 % step in 6.5, back in 6.8
# Runs per series and version: the slow series dominate the 6.1 pool and the fast ones the
# 6.5 pool, so one pooled median per version would show a large gain instead of the loss.
RUNS = {"6.1": {"/mnt/a": 3, "/mnt/b": 1}, "6.5": {"/mnt/a": 1, "/mnt/b": 3},
        "6.8": {"/mnt/a": 1, "/mnt/b": 1}}  # fmt: skip
METRICS = ["create.ops_per_s", "create.seconds", "read_cold.ops_per_s", "delete.seconds"]


def version_runs(seed: int = 1) -> list[dict]:
    rng = random.Random(seed)
    runs = []
    for version, per_target in RUNS.items():
        for (agent, target), level in LEVELS.items():
            for _ in range(per_target[target]):
                ops = level * FACTOR[version]

                def s(centre):
                    return within(rng, centre)

                runs.append(run_body(
                    agent=agent, target=target, labels={"fs_version": version, "mode": "c"},
                    meta={"short_phases": ["create"]} if version == "6.8" else {},
                    started_at=(BASE_TIME + dt.timedelta(minutes=len(runs))).isoformat(),
                    results=[result("create.ops_per_s", s(ops)),
                             result("create.seconds", s(1000 / ops), unit="s"),
                             result("read_cold.ops_per_s", s(400.0)),
                             result("delete.seconds", s(1.0), unit="s")],
                ))  # fmt: skip
    # Another configuration (threads=4) on one series: a pair of its own, never mixed in.
    for version in ("6.1", "6.5"):
        runs.append(run_body(
            agent="lab-1", target="/mnt/a", labels={"fs_version": version, "mode": "c"},
            parameters={**run_body()["parameters"], "threads": 4},
            results=[result("create.ops_per_s", [20000.0, 20100.0, 19900.0])],
        ))  # fmt: skip
    return runs


def oracle(runs, metric, base, other, keep=lambda r: True):
    """Per pair (agent, target, parameters): the median of all its samples in each group,
    the change, and the median of the changes."""
    pooled = defaultdict(lambda: defaultdict(list))
    for r in runs:
        if not keep(r):
            continue
        for res in r["results"]:
            if res["metric"] == metric:
                key = (r["agent"], r["target"], r["parameters"]["threads"])
                pooled[key][r["labels"]["fs_version"]].extend(res["samples"])
    changes = {}
    for key, groups in pooled.items():
        if base in groups and other in groups:
            a, b = statistics.median(groups[base]), statistics.median(groups[other])
            changes[key] = (b - a) / a * 100
    return pooled, changes


# Where the runs are when the comparison reads them: all still pending (read from their
# results), half folded into explore's rollups, or all folded (found through the rollups,
# compare/candidates.py). The answers are the same.
def settle(engine, state: str, runs: int) -> None:
    with session_factory(engine)() as session:
        fold_to(session, state, runs)


def get(client, headers, **params):
    response = client.get("/api/v1/compare/groups", params=params, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("state", FOLD_STATES)
def test_pairs_series_and_reports_the_median_of_per_series_changes(
    client, engine, upload_headers, read_headers, state
):
    runs = version_runs()
    assert client.post("/api/v1/runs/batch", json={"runs": runs},
                       headers=upload_headers).status_code == 200  # fmt: skip
    settle(engine, state, len(runs))
    data = get(client, read_headers, workload="smallfile", by="fs_version", value=["6.1", "6.5"])
    assert data["values"] == ["6.1", "6.5"] and data["pair_ignore"] == []
    assert [m["metric"] for m in data["metrics"]] == METRICS  # phase order, not the alphabet
    rows = {m["metric"]: m for m in data["metrics"]}
    create = rows["create.ops_per_s"]
    pooled, changes = oracle(runs, "create.ops_per_s", "6.1", "6.5")
    cell = create["cells"][1]
    assert cell["change_pct"] == pytest.approx(statistics.median(changes.values()))
    assert cell["change_pct"] == pytest.approx(-22, abs=1.5)
    # The pooled median the old page showed is far off: the data do exercise the pairing.
    all_a = [v for g in pooled.values() for v in g.get("6.1", [])]
    all_b = [v for g in pooled.values() for v in g.get("6.5", [])]
    assert abs((statistics.median(all_b) / statistics.median(all_a) - 1) * 100 + 22) > 30
    # Four series stepped down; the threads=4 configuration did not: 4 of 5 agree.
    assert (cell["pairs"], cell["tested"], cell["agree"], cell["worse"]) == (5, 5, 4, 4)
    assert cell["verdict"] == "worse"
    # The one pair that disagrees is another configuration: the headline per threads value.
    assert create["split"]["dimension"] == "threads"
    split = {s["value"]: s["cells"][1] for s in create["split"]["subsets"]}
    assert (split["1"]["pairs"], split["1"]["verdict"]) == (4, "worse")
    assert (split["4"]["pairs"], split["4"]["verdict"]) == (1, "noise")
    assert split["1"]["change_pct"] == pytest.approx(
        statistics.median([c for k, c in changes.items() if k[2] == 1])
    )
    assert cell["lowest_pct"] == pytest.approx(min(changes.values()))
    assert cell["highest_pct"] == pytest.approx(max(changes.values()))
    for g, version in enumerate(("6.1", "6.5")):
        medians = [statistics.median(groups[version]) for groups in pooled.values()]
        assert create["cells"][g]["value"] == pytest.approx(statistics.median(medians))
        assert create["cells"][g]["runs"] == sum(
            1 for r in runs if r["labels"]["fs_version"] == version
        )
    for pair in create["pairs"]:
        key = (pair["key"]["agent"], pair["key"]["target"], pair["key"]["parameters"]["threads"])
        assert "fs_version" not in pair["key"]["labels"] and pair["key"]["labels"] == {"mode": "c"}
        a, b = pair["cells"]
        assert a["n"] == len(pooled[key]["6.1"]) and b["n"] == len(pooled[key]["6.5"])
        assert a["value"] == pytest.approx(statistics.median(pooled[key]["6.1"]))
        assert b["change"]["change_pct"] == pytest.approx(changes[key])
        assert b["change"]["ci_low_pct"] <= changes[key] <= b["change"]["ci_high_pct"]
        assert b["change"]["verdict"] == ("worse" if key[2] == 1 else "noise")
    # Seconds: lower is better, so the same step is worse there too; unchanged metrics are noise.
    assert rows["create.seconds"]["cells"][1]["verdict"] == "worse"
    assert rows["read_cold.ops_per_s"]["cells"][1]["verdict"] == "noise"
    assert rows["read_cold.ops_per_s"]["cells"][1]["agree"] == 0
    assert data["durability_differs"] is False and data["warning"] is None

    # Three groups: three columns, the third against the first.
    three = get(client, read_headers, workload="smallfile", by="fs_version",
                value=["6.1", "6.5", "6.8"], metric="create.*")  # fmt: skip
    assert [m["metric"] for m in three["metrics"]] == ["create.ops_per_s", "create.seconds"]
    cells = three["metrics"][0]["cells"]
    assert len(cells) == 3 and [g["value"] for g in three["groups"]] == ["6.1", "6.5", "6.8"]
    _, back = oracle(runs, "create.ops_per_s", "6.1", "6.8")
    assert cells[2]["change_pct"] == pytest.approx(statistics.median(back.values()))
    assert cells[2]["pairs"] == 4 and cells[2]["verdict"] == "noise"
    # Trust flags travel with the numbers: 6.8's create phases were too short.
    assert [c["flags"] for c in cells] == [[], [], ["short_phase"]]
    assert all(p["cells"][2]["flags"] == ["short_phase"] for p in three["metrics"][0]["pairs"]
               if p["cells"][2] is not None)  # fmt: skip
    assert "short_phase" in three["reasons"]
    assert cells[1]["change_pct"] == pytest.approx(cell["change_pct"])

    # Filters: one agent, one target, one parameter value.
    for flt, keep in (("agent:lab-1", lambda r: r["agent"] == "lab-1"),
                      ("target:/mnt/b", lambda r: r["target"] == "/mnt/b"),
                      ("threads:4", lambda r: r["parameters"]["threads"] == 4)):  # fmt: skip
        part = get(client, read_headers, workload="smallfile", by="fs_version",
                   value=["6.1", "6.5"], metric="create.ops_per_s", filter=flt)  # fmt: skip
        _, expected = oracle(runs, "create.ops_per_s", "6.1", "6.5", keep)
        c = part["metrics"][0]["cells"][1]
        stepped = sum(1 for key in expected if key[2] == 1)
        assert c["pairs"] == len(expected) and c["agree"] == stepped, flt
        assert c["change_pct"] == pytest.approx(statistics.median(expected.values())), flt
    # A time filter, which the rollups' variants cannot judge: the comparison's own query does.
    middle = sorted(r["started_at"] for r in runs)[len(runs) // 2]
    part = get(client, read_headers, workload="smallfile", by="fs_version", value=["6.1", "6.5"],
               metric="create.ops_per_s", filter=f"time:..{middle}")  # fmt: skip
    _, expected = oracle(runs, "create.ops_per_s", "6.1", "6.5", lambda r: r["started_at"] < middle)
    c = part["metrics"][0]["cells"][1]
    assert c["pairs"] == len(expected) > 0
    assert c["change_pct"] == pytest.approx(statistics.median(expected.values()))
    assert [g["runs"] for g in part["groups"]] == [
        sum(1 for r in runs if r["started_at"] < middle and r["labels"]["fs_version"] == v)
        for v in ("6.1", "6.5")
    ]

    exported = client.get("/api/v1/compare/groups.csv", params={"workload": "smallfile",
        "by": "fs_version", "value": ["6.1", "6.5"], "metric": "create.ops_per_s"},
        headers=read_headers)  # fmt: skip
    assert exported.status_code == 200
    table = [r for r in csv.DictReader(io.StringIO(exported.text)) if r["metric"]]
    summary = next(r for r in table if r["series"] == "all")
    assert float(summary["change_pct fs_version=6.5"]) == pytest.approx(cell["change_pct"])
    assert summary["agree fs_version=6.5"] == "4" and summary["pairs fs_version=6.5"] == "5"
    # The pairs disagree (threads=4 did not step): a row per subset before the pairs' rows.
    assert [r["series"] for r in table[:3]] == ["all", "threads=1", "threads=4"]
    assert [r["verdict fs_version=6.5"] for r in table[1:3]] == ["worse", "noise"]
    pairs = [r for r in table if r["series"].startswith("agent=")]
    assert sorted(r["verdict fs_version=6.5"] for r in pairs) == ["noise"] + ["worse"] * 4


def fs_runs():
    env = run_body()["environment"]
    runs = []
    for agent in ("lab-1", "lab-2"):
        for fs, level in (("ext4", 900.0), ("tmpfs", 30000.0)):
            runs.append(run_body(
                agent=agent, target=f"/mnt/{fs}", fsync_policy="file",
                parameters={"nfiles": 1000, "fsync": "file"},
                memory_backed=None if fs == "tmpfs" else False,
                environment={**env, "fs_type": fs, "hostname": agent},
                results=[result("create.ops_per_s", [level, level * 1.01, level * 0.99])],
            ))  # fmt: skip
    return runs


@pytest.mark.parametrize("state", ["pending", "folded"])
def test_tmpfs_against_ext4_pairs_by_agent_and_is_not_comparable(
    client, engine, upload_headers, read_headers, state
):
    assert client.post("/api/v1/runs/batch", json={"runs": fs_runs()},
                       headers=upload_headers).status_code == 200  # fmt: skip
    settle(engine, state, len(fs_runs()))
    data = get(client, read_headers, workload="smallfile", by="fs_type", value=["ext4", "tmpfs"])
    # The two mounts differ by target: for an environment dimension it is left out.
    assert data["pair_ignore"] == ["target"]
    cell = data["metrics"][0]["cells"][1]
    # Durability first: tmpfs's fsyncs reach memory only, so it is never "better" than ext4.
    assert (cell["pairs"], cell["tested"], cell["agree"]) == (2, 0, 0)
    assert cell["verdict"] == "not_comparable" and cell["not_comparable"] == 2
    assert "memory-backed" in cell["reason"]
    for pair in data["metrics"][0]["pairs"]:
        assert pair["cells"][1]["change"]["verdict"] == "not_comparable"
    assert [p["key"] for p in data["metrics"][0]["pairs"]] == [
        {
            "agent": a,
            "parameters": {"nfiles": 1000, "fsync": "file"},
            "labels": {"mode": "connected"},
        }
        for a in ("lab-1", "lab-2")
    ]
    assert data["durability_differs"] is True
    facts = {d["key"]: d["values"] for d in data["durability"]}
    assert facts["memory_backed"] == [[False], [True]]
    assert facts["flush_to_device"] == [[None], [False]]
    assert "fsync_policy" not in facts
    assert "memory_backed" in data["warning"] and "tmpfs" in data["warning"]
    apart = get(client, read_headers, workload="smallfile", by="fs_type",
                value=["ext4", "tmpfs"], pair_ignore="none")  # fmt: skip
    assert apart["pair_ignore"] == [] and apart["metrics"][0]["cells"][1]["pairs"] == 0


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"by": "time", "value": ["a", "b"]}, "by"),
        ({"by": "fs_version", "value": ["6.1"]}, "value"),
        ({"by": "fs_version", "value": ["6.1", "6.1"]}, "value"),
        ({"by": "fs_version", "value": ["6.1", "6.5"], "metric": "nope.*"}, "metric"),
        ({"by": "fs_version", "value": ["6.1", "6.5"], "filter": "agent"}, "filter"),
        ({"by": "fs_version", "value": ["6.1", "6.5"], "pair_ignore": "metric"}, "pair_ignore"),
        # comma-separated as documented: each name checked
        (
            {"by": "fs_version", "value": ["6.1", "6.5"], "pair_ignore": "target,metric"},
            "pair_ignore",
        ),
        ({"by": "fs_version", "value": ["6.1", "6.5"], "min_effect": "x"}, "query.min_effect"),
        ({"by": "fs\x00version", "value": ["6.1", "6.5"]}, "query.by"),
        ({"by": "fs_version", "value": ["6.1", "6\x005"]}, "query.value"),
        ({"by": "fs_version", "value": ["6.1", "6.5"], "filter": "agent:\x00"}, "query.filter"),
        (
            {"by": "fs_version", "value": ["6.1", "6.5"], "pair_ignore": "a\x00"},
            "query.pair_ignore",
        ),
    ],  # a NUL byte is refused before any route, naming the query parameter
)
def test_bad_group_requests_name_the_field(client, upload_headers, read_headers, params, field):
    client.post("/api/v1/runs/batch", json={"runs": version_runs()[:4]}, headers=upload_headers)
    response = client.get("/api/v1/compare/groups", params={"workload": "smallfile", **params},
                          headers=read_headers)  # fmt: skip
    assert response.status_code == 422, response.text
    nul = client.get("/api/v1/compare/groups", params={**params, "workload": "small\x00file"},
                     headers=read_headers)  # fmt: skip
    assert nul.status_code == 422, nul.text
    assert response.json()["errors"][0]["field"] == field


@pytest.mark.parametrize("state", FOLD_STATES)
def test_group_compare_and_phase_order_on_sqlite(tmp_path: Path, state: str) -> None:
    """The embedded default: dimensions read from JSON with SQLite's functions, result ids
    from SQLite's inserts, rollups read from SQLite."""
    url = f"sqlite:///{tmp_path / 'compare.db'}"
    migrate(url)
    with session_factory(get_engine(url))() as session:
        token = create_token(session, name="t", scope="upload")[1]
    headers = {"Authorization": f"Bearer {token}"}
    runs = version_runs(seed=4)
    with TestClient(create_app(Settings(database_url=url))) as client:
        assert client.post("/api/v1/runs/batch", json={"runs": runs},
                           headers=headers).status_code == 200  # fmt: skip
        settle(get_engine(url), state, len(runs))
        data = get(client, headers, workload="smallfile", by="fs_version", value=["6.1", "6.5"])
        assert [m["metric"] for m in data["metrics"]] == METRICS
        _, changes = oracle(runs, "create.ops_per_s", "6.1", "6.5")
        cell = data["metrics"][0]["cells"][1]
        assert cell["change_pct"] == pytest.approx(statistics.median(changes.values()))
        assert cell["agree"] == 4
        by_param = get(client, headers, workload="smallfile", by="threads", value=["1", "4"],
                       filter="fs_version:6.1", metric="create.ops_per_s")  # fmt: skip
        assert by_param["metrics"][0]["cells"][1]["pairs"] == 1  # lab-1 /mnt/a only
        pair = get(client, headers, workload="smallfile", by="target",
                   value=["/mnt/a", "/mnt/b"], metric="create.ops_per_s")  # fmt: skip
        assert pair["metrics"][0]["cells"][1]["pairs"] == 2  # one per agent
        two = client.get("/api/v1/compare", params={"runs": [runs[0]["uuid"], runs[-3]["uuid"]]},
                         headers=headers).json()  # fmt: skip
        assert [m["metric"] for m in two["metrics"]] == METRICS


def test_a_dimension_of_any_chosen_metric_is_known(client, upload_headers, read_headers):
    """A parameter that only some metrics' runs have is a dimension of the comparison: the
    name is looked up on every chosen metric, not on the first in the alphabet."""
    runs = []
    for qd, level in ((1, 100.0), (2, 140.0)):
        for i in range(3):
            runs.append(
                run_body(
                    workload="blockio", parameters={"qd": qd},
                    started_at=(BASE_TIME + dt.timedelta(hours=qd * 10 + i)).isoformat(),
                    results=[result("write.iops", [level, level * 1.01, level * 0.99])],
                )
            )  # fmt: skip
    runs.append(
        run_body(
            workload="blockio", parameters={"bs": 4},
            results=[result("read.iops", [50.0, 51.0, 49.0])],
        )
    )  # fmt: skip
    stored = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert stored.status_code == 200, stored.text
    for by in ("qd", "param.qd"):
        data = get(client, read_headers, workload="blockio", by=by, value=["1", "2"])
        (row,) = [m for m in data["metrics"] if m["metric"] == "write.iops"]
        assert [c["runs"] for c in row["cells"]] == [3, 3], by
        assert row["cells"][1]["change_pct"] == pytest.approx(40.0)
    filtered = get(client, read_headers, workload="blockio", by="qd", value=["1", "2"],
                   filter="bs:4")  # fmt: skip
    assert all(c["runs"] == 0 for m in filtered["metrics"] for c in m["cells"])
    unknown = client.get("/api/v1/compare/groups", headers=read_headers,
                         params={"workload": "blockio", "by": "nope", "value": ["1", "2"]})  # fmt: skip
    assert unknown.status_code == 422 and unknown.json()["errors"][0]["field"] == "by"
