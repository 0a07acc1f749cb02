"""Reports on PostgreSQL: every block's data is its page's route's answer to the same query; a
pinned report leaves out later runs (checked against plain medians); bad blocks are a 422
naming blocks[i].field and write nothing; writes need a person's token; import by slug."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import statistics
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.factories import BASE_TIME, result, run_body

API = "/api/v1"
PIN = BASE_TIME + dt.timedelta(days=10)


def _runs() -> list[dict[str, Any]]:
    """smallfile over threads × fs_version × agent, every day for 20 days: half before PIN."""
    bodies = []
    for day in range(20):
        for agent in ("host-a", "host-b"):
            for version in ("6.1", "6.2"):
                for threads in (1, 8):
                    base = 1000.0 * threads**0.5 * (1.2 if version == "6.2" else 1.0)
                    # Later runs are slower: a pin changes the numbers.
                    base *= 1.0 if day < 10 else 0.7
                    base *= 1.0 + 0.01 * day + (0.05 if agent == "host-b" else 0.0)
                    started = BASE_TIME + dt.timedelta(days=day, hours=threads)
                    bodies.append(
                        run_body(
                            agent=agent,
                            started_at=started.isoformat(),
                            parameters={
                                "nfiles": 1000,
                                "size": "30B",
                                "fsync": False,
                                "threads": threads,
                            },
                            labels={"fs_version": version, "mode": "connected"},
                            environment={**run_body()["environment"], "hostname": agent},
                            results=[
                                result("create.ops_per_s", [base * f for f in (0.95, 1.0, 1.1)]),
                                result(
                                    "create.seconds",
                                    [1000 / base * f for f in (1, 1.05, 0.9)],
                                    unit="s",
                                ),
                                result(
                                    "delete.seconds",
                                    [500 / base * f for f in (1, 1.1, 0.8)],
                                    unit="s",
                                ),
                            ],
                        )
                    )
    return bodies


def _store(client: TestClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    bodies = _runs()
    response = client.post(f"{API}/runs/batch", json={"runs": bodies}, headers=headers)
    assert response.status_code == 200, response.text
    return bodies


def _get(client: TestClient, headers: dict[str, str], path: str, **params: Any) -> Any:
    response = client.get(f"{API}{path}", params=params, headers=headers)
    assert response.status_code == 200, (path, params, response.text)
    return response.json()


def _series_id(client: TestClient, headers: dict[str, str]) -> int:
    items = _get(client, headers, "/series", workload="smallfile", metric="create.ops_per_s",
                 agent="host-a", limit=500)["items"]  # fmt: skip
    chosen = [s for s in items if s["parameters"]["threads"] == 8]
    assert chosen
    return int(chosen[0]["id"])


def _points(data: dict[str, Any]) -> dict[str, Any]:
    """Series points as compared: times as instants, the columns not asked for left out."""
    same = {k: v for k, v in data.items() if v is not None}
    same["t"] = [dt.datetime.fromisoformat(t) for t in data["t"]]
    return same


def _blocks(bodies: list[dict[str, Any]], series_id: int) -> list[dict[str, Any]]:
    first, second = bodies[0]["uuid"], bodies[-1]["uuid"]
    return [
        {"kind": "explore", "title": "create vs threads", "workload": "smallfile",
         "metric": "create.ops_per_s", "x": "threads", "group": "fs_version",
         "filter": ["agent:host-a"], "logx": True},
        {"kind": "explore", "workload": "smallfile", "metric": "create.seconds,delete.seconds",
         "x": "fs_version", "group": "metric"},
        {"kind": "markdown", "text": "## Between\n\nSome *words*."},
        {"kind": "heatmap", "workload": "smallfile", "metric": "create.ops_per_s",
         "x": "threads", "y": "agent", "filter": [], "diff": "fs_version", "a": "6.1", "b": "6.2"},
        {"kind": "compare", "runs": [first, second], "metric": ["create.*"]},
        {"kind": "compare", "workload": "smallfile", "by": "fs_version", "values": ["6.1", "6.2"],
         "metric": ["*.seconds"]},
        {"kind": "series", "series_id": series_id, "limit": 100},
    ]  # fmt: skip


def test_block_data_is_the_pages_answer(client, upload_headers, read_headers):
    bodies = _store(client, upload_headers)
    series_id = _series_id(client, read_headers)
    blocks = _blocks(bodies, series_id)
    body = {"slug": "smallfile-threads", "title": "Threads", "notes": "# Hi", "blocks": blocks}
    created = client.post(f"{API}/reports", json=body, headers=upload_headers)
    assert created.status_code == 201, created.text
    assert created.json()["blocks"][0]["logx"] is True
    data = _get(client, read_headers, "/reports/smallfile-threads/data")
    assert data["report"]["title"] == "Threads" and data["report"]["pinned_at"] is None
    got = data["blocks"]
    assert [b["kind"] for b in got] == [b["kind"] for b in blocks]
    assert all(b["error"] is None for b in got)
    explore = _get(client, read_headers, "/explore", workload="smallfile",
                   metric="create.ops_per_s", x="threads", group="fs_version",
                   filter=["agent:host-a"])  # fmt: skip
    assert got[0]["explore"] == explore
    # The numbers themselves: the median of the runs' medians, per threads and version.
    for trace in explore["traces"]:
        for point in trace["points"]:
            values = [
                statistics.median(b["results"][0]["samples"]) for b in bodies
                if b["agent"] == "host-a" and b["labels"]["fs_version"] == trace["group"]
                and b["parameters"]["threads"] == point["x"]
            ]  # fmt: skip
            assert point["n"] == len(values) == 20
            assert abs(point["median"] - statistics.median(values)) < 1e-9
    assert got[1]["explore"] == _get(client, read_headers, "/explore", workload="smallfile",
                                     metric="create.seconds,delete.seconds", x="fs_version",
                                     group="metric")  # fmt: skip
    # Each metric's line split by threads, which its points would otherwise pool (the page's
    # default, and so the report's).
    assert [(t["group_value"], t["split"]) for t in got[1]["explore"]["traces"]] == [
        (m, {"param.threads": n}) for m in ("create.seconds", "delete.seconds") for n in ("1", "8")
    ]
    assert got[2]["explore"] is None and got[2]["error"] is None
    heat = [
        _get(client, read_headers, "/explore", workload="smallfile", metric="create.ops_per_s",
             x="threads", group="agent", filter=[f"fs_version:{v}"])
        for v in ("6.1", "6.2")
    ]  # fmt: skip
    assert got[3]["heatmap"] == heat
    compare = _get(client, read_headers, "/compare", runs=f"{bodies[0]['uuid']},{bodies[-1]['uuid']}",
                   metric="create.*")  # fmt: skip
    assert got[4]["compare"] == compare
    assert [m["metric"] for m in compare["metrics"]] == ["create.ops_per_s", "create.seconds"]
    groups = _get(client, read_headers, "/compare/groups", workload="smallfile", by="fs_version",
                  value=["6.1", "6.2"], metric="*.seconds")  # fmt: skip
    assert got[5]["groups"] == groups
    points = _get(client, read_headers, f"/series/{series_id}/points", limit=100,
                  fields="run,p5,p95,versions")  # fmt: skip
    assert _points(got[6]["series"]) == _points(points)
    assert len(points["t"]) == 40  # host-a, 8 threads: two versions, 20 days
    # One block alone, as JSON and CSV.
    assert _get(client, read_headers, "/reports/smallfile-threads/blocks/0.json") == got[0]
    text = client.get(f"{API}/reports/smallfile-threads/blocks/0.csv", headers=read_headers)
    assert text.status_code == 200 and text.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(text.text)))
    assert len(rows) == 4
    for row in rows:
        trace = next(t for t in explore["traces"] if t["group"] == row["fs_version"])
        point = next(p for p in trace["points"] if float(p["x"]) == float(row["threads"]))
        assert float(row["median"]) == point["median"]
    series_csv = client.get(f"{API}/reports/smallfile-threads/blocks/6.csv", headers=read_headers)
    assert len(series_csv.text.splitlines()) == 41
    compare_csv = client.get(f"{API}/reports/smallfile-threads/blocks/4.csv", headers=read_headers)
    assert compare_csv.status_code == 200 and "create.ops_per_s" in compare_csv.text
    assert client.get(f"{API}/reports/smallfile-threads/blocks/2.csv",
                      headers=read_headers).status_code == 404  # fmt: skip
    assert client.get(f"{API}/reports/smallfile-threads/blocks/9.json",
                      headers=read_headers).status_code == 404  # fmt: skip
    listed = _get(client, read_headers, "/reports")["items"]
    assert [(r["slug"], r["blocks"]) for r in listed] == [("smallfile-threads", 7)]


def test_a_pinned_report_leaves_out_later_runs(client, upload_headers, read_headers):
    bodies = _store(client, upload_headers)
    series_id = _series_id(client, read_headers)
    blocks = _blocks(bodies, series_id)
    # A time filter of its own is cut at the pin, not widened.
    blocks[0]["filter"] = [
        "agent:host-a",
        f"time:{(BASE_TIME + dt.timedelta(days=5)).isoformat()}..",
    ]
    body = {"slug": "pinned", "title": "Pinned", "blocks": blocks, "pinned_at": PIN.isoformat()}
    assert client.post(f"{API}/reports", json=body, headers=upload_headers).status_code == 201
    got = _get(client, read_headers, "/reports/pinned/data")["blocks"]
    start = BASE_TIME + dt.timedelta(days=5)
    for trace in got[0]["explore"]["traces"]:
        for point in trace["points"]:
            values = [
                statistics.median(b["results"][0]["samples"]) for b in bodies
                if b["agent"] == "host-a" and b["labels"]["fs_version"] == trace["group"]
                and b["parameters"]["threads"] == point["x"]
                and start <= dt.datetime.fromisoformat(b["started_at"]) < PIN
            ]  # fmt: skip
            assert point["n"] == len(values) == 5
            assert abs(point["median"] - statistics.median(values)) < 1e-9
    # Live, the same block reads the slower later runs too.
    live = _get(client, read_headers, "/explore", workload="smallfile", metric="create.ops_per_s",
                x="threads", group="fs_version", filter=blocks[0]["filter"])  # fmt: skip
    assert live["traces"][0]["points"][0]["n"] == 15
    assert (
        live["traces"][0]["points"][0]["median"]
        < got[0]["explore"]["traces"][0]["points"][0]["median"]
    )
    multi = [t for t in got[1]["explore"]["traces"] if t["group_value"] == "create.seconds"]
    assert sum(p["n"] for t in multi for p in t["points"]) == 10 * 8  # ten days of 8 runs a day
    for grid in got[3]["heatmap"]:
        assert all(p["n"] == 10 for t in grid["traces"] for p in t["points"])
    # The compared runs: the last run started after the pin.
    assert got[4]["compare"] is None and "pinned" in got[4]["error"]
    pinned_groups = got[5]["groups"]
    assert sum(g["runs"] for g in pinned_groups["groups"]) == 80
    assert got[6]["series"]["t"] and len(got[6]["series"]["t"]) == 20
    assert all(dt.datetime.fromisoformat(t) < PIN for t in got[6]["series"]["t"])
    # Unpinned: live again, every run.
    patched = client.patch(
        f"{API}/reports/pinned", json={"pinned_at": None}, headers=upload_headers
    )
    assert patched.status_code == 200 and patched.json()["pinned_at"] is None
    again = _get(client, read_headers, "/reports/pinned/data")["blocks"]
    assert again[0]["explore"]["traces"][0]["points"][0]["n"] == 15
    assert len(again[6]["series"]["t"]) == 40


BAD_BLOCKS = [
    ({"kind": "explore", "workload": "smallfile", "metric": "create.ops_per_s", "x": "nosuch"},
     "blocks[1].x"),
    ({"kind": "explore", "workload": "smallfile", "metric": "create.ops_per_s",
      "group": "nosuch"}, "blocks[1].group"),
    ({"kind": "explore", "workload": "smallfile", "metric": "create.ops_per_s",
      "filter": ["nosuch:1"]}, "blocks[1].filter"),
    ({"kind": "explore", "workload": "smallfile", "metric": "create.ops_per_s,create.seconds"},
     "blocks[1].metric"),
    ({"kind": "explore", "workload": "smallfile", "metric": "create.ops_per_s,create.seconds",
      "group": "metric"}, "blocks[1].metric"),
    ({"kind": "heatmap", "workload": "smallfile", "metric": "create.ops_per_s", "x": "threads",
      "y": "nosuch"}, "blocks[1].y"),
    ({"kind": "compare", "runs": [str(uuid.uuid4()), str(uuid.uuid4())]}, "blocks[1].runs"),
    ({"kind": "compare", "workload": "smallfile", "by": "nosuch", "values": ["a", "b"]},
     "blocks[1].by"),
    ({"kind": "compare", "workload": "smallfile", "by": "fs_version"}, "blocks[1].values"),
    ({"kind": "series", "series_id": 999999}, "blocks[1].series_id"),
]  # fmt: skip


def test_bad_blocks_are_refused_naming_the_field(client, upload_headers, read_headers):
    _store(client, upload_headers)
    ok = {"kind": "markdown", "text": "fine"}
    for block, field in BAD_BLOCKS:
        body = {"slug": "bad", "title": "Bad", "blocks": [ok, block]}
        response = client.post(f"{API}/reports", json=body, headers=upload_headers)
        assert response.status_code == 422, (block, response.text)
        assert response.json()["errors"][0]["field"] == field, (block, response.text)
    # Schema errors name the place in the body.
    for block, where in [({"kind": "pie"}, "blocks"), ({"kind": "series"}, "series_id"),
                         ({"kind": "explore", "workload": "w", "metric": "m", "colour": 1},
                          "colour")]:  # fmt: skip
        body = {"slug": "bad", "title": "Bad", "blocks": [block]}
        response = client.post(f"{API}/reports", json=body, headers=upload_headers)
        assert response.status_code == 422, response.text
        assert where in response.json()["errors"][0]["field"], response.text
    for body, field in [({"slug": "Bad Slug", "title": "x"}, "slug"),
                        ({"slug": "ok", "title": ""}, "title")]:  # fmt: skip
        response = client.post(f"{API}/reports", json=body, headers=upload_headers)
        assert response.status_code == 422 and field in response.json()["errors"][0]["field"]
    assert _get(client, read_headers, "/reports")["items"] == []
    # An update with a bad block changes nothing either.
    good = {"slug": "good", "title": "Good", "blocks": [ok]}
    assert client.post(f"{API}/reports", json=good, headers=upload_headers).status_code == 201
    assert client.post(f"{API}/reports", json=good, headers=upload_headers).status_code == 409
    bad = client.patch(f"{API}/reports/good", json={"blocks": [ok, BAD_BLOCKS[0][0]]},
                       headers=upload_headers)  # fmt: skip
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "blocks[1].x"
    assert len(_get(client, read_headers, "/reports/good")["blocks"]) == 1
    assert client.get(f"{API}/reports/nosuch", headers=read_headers).status_code == 404


def test_writes_need_a_persons_token(client, tokens, upload_headers, read_headers):
    body = {"slug": "auth", "title": "Auth", "notes": "n"}
    read = {"Authorization": f"Bearer {tokens.read}"}
    for method, path, payload in [("POST", "/reports", body), ("PATCH", "/reports/auth", {"title": "t"}),
                                  ("DELETE", "/reports/auth", None)]:  # fmt: skip
        assert client.request(method, f"{API}{path}", json=payload).status_code == 401
        assert client.request(method, f"{API}{path}", json=payload, headers=read).status_code == 403
    assert _get(client, read_headers, "/reports")["items"] == []
    assert client.post(f"{API}/reports", json=body, headers=upload_headers).status_code == 201
    admin = {"Authorization": f"Bearer {tokens.admin}"}
    renamed = client.patch(f"{API}/reports/auth", json={"title": "Renamed"}, headers=admin)
    assert renamed.status_code == 200 and renamed.json()["notes"] == "n"
    assert client.get(f"{API}/reports/auth").status_code == 401
    assert client.delete(f"{API}/reports/auth", headers=upload_headers).status_code == 204
    assert client.get(f"{API}/reports/auth", headers=read_headers).status_code == 404


def test_import_from_a_json_file_is_idempotent_by_slug(client, settings, upload_headers,
                                                        read_headers, tmp_path: Path):  # fmt: skip
    _store(client, upload_headers)
    report = {"slug": "study-default", "title": "Study", "notes": "v1", "blocks": [
        {"kind": "explore", "workload": "smallfile", "metric": "create.ops_per_s", "x": "threads"},
    ]}  # fmt: skip
    path = tmp_path / "report.json"
    env = {**os.environ, "PERFATLAS_DATABASE_URL": settings.database_url}

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "perfatlas", "report", "import", str(path)],
                              env=env, capture_output=True, text=True, timeout=120)  # fmt: skip

    path.write_text(json.dumps(report))
    first = run()
    assert first.returncode == 0, first.stderr
    assert "created report 'study-default'" in first.stdout
    report["notes"] = "v2"
    report["blocks"].append({"kind": "markdown", "text": "more"})
    path.write_text(json.dumps(report))
    second = run()
    assert second.returncode == 0 and "replaced" in second.stdout, second.stderr
    listed = _get(client, read_headers, "/reports")["items"]
    assert [(r["slug"], r["blocks"]) for r in listed] == [("study-default", 2)]
    assert _get(client, read_headers, "/reports/study-default")["notes"] == "v2"
    report["blocks"][0]["x"] = "nosuch"
    path.write_text(json.dumps(report))
    bad = run()
    assert bad.returncode == 2 and "blocks[0].x" in bad.stderr
    assert _get(client, read_headers, "/reports/study-default")["blocks"][0]["x"] == "threads"


def test_on_sqlite_the_embedded_default(tmp_path: Path) -> None:
    from perfatlas.auth.service import create_token
    from perfatlas.core.config import Settings
    from perfatlas.core.db import get_engine, session_factory
    from perfatlas.main import create_app
    from tests.databases import migrate

    settings = Settings(data_dir=tmp_path / "data")
    url = settings.effective_database_url
    migrate(url)
    with session_factory(get_engine(url))() as session:
        headers = {"Authorization": f"Bearer {create_token(session, name='r', scope='upload')[1]}"}
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        bodies = _store(client, headers)
        blocks = _blocks(bodies, _series_id(client, headers))
        body = {"slug": "lite", "title": "Lite", "blocks": blocks, "pinned_at": PIN.isoformat()}
        assert client.post(f"{API}/reports", json=body, headers=headers).status_code == 201
        got = _get(client, headers, "/reports/lite/data")["blocks"]
        pinned = _get(client, headers, "/explore", workload="smallfile", metric="create.ops_per_s",
                      x="threads", group="fs_version",
                      filter=["agent:host-a", f"time:..{PIN.isoformat()}"])  # fmt: skip
        assert got[0]["explore"] == pinned
        assert [p["n"] for t in pinned["traces"] for p in t["points"]] == [10, 10, 10, 10]
        assert len(got[6]["series"]["t"]) == 20
    get_engine(url).dispose()


def test_a_default_report_imports_before_its_workload_has_runs(client, upload_headers,
                                                               read_headers):  # fmt: skip
    """A study's default report: explore and group compare blocks of a workload with no runs
    yet are kept (nothing to check them against) and say why they are empty; once runs arrive
    the same report shows them, and a wrong name is still refused where there are runs."""
    blocks = [
        {"kind": "explore", "workload": "smallfile", "metric": "create.ops_per_s",
         "x": "threads", "group": "fs_version"},
        {"kind": "compare", "workload": "smallfile", "by": "fs_version",
         "values": ["6.1", "6.2"]},
    ]  # fmt: skip
    body = {"slug": "default", "title": "Default", "blocks": blocks}
    assert client.post(f"{API}/reports", json=body, headers=upload_headers).status_code == 201
    empty = _get(client, read_headers, "/reports/default/data")["blocks"]
    assert empty[0]["explore"]["traces"] == [] and "no runs" in empty[0]["explore"]["note"]
    assert empty[1]["groups"] is None and empty[1]["error"]
    bodies = _store(client, upload_headers)
    full = _get(client, read_headers, "/reports/default/data")["blocks"]
    assert full[1]["groups"] == _get(client, read_headers, "/compare/groups",
                                     workload="smallfile", by="fs_version", value=["6.1", "6.2"])  # fmt: skip
    assert sum(g["runs"] for g in full[1]["groups"]["groups"]) == len(bodies)
    point = full[0]["explore"]["traces"][0]["points"][0]
    assert point["n"] == 40  # 20 days × 2 agents of fs_version 6.1, 1 thread
    # Before runs, what is missing is still refused.
    partial = {"kind": "compare", "workload": "nosuch_workload", "by": "fs_version"}
    missing = client.post(f"{API}/reports", json={"slug": "m", "title": "M", "blocks": [partial]},
                          headers=upload_headers)  # fmt: skip
    assert missing.status_code == 422, missing.text
    assert missing.json()["errors"][0]["field"] == "blocks[0].values"
    bad = {"slug": "bad", "title": "Bad", "blocks": [{**blocks[1], "by": "nosuch"}]}
    refused = client.post(f"{API}/reports", json=bad, headers=upload_headers)
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "blocks[0].by"


def test_a_study_report_imports_beside_other_runs_of_its_workloads(
    client, settings, upload_headers, read_headers
):
    """A block of a study (`study:NAME`) whose runs are not stored yet is kept even where its
    workload has other runs without the study label (a user's own runs), so that installing the
    defaults does not depend on what else is stored; the block shows the study's runs once they
    arrive, and other wrong names are still refused."""
    from perfatlas.core.db import get_engine, session_factory
    from perfatlas.reports.defaults import install_defaults

    _store(client, upload_headers)  # smallfile runs, none of a study
    mine = run_body(workload="command", parameters={"cmd": "mine"},
                    results=[result("download.mb_per_s", [4.0, 4.1], unit="MB/s")])  # fmt: skip
    assert client.post(f"{API}/runs", json=mine, headers=upload_headers).status_code == 201
    with session_factory(get_engine(settings.database_url))() as session:
        outcomes = install_defaults(session)
    assert [o for o in outcomes if o.state == "error"] == []
    assert {o.name for o in outcomes if o.state == "created"} >= {"study-partial-003",
                                                                  "study-smallfiles-000"}  # fmt: skip
    block = {"kind": "explore", "workload": "smallfile", "metric": "create.ops_per_s",
             "x": "threads", "group": "fs_version", "filter": ["study:mine"]}  # fmt: skip
    body = {"slug": "mine", "title": "Mine", "blocks": [block]}
    assert client.post(f"{API}/reports", json=body, headers=upload_headers).status_code == 201
    before = _get(client, read_headers, "/reports/mine/data")["blocks"][0]
    # The seed's reference tables (smallfile runs labelled with their study) made `study` a
    # dimension of smallfile: the block is an empty answer until the study's runs arrive.
    assert before["error"] is None and before["explore"]["traces"] == [], before
    ours = run_body(labels={"fs_version": "6.1", "study": "mine"},
                    parameters={"nfiles": 1000, "size": "30B", "fsync": False, "threads": 4},
                    results=[result("create.ops_per_s", [10.0, 12.0, 11.0])])  # fmt: skip
    assert client.post(f"{API}/runs", json=ours, headers=upload_headers).status_code == 201
    after = _get(client, read_headers, "/reports/mine/data")["blocks"][0]["explore"]
    assert [(t["group"], [(p["x"], p["median"], p["n"]) for p in t["points"]])
            for t in after["traces"]] == [("6.1", [(4, 11.0, 1)])]  # fmt: skip
    # Where the study has runs, or the name is not the study label, a wrong name is refused.
    for filters, field in ((["study:mine", "nosuch:1"], "blocks[0].filter"),
                           (["stduy:mine"], "blocks[0].filter")):  # fmt: skip
        bad = {"slug": "bad", "title": "Bad", "blocks": [{**block, "filter": filters}]}
        refused = client.post(f"{API}/reports", json=bad, headers=upload_headers)
        assert refused.status_code == 422, (filters, refused.text)
        assert refused.json()["errors"][0]["field"] == field, refused.text
