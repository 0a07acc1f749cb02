"""Reading back: runs list with filters and cursors, series, explore, CSV exports (compare:
compare/test_runs.py)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import statistics

import pytest

from tests.factories import BASE_TIME, result, run_body


def upload(client, headers, runs):
    response = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=headers)
    assert response.status_code == 200, response.text
    return runs


def atlasperf_runs():
    """Seed 003's shape: download speed vs k, one line per Tahoe version, three runs a point."""
    runs = []
    speed = {"1.7.1": 4.4, "1.8.2": 2.6, "trunk": 4.0}
    for version, base in speed.items():
        for k in (1, 3, 10, 30, 60):
            for rep in range(3):
                value = base * (1 - k / 120) + rep * 0.01
                runs.append(
                    run_body(
                        workload="partialread",
                        parameters={"k": k, "segsize": 131072},
                        labels={"version": version},
                        started_at=(BASE_TIME + dt.timedelta(minutes=len(runs))).isoformat(),
                        results=[
                            result(
                                "read.mb_per_s", [value, value * 1.02, value * 0.98], unit="MB/s"
                            )
                        ],
                    )
                )
    return runs


def test_explore_x_parameter_group_label(client, upload_headers, read_headers):
    runs = upload(client, upload_headers, atlasperf_runs())
    response = client.get(
        "/api/v1/explore",
        params={"workload": "partialread", "metric": "read.mb_per_s", "x": "k", "group": "version"},
        headers=read_headers,
    )
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["unit"] == "MB/s" and data["direction"] == "higher"
    assert data["x_numeric"] is True
    assert [t["group"] for t in data["traces"]] == ["1.7.1", "1.8.2", "trunk"]
    for trace in data["traces"]:
        assert [p["x"] for p in trace["points"]] == [1, 3, 10, 30, 60]
        for point in trace["points"]:
            assert point["n"] == 3
            values = sorted(
                run["results"][0]["samples"][0]  # the median sample of each run
                for run in runs
                if run["labels"]["version"] == trace["group"]
                and run["parameters"]["k"] == point["x"]
            )
            assert point["median"] == pytest.approx(statistics.median(values))
            pooled = sorted(
                s
                for run in runs
                if run["labels"]["version"] == trace["group"]
                and run["parameters"]["k"] == point["x"]
                for s in run["results"][0]["samples"]
            )
            # min and max are the extreme repetitions, not the extreme runs.
            assert point["min"] == pytest.approx(pooled[0])
            assert point["max"] == pytest.approx(pooled[-1])
            assert point["repetitions"] == 9
            assert point["p5"] < min(values) and point["p95"] > max(values)
            assert len(point["runs"]) == 3


def test_explore_filters_and_time_axis(client, upload_headers, read_headers):
    upload(client, upload_headers, atlasperf_runs())
    params = {"workload": "partialread", "metric": "read.mb_per_s", "x": "k", "group": "version",
              "filter": ["version:trunk", "version:1.8.2", "k:3"]}  # fmt: skip
    data = client.get("/api/v1/explore", params=params, headers=read_headers).json()
    assert [t["group"] for t in data["traces"]] == ["1.8.2", "trunk"]
    assert all([p["x"] for p in t["points"]] == [3] for t in data["traces"])

    timeline = client.get(
        "/api/v1/explore",
        params={
            "workload": "partialread",
            "metric": "read.mb_per_s",
            "filter": "label.version:trunk",
            "split": "none",  # one line for every trunk run, whatever its k
        },
        headers=read_headers,
    ).json()
    (trace,) = timeline["traces"]
    assert len(trace["points"]) == 15  # one point per run on a time axis
    stamps = [p["x"] for p in trace["points"]]
    assert stamps == sorted(stamps)


