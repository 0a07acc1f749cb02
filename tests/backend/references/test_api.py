"""Reference runs: published figures posted as a table become runs marked `reference`, shown
(flagged) by the run page, explore and compare, and never detected on."""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from perfatlas.alerts import service as alerts
from perfatlas.alerts.detection import change_points
from perfatlas.core.config import Settings
from perfatlas.core.trust import REFERENCE
from perfatlas.runs.models import Result, Run, Series
from tests.factories import BASE_TIME, daily_runs, result, run_body

TABLES = Path(__file__).resolve().parents[3] / "backend" / "perfatlas" / "references" / "tables"
SEED000 = Path(__file__).resolve().parents[2] / "fixtures" / "seeds" / "000-coda-small-files.txt"
SOURCE = "http://codawiki.cse.chalmers.se/Small_file_performance.html"
METRIC = "create.ops_per_s"
PARAMETERS = run_body()["parameters"]
LABELS = run_body()["labels"]


def _history(agent: str, level: float, n: int, *, seed: int) -> list[dict[str, Any]]:
    return daily_runs([level] * n, random.Random(seed), metrics=[METRIC], agent=agent)


def _table(agent: str, values: list[float], **extra: Any) -> dict[str, Any]:
    """A reference table whose columns all land in the series of `_history(agent)`."""
    return {
        "source_url": "https://example.org/paper.pdf",
        "description": "Table 3: create rate of 1000 30-byte files, one column per run",
        "workload": "smallfile",
        "agent": agent,
        "started_at": (BASE_TIME + dt.timedelta(days=40)).isoformat(),
        "parameters": PARAMETERS,
        "labels": LABELS,
        "columns": [{"name": f"run {i + 1}", "target": "/mnt/ext4"} for i in range(len(values))],
        "rows": [{"metric": METRIC, "unit": "ops/s", "values": values}],
        **extra,
    }


def _series(engine: Engine, agent: str) -> Series:
    with Session(engine) as session:
        series = session.scalars(
            select(Series).join(Series.agent).where(Series.metric == METRIC)
        ).all()
        return next(s for s in series if s.agent.name == agent)


def _detect(engine: Engine, series: Series) -> tuple[list[int], list[tuple[int, float]]]:
    with Session(engine) as session:
        points, cps = change_points(session, series, 1000)
    return [p.run_id for p in points], [(cp.index, round(cp.confidence, 9)) for cp in cps]


