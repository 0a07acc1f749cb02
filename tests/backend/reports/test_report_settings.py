"""Report blocks keep every setting of their page (issue 40): an explore block's order, split,
pool and exact answer as Explore does with the same settings (and as a plain computation
says); a report stored before blocks had them reads them as left out; a series block names
its points' versions; group compare by a size parameter takes values as people write them
(segsize 128k finds the runs stored as 131072), in a report block too. On PostgreSQL and
SQLite."""

from __future__ import annotations

import csv
import datetime as dt
import io
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert

from tests.factories import BASE_TIME, result, run_body

API = "/api/v1"
WORKLOAD, METRIC = "partialread", "read.mb_per_s"
AGENTS = ("lab-1", "lab-2")
SEGSIZES = (131072, 1048576)  # stored in bytes: 128 KiB, 1 MiB
SYNCS = ("file", "none")
# Text order (2.1.10 < 2.1.9 < 2.2.0 < 2.2.0-rc1) differs from the natural order.
VERSIONS = ("2.1.9", "2.1.10", "2.2.0-rc1", "2.2.0")
REPS = 3


def level(agent: str, segsize: int, sync: str, version: str, rep: int) -> float:
    """Every dimension moves the level; 2.2.0 drops 20 % under sync=file only."""
    value = 100.0 * (1 + AGENTS.index(agent) * 0.1) * (1 + SEGSIZES.index(segsize))
    value *= 0.3 if sync == "file" else 1.0
    value *= 0.8 if sync == "file" and version == "2.2.0" else 1.0 + VERSIONS.index(version) / 50
    return value * (1 + rep / 100)


def make_runs() -> list[dict[str, Any]]:
    runs = []
    for v, version in enumerate(VERSIONS):
        for agent in AGENTS:
            for segsize in SEGSIZES:
                for sync in SYNCS:
                    for rep in range(REPS):
                        mid = level(agent, segsize, sync, version, rep)
                        started = BASE_TIME + dt.timedelta(days=v, minutes=len(runs))
                        runs.append(run_body(
                            workload=WORKLOAD, agent=agent, target="/mnt/ext4",
                            started_at=started.isoformat(),
                            parameters={"segsize": segsize, "sync": sync},
                            labels={"version": version},
                            environment={**run_body()["environment"], "hostname": agent},
                            results=[result(METRIC, [mid * 0.98, mid, mid * 1.03], unit="MB/s")],
                        ))  # fmt: skip
    return runs


def _get(client: TestClient, headers: dict[str, str], path: str, **params: Any) -> Any:
    response = client.get(f"{API}{path}", params=params, headers=headers)
    assert response.status_code == 200, (path, params, response.text)
    return response.json()


# Explore's settings: 2.2.0 first then the others in natural order; segsize pooled (the split
# by sync stays, the page's default); exact figures.
SETTINGS = {"order": ["version:2.2.0,*"], "pool": ["segsize"], "split": [], "exact": True}
SETTINGS_NONE = {"order": [], "pool": [], "split": ["none"], "exact": False}


def _explore_block(**settings: Any) -> dict[str, Any]:
    return {"kind": "explore", "workload": WORKLOAD, "metric": METRIC, "x": "version",
            "group": "agent", "filter": [], **settings}  # fmt: skip