def test_explore_by_builtin_dimension_and_bad_dimension(client, upload_headers, read_headers):
    xfs = run_body(target="/mnt/xfs", environment={"hostname": "host-a", "fs_type": "xfs"})
    upload(client, upload_headers, [run_body(), xfs])
    data = client.get(
        "/api/v1/explore",
        params={"workload": "smallfile", "metric": "create.ops_per_s", "x": "fs_type"},
        headers=read_headers,
    ).json()
    assert data["x_numeric"] is False
    assert [p["x"] for p in data["traces"][0]["points"]] == ["ext4", "xfs"]

    bad = client.get(
        "/api/v1/explore",
        params={"workload": "smallfile", "metric": "create.ops_per_s", "filter": "nocolon"},
        headers=read_headers,
    )
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "filter"


def test_explore_csv_matches_the_plot(client, upload_headers, read_headers):
    upload(client, upload_headers, atlasperf_runs())
    params = {"workload": "partialread", "metric": "read.mb_per_s", "x": "k", "group": "version"}
    data = client.get("/api/v1/explore", params=params, headers=read_headers).json()
    response = client.get("/api/v1/explore.csv", params=params, headers=read_headers)
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) == 15
    first = data["traces"][0]["points"][0]
    assert rows[0]["version"] == "1.7.1" and float(rows[0]["median"]) == pytest.approx(
        first["median"]
    )