def test_reference_figures_are_never_detected_on(
    client: TestClient, engine: Engine, settings: Settings, upload_headers: dict[str, str],
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    # Two series with the same flat history at 1000 ops/s.
    for agent, seed in (("host-a", 1), ("host-b", 2)):
        resp = client.post("/api/v1/runs/batch", json={"runs": _history(agent, 1000.0, 15, seed=seed)},
                           headers=upload_headers)  # fmt: skip
        assert resp.status_code == 200, resp.text
    series_a = _series(engine, "host-a")
    before = _detect(engine, series_a)
    assert before[1] == []  # flat: nothing to find

    # Control: eight measured runs at a tenth of the level open an alert on host-b.
    drop = [100.0, 101.0, 99.0, 100.5, 100.2, 99.7, 100.1, 99.9]
    control = _history("host-b", 1.0, len(drop), seed=3)
    for i, (body, value) in enumerate(zip(control, drop, strict=True)):
        body["started_at"] = (BASE_TIME + dt.timedelta(days=40, hours=i)).isoformat()
        body["finished_at"] = None
        body["results"] = [result(METRIC, [value] * 3)]
    resp = client.post("/api/v1/runs/batch", json={"runs": control}, headers=upload_headers)
    assert resp.status_code == 200, resp.text
    with Session(engine) as session:
        report = alerts.check_runs(session, [b["uuid"] for b in control], settings=settings)
    assert report.opened == 1

    # The same figures as references on host-a's series: no alert, detection unmoved.
    posted = client.post("/api/v1/references", json=_table("host-a", drop), headers=upload_headers)
    assert posted.status_code == 200, posted.text
    uuids = [r["uuid"] for r in posted.json()["runs"]]
    assert posted.json()["created"] == len(drop)
    assert _series(engine, "host-a").id == series_a.id  # they joined host-a's series
    with Session(engine) as session:
        report = alerts.check_runs(session, uuids, settings=settings)
        nightly = alerts.check_all(session, settings=settings, window=1000)
        stored = session.execute(
            select(Result.flags, Run.reference)
            .join(Result.run)
            .where(Result.series_id == series_a.id)
        ).all()
    assert report.opened == 0 and nightly.opened == 0
    assert _detect(engine, series_a) == before
    assert sorted(bool(flags & REFERENCE) for flags, _ in stored) == [False] * 15 + [True] * 8
    assert all(bool(flags & REFERENCE) == reference for flags, reference in stored)
    items = client.get("/api/v1/alerts", headers=read_headers).json()["items"]
    assert [a["series"]["agent"] for a in items] == ["host-b"]
    groups = client.get(
        "/api/v1/compare/groups",
        params={"workload": "smallfile", "by": "agent", "value": ["host-b", "host-a"]},
        headers=read_headers,
    )
    assert groups.status_code == 200, groups.text
    (metric,) = groups.json()["metrics"]
    # Compare's group cells: host-a's holds its history and the references, host-b's only
    # measured runs (its references come below).
    assert "reference" not in metric["cells"][0]["flags"]
    assert "reference" in metric["cells"][1]["flags"]

    # References back at the old level on host-b, after its drop: its alert neither resolves
    # nor moves, and they are no part of its points (its baseline and what came after).
    (alert,) = items
    detail = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    back = _table(
        "host-b", [1000.0] * 8, started_at=(BASE_TIME + dt.timedelta(days=41)).isoformat()
    )
    posted_b = client.post("/api/v1/references", json=back, headers=upload_headers)
    assert posted_b.status_code == 200, posted_b.text
    with Session(engine) as session:
        again = alerts.check_all(session, settings=settings, window=1000)
    assert (again.opened, again.updated, again.resolved, again.withdrawn) == (0, 0, 0, 0)
    after = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert after["status"] == alert["status"] and after["change_pct"] == alert["change_pct"]
    assert after["points"] == detail["points"]
    assert not {r["uuid"] for r in posted_b.json()["runs"]} & set(after["points"]["run_uuid"])

    # Every reader shows them marked: the run page, explore's points, compare's cells.
    run = client.get(f"/api/v1/runs/{uuids[0]}", headers=read_headers).json()
    assert run["reference"] is True
    assert run["meta"]["source_url"] == "https://example.org/paper.pdf"
    assert run["meta"]["description"].startswith("Table 3")
    # One published figure is one sample: few_repetitions too.
    assert [t["flag"] for t in run["trust"]] == ["few_repetitions", "reference"]
    assert run["results"][0]["flags"] == ["few_repetitions", "reference"]
    history_run = client.get("/api/v1/runs", params={"agent": "host-a"}, headers=read_headers)
    assert {r["reference"] for r in history_run.json()["items"]} == {True, False}

    explore = client.get(
        "/api/v1/explore",
        params={"workload": "smallfile", "metric": METRIC, "x": "time", "filter": "agent:host-a"},
        headers=read_headers,
    ).json()
    points = [p for trace in explore["traces"] for p in trace["points"]]
    assert len(points) == 23
    for point in points:
        is_reference = {str(u) for u in point["runs"]} <= set(uuids)
        assert ("reference" in point["flags"]) == is_reference
    assert "never used by detection" in explore["flag_reasons"]["reference"]

    stored_history = [r["uuid"] for r in history_run.json()["items"] if not r["reference"]]
    compare = client.get(
        "/api/v1/compare", params={"runs": [stored_history[0], uuids[0]]}, headers=read_headers
    ).json()
    (row,) = compare["metrics"]
    assert row["values"][1] == drop[0]
    assert row["flags"][0] == [] and row["flags"][1] == ["few_repetitions", "reference"]
    assert "reference" in compare["reasons"]


def test_posting_a_table_again_is_a_retry_and_bad_tables_write_nothing(
    client: TestClient, engine: Engine, upload_headers: dict[str, str],
    read_headers: dict[str, str], tokens: Any,
) -> None:  # fmt: skip
    table = _table("lab-1", [5.0, 6.0])
    cases = [
        ({**table, "source_url": "ftp://x/y"}, "body.source_url"),
        ({**table, "rows": [{"metric": METRIC, "unit": "ops/s", "values": [1.0]}]},
         "body.rows[0].values"),
        ({**table, "rows": [{"metric": METRIC, "unit": "furlongs", "values": [1.0, 2.0]}]},
         "body.rows[0].unit"),
        ({**table, "rows": [{"metric": METRIC, "unit": "ops/s", "values": [1.0, None]}]},
         "body.columns[1]"),
        ({**table, "columns": [{"name": "a"}, {"name": "a"}]}, "body.columns[1].name"),
        ({k: v for k, v in table.items() if k != "description"}, "body.description"),
        ({**table, "durability": {"write_cache": "fast"}}, "body.durability.write_cache"),
    ]  # fmt: skip
    for body, field in cases:
        response = client.post("/api/v1/references", json=body, headers=upload_headers)
        assert response.status_code == 422, (field, response.text)
        assert response.json()["errors"][0]["field"] == field, response.text
    read_only = {"Authorization": f"Bearer {tokens.read}"}
    assert client.post("/api/v1/references", json=table, headers=read_only).status_code == 403
    assert client.post("/api/v1/references", json=table).status_code == 401
    with Session(engine) as session:
        assert session.scalars(select(Run)).all() == []

    first = client.post("/api/v1/references", json={**table, "started_at": None},
                        headers=upload_headers)  # fmt: skip
    again = client.post("/api/v1/references", json={**table, "started_at": None},
                        headers=upload_headers)  # fmt: skip
    assert first.status_code == again.status_code == 200, again.text
    assert (again.json()["created"], again.json()["existing"]) == (0, 2)
    assert [r["uuid"] for r in again.json()["runs"]] == [r["uuid"] for r in first.json()["runs"]]
    changed = {**table, "started_at": None, "rows": [{**table["rows"][0], "values": [5.0, 7.0]}]}
    conflict = client.post("/api/v1/references", json=changed, headers=upload_headers)
    assert conflict.status_code == 409, conflict.text
    with Session(engine) as session:
        runs = session.scalars(select(Run)).all()
        assert len(runs) == 2 and all(r.reference for r in runs)
        # Durability the table does not give is unknown, as for imports.
        assert {(r.fsync_policy, r.write_cache, r.cold_method) for r in runs} == {
            ("unknown", "unknown", "unknown")
        }
    given = client.post(
        "/api/v1/references",
        json=_table("lab-2", [1.0], durability={"fsync_policy": "file", "write_cache": "write through"}),
        headers=upload_headers,
    )  # fmt: skip
    assert given.status_code == 200, given.text
    run = client.get(f"/api/v1/runs/{given.json()['runs'][0]['uuid']}", headers=read_headers)
    assert (run.json()["fsync_policy"], run.json()["write_cache"]) == ("file", "write through")
    assert run.json()["cold_method"] == "unknown"


def _seed_seconds(text: str) -> float:
    """`real 1m10.704s` as the seed prints it, in seconds."""
    match = re.fullmatch(r"(\d+)m(\d+\.\d+)s", text)
    assert match, text
    return float(int(match[1]) * 60 + Decimal(match[2]))  # decimal: 70.704, not 70.70400000000001


def _seed000_times() -> dict[tuple[str, str], dict[str, float]]:
    """(section, heading) -> {real, user, sys} from the seed's own text, for every `time`."""
    times: dict[tuple[str, str], dict[str, float]] = {}
    section = heading = ""
    for line in SEED000.read_text().splitlines():
        stripped = line.strip()
        if stripped in ("File creation", "Reading", "Deletion"):
            section = stripped
        elif stripped.endswith(":") and not stripped.startswith(("make.php", "run.php")):
            heading = stripped.rstrip(":")
        elif m := re.fullmatch(r"(real|user|sys)\s+(\S+)", stripped):
            times.setdefault((section, heading), {})[m[1]] = _seed_seconds(m[2])
    return times


def _seed000_quick() -> dict[str, list[float]]:
    """The OLD / NEW / LOCAL table: operation -> its three real times."""
    rows = {}
    for line in SEED000.read_text().splitlines():
        if line.startswith("File ") and " . real " in line:
            name, *cells = line.split(" . real ")
            rows[name.strip()] = [_seed_seconds(c.split()[0]) for c in cells]
    return rows


def test_seed000_tables_import_with_the_seeds_numbers(
    client: TestClient, upload_headers: dict[str, str], read_headers: dict[str, str]
) -> None:
    times = _seed000_times()
    expected = {  # metric prefix -> (section, heading) per column: Coda, NFS, XFS
        "create": [("File creation", "Coda"), ("File creation", "NFS"),
                   ("File creation", "Native file system (xfs)")],
        "read_cold": [("Reading", "Coda, first run"), ("Reading", "NFS, first run"), None],
        "read_warm": [("Reading", "Coda subsequent runs, average (zero load on server)"),
                      ("Reading", "NFS subsequent runs, average (some load on server)"), None],
        "read": [None, None, ("Reading", "Local file system (xfs)")],
        "delete": [("Deletion", "Coda"), ("Deletion", "NFS"),
                   ("Deletion", "Local file system (xfs)")],
    }  # fmt: skip
    table = json.loads((TABLES / "seed000_coda_nfs_xfs.json").read_text())
    assert table["source_url"] == SOURCE
    posted = client.post("/api/v1/references", json=table, headers=upload_headers)
    assert posted.status_code == 200, posted.text
    runs = [
        client.get(f"/api/v1/runs/{r['uuid']}", headers=read_headers).json()
        for r in posted.json()["runs"]
    ]
    assert [r["target"] for r in runs] == ["coda", "nfs", "xfs"]
    checked = 0
    for column, run in enumerate(runs):
        assert run["reference"] and run["meta"]["source_url"] == SOURCE
        got = {m["metric"]: m["value"] for m in run["results"]}
        want = {}
        for prefix, cells in expected.items():
            if cells[column] is None:
                continue
            seed = times[cells[column]]
            want |= {f"{prefix}.seconds": seed["real"], f"{prefix}.user_seconds": seed["user"],
                     f"{prefix}.sys_seconds": seed["sys"]}  # fmt: skip
        assert got == want
        checked += len(want)
    assert checked == 33  # 3 figures x (5 + 4 + 2) timed commands
    assert times[("Deletion", "Coda")]["real"] == 70.704  # "1m10.704s"

    quick = _seed000_quick()
    assert list(quick) == ["File creation", "File read first", "File read subseq.", "File deletion"]
    table = json.loads((TABLES / "seed000_coda_2007.json").read_text())
    posted = client.post("/api/v1/references", json=table, headers=upload_headers)
    assert posted.status_code == 200, posted.text
    for column, item in enumerate(posted.json()["runs"]):
        run = client.get(f"/api/v1/runs/{item['uuid']}", headers=read_headers).json()
        got = {m["metric"]: m["value"] for m in run["results"]}
        assert got == (
            {
                "create.seconds": quick["File creation"][column],
                "read_cold.seconds": quick["File read first"][column],
                "read_warm.seconds": quick["File read subseq."][column],
                "delete.seconds": quick["File deletion"][column],
            }
        )