def _explore_params(settings: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {"workload": WORKLOAD, "metric": METRIC, "x": "version",
                              "group": "agent"}  # fmt: skip
    for key in ("order", "split", "pool"):
        if settings.get(key):
            params[key] = settings[key]
    if settings.get("exact"):
        params["exact"] = "true"
    return params


def _oracle(runs: list[dict[str, Any]], split: str | None) -> dict[tuple[str, str | None], Any]:
    """(agent, sync or None) -> version -> the median of the runs' medians, and their count."""
    values: dict[tuple[str, str | None], dict[str, list[float]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in runs:
        key = (r["agent"], r["parameters"]["sync"] if split else None)
        values[key][r["labels"]["version"]].append(statistics.median(r["results"][0]["samples"]))
    return {
        k: {v: (statistics.median(xs), len(xs)) for v, xs in by.items()} for k, by in values.items()
    }


def _check_against_oracle(answer: dict[str, Any], runs: list[dict[str, Any]], *, split: bool,
                          x_order: list[str]) -> None:  # fmt: skip
    want = _oracle(runs, "param.sync" if split else None)
    got = {}
    for trace in answer["traces"]:
        sync = (trace.get("split") or {}).get("param.sync")
        assert (sync is not None) == split, trace
        key = (trace["group_value"] if split else trace["group"], sync)
        assert [p["x"] for p in trace["points"]] == x_order
        got[key] = {p["x"]: (p["median"], p["n"]) for p in trace["points"]}
    assert got.keys() == want.keys()
    for key, points in want.items():
        for version, (median, n) in points.items():
            assert got[key][version][1] == n
            assert got[key][version][0] == pytest.approx(median, rel=1e-9)


def _check_explore_blocks(client: TestClient, headers: dict[str, str], upload: dict[str, str],
                          runs: list[dict[str, Any]]) -> None:  # fmt: skip
    blocks = [_explore_block(**SETTINGS), _explore_block(**SETTINGS_NONE), _explore_block()]
    body = {"slug": "settings", "title": "Settings", "blocks": blocks}
    created = client.post(f"{API}/reports", json=body, headers=upload)
    assert created.status_code == 201, created.text
    kept = _get(client, headers, "/reports/settings")["blocks"]
    for block, stored in zip(blocks, kept, strict=True):
        for key in ("order", "split", "pool", "exact"):
            assert stored[key] == block.get(key, [] if key != "exact" else False)
    got = _get(client, headers, "/reports/settings/data")["blocks"]
    # Each block's data is Explore's answer with the same settings.
    for block, data in zip(blocks, got, strict=True):
        assert data["error"] is None
        assert data["explore"] == _get(client, headers, "/explore", **_explore_params(block))
    natural = list(VERSIONS)
    # Pooled segsize, split by sync, 2.2.0 first.
    _check_against_oracle(got[0]["explore"], runs, split=True, x_order=["2.2.0", *natural[:3]])
    assert all("param.segsize" not in (t["split"] or {}) for t in got[0]["explore"]["traces"])
    # No split at all: one line per agent, in natural order.
    _check_against_oracle(got[1]["explore"], runs, split=False, x_order=natural)
    # The page's defaults split by both parameters: not the same as either.
    default_traces = got[2]["explore"]["traces"]
    assert len(default_traces) == len(AGENTS) * len(SEGSIZES) * len(SYNCS)
    assert len(got[0]["explore"]["traces"]) == len(AGENTS) * len(SYNCS)
    assert len(got[1]["explore"]["traces"]) == len(AGENTS)
    # One block, as its JSON and its CSV, with the same settings.
    one = _get(client, headers, "/reports/settings/blocks/0.json")
    assert one == got[0]
    csv_text = client.get(f"{API}/reports/settings/blocks/0.csv", headers=headers).text
    assert len(csv_text.strip().splitlines()) == 1 + len(AGENTS) * len(SYNCS) * len(VERSIONS)
    # A bad setting is refused naming the block's field.
    bad = {"slug": "bad", "title": "Bad", "blocks": [_explore_block(pool=["nosuch"])]}
    refused = client.post(f"{API}/reports", json=bad, headers=upload)
    assert refused.status_code == 422, refused.text
    assert refused.json()["errors"][0]["field"] == "blocks[0].pool"


def _check_group_compare_by_size(client: TestClient, headers: dict[str, str],
                                 upload: dict[str, str], runs: list[dict[str, Any]]) -> None:  # fmt: skip
    raw = _get(client, headers, "/compare/groups", workload=WORKLOAD, by="segsize",
               value=["131072", "1048576"], filter=["version:2.1.9"])  # fmt: skip
    human = _get(client, headers, "/compare/groups", workload=WORKLOAD, by="segsize",
                 value=["128k", "1 MiB"], filter=["version:2.1.9"])  # fmt: skip
    assert human["values"] == ["128k", "1 MiB"]
    assert [g["runs"] for g in human["groups"]] == [g["runs"] for g in raw["groups"]]
    assert [g["runs"] for g in human["groups"]] == [len(AGENTS) * len(SYNCS) * REPS] * 2
    assert human["metrics"] == raw["metrics"]
    # Oracle: per pair (agent, sync), the change of the median of every sample, 128k -> 1M.
    samples: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in runs:
        if r["labels"]["version"] == "2.1.9":
            key = (r["agent"], r["parameters"]["sync"])
            samples[key][r["parameters"]["segsize"]] += r["results"][0]["samples"]
    changes = [
        (statistics.median(by[SEGSIZES[1]]) - statistics.median(by[SEGSIZES[0]]))
        / statistics.median(by[SEGSIZES[0]]) * 100
        for by in samples.values()
    ]  # fmt: skip
    cell = human["metrics"][0]["cells"][1]
    assert cell["pairs"] == len(AGENTS) * len(SYNCS)
    assert cell["change_pct"] == pytest.approx(statistics.median(changes), rel=1e-6)
    # One size written two ways is one group: refused, naming the field.
    same = client.get(f"{API}/compare/groups", headers=headers,
                      params={"workload": WORKLOAD, "by": "segsize", "value": ["128k", "131072"]})  # fmt: skip
    assert same.status_code == 422 and same.json()["errors"][0]["field"] == "value", same.text
    nonsense = client.get(f"{API}/compare/groups", headers=headers,
                          params={"workload": WORKLOAD, "by": "segsize", "value": ["128k", "big"]})  # fmt: skip
    assert nonsense.status_code == 422 and nonsense.json()["errors"][0]["field"] == "value"
    # The CSV names each pair's sizes as stored and as people write them.
    text = client.get(f"{API}/compare/groups.csv", headers=headers, params={
        "workload": WORKLOAD, "by": "sync", "value": ["file", "none"], "filter": "version:2.1.9"
    }).text  # fmt: skip
    keys = sorted({row["series"] for row in csv.DictReader(io.StringIO(text))
                   if row.get("series", "").startswith("agent=")})  # fmt: skip
    assert keys == sorted(
        f"agent={a} target=/mnt/ext4 param.segsize={b} ({h})"
        for a in AGENTS for b, h in zip(SEGSIZES, ("128 KiB", "1 MiB"), strict=True)
    )  # fmt: skip
    # A report's compare block, and explore's filter, read sizes the same way.
    block = {"kind": "compare", "workload": WORKLOAD, "by": "segsize", "values": ["128k", "1M"],
             "filter": ["version:2.1.9", "sync:file"]}  # fmt: skip
    body = {"slug": "by-size", "title": "By size", "blocks": [block]}
    assert client.post(f"{API}/reports", json=body, headers=upload).status_code == 201
    data = _get(client, headers, "/reports/by-size/data")["blocks"][0]
    assert data["groups"] == _get(client, headers, "/compare/groups", workload=WORKLOAD,
                                  by="segsize", value=["128k", "1M"],
                                  filter=["version:2.1.9", "sync:file"])  # fmt: skip
    assert [g["runs"] for g in data["groups"]["groups"]] == [len(AGENTS) * REPS] * 2
    assert data["groups"]["metrics"][0]["cells"][1]["pairs"] == len(AGENTS)


def _check_series_block(client: TestClient, headers: dict[str, str], upload: dict[str, str],
                        runs: list[dict[str, Any]]) -> None:  # fmt: skip
    items = _get(client, headers, "/series", workload=WORKLOAD, metric=METRIC, agent="lab-1",
                 limit=500)["items"]  # fmt: skip
    series = next(s for s in items if s["parameters"] == {"segsize": 131072, "sync": "file"})
    body = {"slug": "series", "title": "Series",
            "blocks": [{"kind": "series", "series_id": series["id"], "limit": 100}]}  # fmt: skip
    assert client.post(f"{API}/reports", json=body, headers=upload).status_code == 201
    got = _get(client, headers, "/reports/series/data")["blocks"][0]["series"]
    page = _get(client, headers, f"/series/{series['id']}/points", limit=100,
                fields="run,p5,p95,versions")  # fmt: skip
    assert got["versions"] == page["versions"]
    # Oracle: the series' runs in time order, a span where their version changes.
    mine = sorted(
        (r for r in runs if r["agent"] == "lab-1" and r["parameters"] == series["parameters"]),
        key=lambda r: r["started_at"],
    )
    spans = [
        (i, r["labels"]["version"]) for i, r in enumerate(mine)
        if i == 0 or r["labels"]["version"] != mine[i - 1]["labels"]["version"]
    ]  # fmt: skip
    assert [(s["at"], s["labels"]["version"]) for s in got["versions"]] == spans


def _check_stored_before(client: TestClient, headers: dict[str, str], session_factory: Any) -> None:
    """A report stored before blocks had explore's settings (no order, split, pool, exact in
    its JSON) reads as the page's defaults."""
    from perfatlas.reports.models import Report

    old = {"kind": "explore", "workload": WORKLOAD, "metric": METRIC, "x": "version",
           "group": "agent", "filter": [], "view": "lines", "logx": False, "logy": False}  # fmt: skip
    now = dt.datetime.now(dt.UTC)
    with session_factory() as session:
        session.execute(insert(Report).values(
            slug="stored-before", title="Old", notes="", blocks=[old], pinned_at=None,
            created_at=now, updated_at=now,
        ))  # fmt: skip
        session.commit()
    read = _get(client, headers, "/reports/stored-before")["blocks"][0]
    assert (read["order"], read["split"], read["pool"], read["exact"]) == ([], [], [], False)
    data = _get(client, headers, "/reports/stored-before/data")["blocks"][0]
    assert data["explore"] == _get(client, headers, "/explore", workload=WORKLOAD, metric=METRIC,
                                   x="version", group="agent")  # fmt: skip


def test_block_settings_on_postgresql(client, engine, upload_headers, read_headers):
    from perfatlas.core.db import session_factory

    runs = make_runs()
    stored = client.post(f"{API}/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert stored.status_code == 200, stored.text
    _check_explore_blocks(client, read_headers, upload_headers, runs)
    _check_group_compare_by_size(client, read_headers, upload_headers, runs)
    _check_series_block(client, read_headers, upload_headers, runs)
    _check_stored_before(client, read_headers, session_factory(engine))


def test_block_settings_on_sqlite(tmp_path: Path) -> None:
    from perfatlas.auth.service import create_token
    from perfatlas.core.config import Settings
    from perfatlas.core.db import get_engine, session_factory
    from perfatlas.main import create_app
    from tests.databases import migrate

    settings = Settings(data_dir=tmp_path / "data")
    url = settings.effective_database_url
    migrate(url)
    factory = session_factory(get_engine(url))
    with factory() as session:
        headers = {"Authorization": f"Bearer {create_token(session, name='r', scope='upload')[1]}"}
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        runs = make_runs()
        stored = client.post(f"{API}/runs/batch", json={"runs": runs}, headers=headers)
        assert stored.status_code == 200, stored.text
        _check_explore_blocks(client, headers, headers, runs)
        _check_group_compare_by_size(client, headers, headers, runs)
        _check_series_block(client, headers, headers, runs)
        _check_stored_before(client, headers, factory)
    get_engine(url).dispose()