def test_runs_list_filters_and_cursor_pages(client, upload_headers, read_headers):
    runs = [
        run_body(started_at=(BASE_TIME + dt.timedelta(hours=i)).isoformat(),
                 agent="host-a" if i % 2 else "host-b", labels={"mode": "connected" if i < 5 else "disconnected"})
        for i in range(12)
    ]  # fmt: skip
    upload(client, upload_headers, runs)
    seen: list[str] = []
    cursor = None
    while True:
        params = {"limit": 5, **({"cursor": cursor} if cursor else {})}
        page = client.get("/api/v1/runs", params=params, headers=read_headers).json()
        seen.extend(item["uuid"] for item in page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    newest_first = [r["uuid"] for r in sorted(runs, key=lambda r: r["started_at"], reverse=True)]
    assert seen == newest_first

    by_agent = client.get("/api/v1/runs", params={"agent": "host-a"}, headers=read_headers).json()
    assert len(by_agent["items"]) == 6
    by_label = client.get(
        "/api/v1/runs", params={"label": "mode:connected", "agent": "host-b"}, headers=read_headers
    ).json()
    assert {i["uuid"] for i in by_label["items"]} == {runs[i]["uuid"] for i in (0, 2, 4)}
    by_param = client.get(
        "/api/v1/runs", params={"param": "nfiles:1000"}, headers=read_headers
    ).json()
    assert len(by_param["items"]) == 12
    none = client.get("/api/v1/runs", params={"param": "fsync:true"}, headers=read_headers).json()
    assert none["items"] == []
    bad = client.get("/api/v1/runs", params={"cursor": "garbage"}, headers=read_headers)
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "cursor"

    # How many runs match, on every page, when the only filters are workload and agent (the
    # counts kept at ingest), against a count over the bodies; a retry counts once.
    more = [
        run_body(workload="seqio", agent=agent, started_at=(BASE_TIME - dt.timedelta(hours=i)).isoformat())
        for i, agent in enumerate(["host-a", "host-c", "host-c"])
    ]  # fmt: skip
    upload(client, upload_headers, more)
    upload(client, upload_headers, [runs[3], more[1]])
    stored = runs + more
    for filters in ({}, {"agent": "host-a"}, {"agent": "host-c"}, {"workload": "seqio"},
                    {"workload": "smallfile", "agent": "host-b"}, {"workload": "seqio", "agent": "host-b"},
                    {"agent": "nobody"}, {"workload": "nothing"}):  # fmt: skip
        want = sum(
            filters.get("agent", r["agent"]) == r["agent"]
            and filters.get("workload", r["workload"]) == r["workload"]
            for r in stored
        )
        cursor, pages = None, 0
        while True:
            params = {**filters, "limit": 4} | ({"cursor": cursor} if cursor else {})
            page = client.get("/api/v1/runs", params=params, headers=read_headers).json()
            assert page["total"] == want, (filters, pages)
            cursor, pages = page["next_cursor"], pages + 1
            if cursor is None:
                break
        assert pages == max(1, -(-want // 4)), filters
    # Another filter would need a count over the runs: no total.
    for other in ({"label": "mode:connected"}, {"param": "nfiles:1000"}, {"status": "ok"},
                  {"target": "/mnt/ext4"}, {"since": BASE_TIME.isoformat()}):  # fmt: skip
        page = client.get("/api/v1/runs", params=other, headers=read_headers).json()
        assert page["total"] is None and page["items"], other
    assert (
        client.get(
            "/api/v1/runs/00000000-0000-0000-0000-000000000000", headers=read_headers
        ).status_code
        == 404
    )


def test_series_and_points(client, upload_headers, read_headers):
    runs = [
        run_body(started_at=(BASE_TIME + dt.timedelta(days=i)).isoformat(),
                 labels={"fs_version": f"6.{i}", "mode": "connected"},
                 results=[result("create.ops_per_s", [1000.0 + i, 1010.0 + i])])
        for i in range(8)
    ]  # fmt: skip
    upload(client, upload_headers, runs)
    page = client.get(
        "/api/v1/series", params={"workload": "smallfile"}, headers=read_headers
    ).json()
    (series,) = page["items"]
    assert series["metric"] == "create.ops_per_s" and series["points"] == 8
    assert series["labels"] == {"mode": "connected"}
    points = client.get(f"/api/v1/series/{series['id']}/points", headers=read_headers).json()
    assert points["run"] == [r["uuid"] for r in runs]
    assert points["value"] == [1005.0 + i for i in range(8)]
    assert points["min"][0] == 1000.0 and points["max"][0] == 1010.0
    assert "versions" not in points  # asked for by name only
    # Each run a new fs_version (a label the series key leaves out), one kernel: a span each.
    spanned = client.get(
        f"/api/v1/series/{series['id']}/points", params={"fields": "p5,versions", "limit": 5},
        headers=read_headers,
    ).json()  # fmt: skip
    assert set(spanned) == {"series", "older", "t", "value", "p5", "versions"}
    assert spanned["versions"] == [
        {"at": i, "labels": {"fs_version": f"6.{3 + i}", "kernel": "6.1.0-18-amd64"}}
        for i in range(5)
    ]
    newest = client.get(
        f"/api/v1/series/{series['id']}/points",
        params={"limit": 3, "samples": True},
        headers=read_headers,
    ).json()
    assert newest["run"] == [r["uuid"] for r in runs[-3:]]
    assert newest["samples"][-1] == [1007.0, 1017.0]
    # The whole series' count, whether the points read are all of it or not.
    assert newest["series"]["points"] == 8 and points["series"]["points"] == 8
    for limit in (7, 8, 9):
        some = client.get(
            f"/api/v1/series/{series['id']}/points", params={"limit": limit}, headers=read_headers
        ).json()
        assert some["series"]["points"] == 8 and len(some["value"]) == min(limit, 8)
        assert some["value"] == [1005.0 + i for i in range(8)][-limit:]
        assert some["older"] is (limit < 8)
    # The series' newest time is the whole series', whatever the points read.
    newest_at = BASE_TIME + dt.timedelta(days=7)
    since = (BASE_TIME + dt.timedelta(days=2)).isoformat()
    for params in ({}, {"limit": 3}, {"until": since}, {"since": since, "limit": 2}):
        some = client.get(
            f"/api/v1/series/{series['id']}/points", params=params, headers=read_headers
        ).json()
        assert some["series"]["points"] == 8, params
        assert dt.datetime.fromisoformat(some["series"]["last_at"]) == newest_at, params
    ranged = client.get(
        f"/api/v1/series/{series['id']}/points", params={"until": since}, headers=read_headers
    ).json()
    assert ranged["value"] == [1005.0, 1006.0] and ranged["older"] is False
    window = client.get(
        f"/api/v1/series/{series['id']}/points", params={"until": since, "limit": 1},
        headers=read_headers,
    ).json()  # fmt: skip
    assert window["value"] == [1006.0] and window["older"] is True
    assert client.get("/api/v1/series/999999/points", headers=read_headers).status_code == 404


def test_series_points_header_is_each_series_own(client, upload_headers, read_headers):
    # Series that differ in every field the header gives: two agents, two targets, parameters,
    # labels, metrics with their units and directions. Each series' points answer says what its
    # runs uploaded (the oracle: the bodies), and what the series listing says of it.
    runs = [
        run_body(
            agent=agent,
            target=target,
            parameters={"nfiles": nfiles, "threads": 1},
            labels={"mode": mode},
            environment={"hostname": agent},
            started_at=(BASE_TIME + dt.timedelta(hours=i)).isoformat(),
            results=[
                result("create.ops_per_s", [100.0 + i]),
                result("create.seconds", [1.0 + i], unit="s"),
            ],
        )
        for i, (agent, target, nfiles, mode) in enumerate(
            [
                ("host-a", "/mnt/ext4", 1000, "connected"),
                ("host-b", "/mnt/xfs", 1000, "connected"),
                ("host-a", "/mnt/ext4", 5000, "disconnected"),
                ("host-b", "/mnt/ext4", 5000, "disconnected"),
            ]
        )
    ]
    upload(client, upload_headers, runs)
    listed = client.get(
        "/api/v1/series", params={"workload": "smallfile", "limit": 500}, headers=read_headers
    ).json()["items"]
    assert len(listed) == 8
    expected = {
        (r["agent"], r["target"], r["parameters"]["nfiles"], r["labels"]["mode"], metric):
        (unit, direction, r["parameters"], r["labels"], r["started_at"])
        for r in runs
        for metric, unit, direction in (
            ("create.ops_per_s", "ops/s", "higher"), ("create.seconds", "s", "lower")
        )
    }  # fmt: skip
    seen = set()
    for item in listed:
        answer = client.get(
            f"/api/v1/series/{item['id']}/points", params={"limit": 1}, headers=read_headers
        )
        assert answer.status_code == 200, answer.text
        header = answer.json()["series"]
        # The list's item is the header and its open alerts and reference mark.
        assert {**header, "open_alerts": 0, "reference": False} == item
        key = (header["agent"], header["target"], header["parameters"]["nfiles"],
               header["labels"]["mode"], header["metric"])  # fmt: skip
        unit, direction, parameters, labels, started = expected[key]
        assert (header["unit"], header["direction"]) == (unit, direction)
        assert (header["parameters"], header["labels"]) == (parameters, labels)
        assert header["workload"] == "smallfile" and header["points"] == 1
        assert dt.datetime.fromisoformat(header["last_at"]) == dt.datetime.fromisoformat(started)
        seen.add(key)
    assert seen == set(expected)


def test_series_list_pages_and_totals(client, upload_headers, read_headers):
    # Series across three agents, two workloads and three metrics, in runs uploaded in a mixed
    # order: every filter's pages, walked by their cursors, hold each matching series once, in id
    # order, and every page says how many match in all (the oracle: the series the bodies make).
    runs = []
    for i, (agent, workload, target) in enumerate(
        (a, w, t)
        for a in ("host-a", "host-b", "host-c")
        for w in ("smallfile", "seqio")
        for t in ("/mnt/ext4", "/mnt/xfs", "/mnt/btrfs")
    ):
        metrics = ("create.ops_per_s", "create.seconds", "delete.ops_per_s")[: 1 + i % 3]
        runs.append(run_body(
            agent=agent, workload=workload, target=target,
            started_at=(BASE_TIME + dt.timedelta(minutes=(7 * i) % 18)).isoformat(),
            results=[result(m, [float(i + 1)]) for m in metrics],
        ))  # fmt: skip
    upload(client, upload_headers, runs)
    made = {
        (r["agent"], r["workload"], r["target"], res["metric"])
        for r in runs
        for res in r["results"]
    }
    for filters in ({}, {"workload": "seqio"}, {"metric": "create.seconds"},
                    {"agent": "host-b"}, {"agent": "host-c", "workload": "smallfile"},
                    {"agent": "nobody"}, {"workload": "seqio", "metric": "delete.ops_per_s"}):  # fmt: skip
        want = {
            key for key in made
            if filters.get("agent", key[0]) == key[0] and filters.get("workload", key[1]) == key[1]
            and filters.get("metric", key[3]) == key[3]
        }  # fmt: skip
        for limit in (1, 4, 500):
            seen: list[tuple[int, tuple[str, str, str, str]]] = []
            cursor = None
            while True:
                params = {**filters, "limit": limit} | ({"cursor": cursor} if cursor else {})
                page = client.get("/api/v1/series", params=params, headers=read_headers).json()
                assert page["total"] == len(want), (filters, limit, cursor)
                assert len(page["items"]) <= limit
                seen += [
                    (s["id"], (s["agent"], s["workload"], s["target"], s["metric"]))
                    for s in page["items"]
                ]
                cursor = page["next_cursor"]
                if cursor is None:
                    break
                assert cursor == page["items"][-1]["id"] and len(page["items"]) == limit
            assert [i for i, _ in seen] == sorted({i for i, _ in seen})  # id order, each once
            assert {key for _, key in seen} == want and len(seen) == len(want), (filters, limit)
    # Past the last series, an empty page still counts what matches.
    last = client.get("/api/v1/series", params={"limit": 500}, headers=read_headers).json()
    after = client.get(
        "/api/v1/series", params={"cursor": last["items"][-1]["id"]}, headers=read_headers
    ).json()
    assert after == {"items": [], "next_cursor": None, "total": len(made)}


def test_series_points_columns_nulls_ties_and_fields(client, upload_headers, read_headers):
    # Two runs at the same time, one without an environment: every column stays aligned with
    # its run, and a missing environment is null.
    times = [BASE_TIME + dt.timedelta(hours=h) for h in (0, 1, 1, 2)]
    runs = [
        run_body(started_at=t.isoformat(), results=[result("create.ops_per_s", [100.0 * (i + 1)])])
        for i, t in enumerate(times)
    ]
    runs[1]["environment"] = {}
    upload(client, upload_headers, runs)
    (series,) = client.get(
        "/api/v1/series", params={"workload": "smallfile"}, headers=read_headers
    ).json()["items"]
    url = f"/api/v1/series/{series['id']}/points"
    points = client.get(url, headers=read_headers).json()
    assert points["series"]["points"] == 4
    assert points["series"]["last_at"] == "2026-06-01T14:00:00Z"  # BASE_TIME + 2 h
    assert points["t"][0] == "2026-06-01T12:00:00+00:00"
    by_run = dict(
        zip(points["run"], zip(points["value"], points["environment_id"], strict=True), strict=True)
    )
    assert set(by_run) == {r["uuid"] for r in runs}
    assert by_run[runs[1]["uuid"]] == (200.0, None)
    assert by_run[runs[2]["uuid"]][0] == 300.0 and by_run[runs[2]["uuid"]][1] is not None
    assert points["value"][0] == 100.0 and points["value"][-1] == 400.0
    assert points["n"] == [1] * 4 and points["p95"] == points["value"]
    narrow = client.get(url, params={"fields": "run,p5,p95"}, headers=read_headers).json()
    assert set(narrow) == {"series", "older", "t", "value", "run", "p5", "p95"}
    assert narrow["run"] == points["run"] and narrow["p5"] == points["p5"]
    repeated = client.get(url, params={"fields": ["p5", "n"], "limit": 2}, headers=read_headers)
    assert set(repeated.json()) == {"series", "older", "t", "value", "p5", "n"}
    assert repeated.json()["value"] == [300.0, 400.0] or repeated.json()["value"] == [200.0, 400.0]
    bad = client.get(url, params={"fields": "p5,median"}, headers=read_headers)
    assert bad.status_code == 422 and "median" in bad.text
    empty = client.get(url, params={"since": "2030-01-01T00:00:00Z"}, headers=read_headers).json()
    assert empty["t"] == [] and empty["run"] == [] and empty["environment_id"] == []
    assert empty["series"]["points"] == 4


def test_catalog_lists_what_there_is_to_explore(client, upload_headers, read_headers):
    upload(client, upload_headers, atlasperf_runs())
    upload(client, upload_headers, [run_body(agent="host-b")])
    data = client.get("/api/v1/catalog", headers=read_headers).json()
    by_name = {w["name"]: w for w in data["workloads"]}
    assert set(by_name) == {"partialread", "smallfile"}
    partial = by_name["partialread"]
    assert partial["runs"] == 45
    assert partial["metrics"] == [{"name": "read.mb_per_s", "unit": "MB/s", "direction": "higher"}]
    assert partial["parameters"] == {"k": [1, 3, 10, 30, 60], "segsize": [131072]}
    assert partial["labels"] == {"version": ["1.7.1", "1.8.2", "trunk"]}
    assert {"time", "agent", "fs_type", "fsync_policy"} <= set(data["dimensions"])
    only = client.get(
        "/api/v1/catalog", params={"workload": "smallfile"}, headers=read_headers
    ).json()
    assert [w["name"] for w in only["workloads"]] == ["smallfile"]


def test_agents_with_last_seen(client, upload_headers, read_headers):
    """Last seen is the last upload (the server's clock), not the newest run's start; the
    version is the newest run's, whenever it is uploaded."""

    def agents() -> dict[str, dict]:
        return {a["name"]: a for a in client.get("/api/v1/agents", headers=read_headers).json()}

    def seen(name: str) -> dt.datetime:
        return dt.datetime.fromisoformat(agents()[name]["last_seen_at"].replace("Z", "+00:00"))

    old = run_body(agent="lab-old", started_at="2026-01-01T00:00:00+00:00")
    new = run_body(agent="lab-new", agent_version="0.2.0", started_at="2025-11-01T00:00:00+00:00")
    newer = run_body(agent="lab-new", agent_version="0.2.0", started_at="2025-11-02T00:00:00+00:00")
    before = dt.datetime.now(dt.UTC)
    upload(client, upload_headers, [old, new, newer])
    after = dt.datetime.now(dt.UTC)
    listed = client.get("/api/v1/agents", headers=read_headers).json()
    assert {a["name"] for a in listed} == {"lab-new", "lab-old"}
    assert agents()["lab-new"]["runs"] == 2 and agents()["lab-new"]["version"] == "0.2.0"
    first = seen("lab-new")
    assert before <= first <= after, "the upload's time, not a run's (which are a year older)"
    assert before <= seen("lab-old") <= after
    # An older run (an older agent) uploaded later: seen again, the version stays the newest run's.
    late = run_body(agent="lab-new", agent_version="0.1.0", started_at="2025-01-01T00:00:00+00:00")
    before = dt.datetime.now(dt.UTC)
    upload(client, upload_headers, [late])
    again = agents()["lab-new"]
    assert again["runs"] == 3 and again["version"] == "0.2.0"
    assert seen("lab-new") >= before >= first
    upload(
        client, upload_headers,
        [run_body(agent="lab-new", agent_version="0.3.0", started_at="2025-12-01T00:00:00+00:00")],
    )  # fmt: skip
    assert agents()["lab-new"]["version"] == "0.3.0"
    assert seen("lab-old") <= seen("lab-new"), "lab-old has not uploaded since"


def test_each_metric_of_a_run_lands_in_its_own_series(client, upload_headers, read_headers):
    runs = [
        run_body(started_at=(BASE_TIME + dt.timedelta(days=i)).isoformat(),
                 results=[result("create.ops_per_s", [100.0 + i]), result("delete.ops_per_s", [200.0 + i]),
                          result("create.seconds", [1.0 + i], unit="s")])
        for i in range(3)
    ]  # fmt: skip
    upload(client, upload_headers, runs)
    series = client.get(
        "/api/v1/series", params={"workload": "smallfile"}, headers=read_headers
    ).json()
    by_metric = {s["metric"]: s for s in series["items"]}
    assert set(by_metric) == {"create.ops_per_s", "delete.ops_per_s", "create.seconds"}
    expected = {"create.ops_per_s": 100.0, "delete.ops_per_s": 200.0, "create.seconds": 1.0}
    for metric, base in expected.items():
        assert by_metric[metric]["points"] == 3
        points = client.get(
            f"/api/v1/series/{by_metric[metric]['id']}/points", headers=read_headers
        )
        assert points.json()["value"] == [base + i for i in range(3)], metric
