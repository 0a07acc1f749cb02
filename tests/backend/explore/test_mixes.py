"""Explore on the trap (tests/backend/explore/trap.py), on PostgreSQL and SQLite, pending, half
folded, folded and sketched: by default traces are split by the parameter and durability fact
each point would pool, and every split point is what a plain computation over its homogeneous
subset of the uploaded runs says; what a point still pools is named with its values."""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from typing import Any

import numpy as np
import pytest

from perfatlas.core.db import get_engine, session_factory
from tests.backend.explore import oracle, test_oracle, trap
from tests.backend.explore.test_oracle import Api, _check_stat
from tests.backend.rollups.states import fold_to

Key = tuple[str | None, Any]
# The oracle's databases (PostgreSQL, SQLite) and fold states (pending, half, folded, sketched).
api = test_oracle.api
fold_state = test_oracle.fold_state


def _store(api: Api, state: str) -> list[tuple[oracle.Run, dict[str, str]]]:
    bodies = trap.make_runs()
    response = api.client.post("/api/v1/runs/batch", json={"runs": bodies}, headers=api.headers)
    assert response.status_code == 200, response.text
    with session_factory(get_engine(api.database_url))() as session:
        fold_to(session, "half" if state == "sketched" else state, len(bodies))
    runs = []
    for body in bodies:
        samples = body["results"][0]["samples"]
        run = oracle.Run(
            uuid=body["uuid"], started_at=dt.datetime.fromisoformat(body["started_at"]),
            samples=samples, value=float(np.median(samples)), flags=set(), series_id=0,
        )  # fmt: skip
        runs.append((run, trap.dims_of(body)))
    return runs


def _explore(api: Api, **params: Any) -> dict[str, Any]:
    query = {"workload": trap.WORKLOAD, "metric": trap.METRIC, **params}
    response = api.client.get("/api/v1/explore", params=query, headers=api.headers)
    assert response.status_code == 200, (params, response.text)
    return response.json()  # type: ignore[no-any-return]


def _points(data: dict[str, Any]) -> dict[Key, dict[str, Any]]:
    got = {}
    for trace in data["traces"]:
        for p in trace["points"]:
            got[(trace["group"], p["x"])] = p
    return got


def _mixes(members: list[dict[str, str]], skip: set[str]) -> dict[str, list[str]]:
    names = {n for m in members for n in m} - skip
    return {n: sorted({m[n] for m in members}) for n in sorted(names)
            if len({m[n] for m in members}) > 1}  # fmt: skip


def _check_point(got: dict[str, Any], runs: list[oracle.Run], sketched: bool, where: str) -> None:
    want = oracle.point(runs, set())
    assert got["n"] == want["n"], where
    assert got["repetitions"] == want["repetitions"], where
    for stat in ("median", "mean", "min", "max", "p5", "p95"):
        _check_stat(got[stat], want, stat, sketched, where)
    assert got["runs"] == want["newest"], where


def _median_rank(n: int) -> int:
    """The order statistics bounding a 95 % interval of a median of n values: the largest k
    with P(Binomial(n, 1/2) < k) <= 2.5 %, by exact fractions."""
    k = 0
    while k < n and sum(math.comb(n, i) for i in range(k + 1)) * 40 <= 2**n:
        k += 1
    return max(k, 1)


def test_explore_splits_by_fsync_and_memory_and_names_the_rest(api: Api, fold_state: str) -> None:
    runs = _store(api, fold_state)
    sketched = api.sketched
    data = _explore(api, x="fs_version", group="agent")
    # fsync_policy follows the parameter fsync and no flush follows memory-backed: one each.
    assert data["split_by"] == ["param.fsync", "memory_backed"]
    assert data["pooled"] == ["fs_type", "label.study", "target"]
    cells: dict[Key, list[tuple[oracle.Run, dict[str, str]]]] = defaultdict(list)
    for run, dims in runs:
        name = (
            f"{dims['agent']} · fsync={dims['param.fsync']} · memory_backed={dims['memory_backed']}"
        )
        cells[(name, dims["label.fs_version"])].append((run, dims))
    got = _points(data)
    assert set(got) == set(cells)
    skip = {"label.fs_version", "agent", "param.fsync", "memory_backed"}
    for key, members in cells.items():
        p, where = got[key], f"split point {key}"
        _check_point(p, [r for r, _ in members], sketched, where)
        assert p["mixes"] == _mixes([d for _, d in members], skip), where
        memory = members[0][1]["memory_backed"] == "true"
        assert p["durability"] == (["memory_backed", "no_flush"] if memory else []), where
        # Four runs: the interval of the median is the repetitions' range.
        assert (p["median_low"], p["median_high"]) == (p["min"], p["max"]), where
    for trace in data["traces"]:
        agent, fsync, memory = trace["group"].split(" · ")
        assert trace["group_value"] == agent
        assert trace["split"] == {"param.fsync": fsync[6:], "memory_backed": memory[14:]}
        members = [d for (name, _), ms in cells.items() if name == trace["group"] for _, d in ms]
        want = {"label.study": ["a", "b"]}
        if memory[14:] == "false":
            want |= {"fs_type": ["ext4", "xfs"], "target": ["/mnt/ext4", "/mnt/xfs"]}
        assert trace["mixes"] == want == _mixes(members, skip | {"label.fs_version"}), trace[
            "group"
        ]

    # The regression shows under fsync=file on disk, and only there.
    def ratio(trace: str) -> float:
        return got[(trace, "2.2.2")]["median"] / got[(trace, "2.2.1")]["median"]

    assert ratio("agent-a · fsync=file · memory_backed=false") == pytest.approx(0.81, abs=0.03)
    assert ratio("agent-a · fsync=none · memory_backed=false") == pytest.approx(1.0, abs=0.03)

    # Pooled on purpose: one trace per agent, each point naming what it pools.
    pooled = _explore(api, x="fs_version", group="agent", split="none")
    assert pooled["split_by"] == []
    assert pooled["pooled"] == ["flush_to_device", "fs_type", "fsync_policy", "label.study",
                                "memory_backed", "param.fsync", "target"]  # fmt: skip
    by_agent: dict[Key, list[tuple[oracle.Run, dict[str, str]]]] = defaultdict(list)
    for run, dims in runs:
        by_agent[(dims["agent"], dims["label.fs_version"])].append((run, dims))
    got = _points(pooled)
    assert set(got) == set(by_agent)
    for key, members in by_agent.items():
        p = got[key]
        _check_point(p, [r for r, _ in members], sketched, f"pooled {key}")
        assert p["mixes"] == _mixes([d for _, d in members], {"label.fs_version", "agent"})
        assert p["mixes"]["param.fsync"] == ["file", "none"]
        assert p["durability"] == ["memory_backed", "no_flush"]  # some of its runs
    # Pooled, the drop is invisible: that is the trap.
    drop = got[("agent-a", "2.2.2")]["median"] / got[("agent-a", "2.2.1")]["median"]
    assert drop > 0.95

    # Every run of a version in one point: 24 runs, an interval from order statistics.
    alone = _points(_explore(api, x="fs_version", split="none"))
    for (_, version), p in alone.items():
        values = sorted(r.value for r, d in runs if d["label.fs_version"] == version)
        assert p["n"] == len(values) == 24
        k = _median_rank(len(values))
        want_interval = (values[k - 1], values[-k]) if not sketched else (None, None)
        assert (p["median_low"], p["median_high"]) == want_interval, version

    # Pooling the parameter leaves the durability fact it sets to split by.
    by_policy = _explore(api, x="fs_version", group="agent", pool="param.fsync")
    assert by_policy["split_by"] == ["fsync_policy", "memory_backed"]
    assert {t["group"] for t in by_policy["traces"]} == {
        f"{a} · fsync_policy={f} · memory_backed={m}"
        for a in trap.AGENTS for f in trap.FSYNC for m in ("false", "true")
    }  # fmt: skip


def test_a_time_axis_splits_each_line(api: Api, fold_state: str) -> None:
    """x = time: a line joins runs alike in every parameter and durability fact."""
    runs = _store(api, fold_state)
    data = _explore(api, x="time", group="agent", filter=["fs_type:ext4", "fs_type:tmpfs"])
    assert data["split_by"] == ["param.fsync", "memory_backed"]
    lines: dict[str, set[str]] = defaultdict(set)
    for run, dims in runs:
        if dims["fs_type"] in ("ext4", "tmpfs"):
            name = f"{dims['agent']} · fsync={dims['param.fsync']} · memory_backed={dims['memory_backed']}"
            lines[name].add(run.uuid)
    assert {t["group"]: {p["runs"][0] for p in t["points"]} for t in data["traces"]} == lines
    for trace in data["traces"]:
        # The line joins versions and studies, on one filesystem and target.
        assert trace["mixes"] == {
            "label.fs_version": sorted(trap.VERSIONS),
            "label.study": ["a", "b"],
        }, trace["group"]
        memory = trace["split"]["memory_backed"] == "true"
        for p in trace["points"]:
            assert p["durability"] == (["memory_backed", "no_flush"] if memory else [])
            assert p["mixes"] == {}


@pytest.mark.parametrize("fold_state", ["pending"])
def test_bad_split_and_pool_names(api: Api, fold_state: str) -> None:
    _store(api, fold_state)
    for params, field in (({"split": "env.kernel"}, "split"), ({"pool": "nosuch"}, "pool"),
                          ({"split": "nosuch"}, "split")):  # fmt: skip
        query = {"workload": trap.WORKLOAD, "metric": trap.METRIC, "x": "fs_version", **params}
        response = api.client.get("/api/v1/explore", params=query, headers=api.headers)
        assert response.status_code == 422, response.text
        assert field in response.text
    # Asked: split by a label too, which is not split by default.
    data = _explore(api, x="fs_version", split=["label.study", "none"], filter="agent:agent-a")
    assert data["split_by"] == ["label.study"]
    assert {t["group"] for t in data["traces"]} == {"study=a", "study=b"}
