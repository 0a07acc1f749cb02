"""The cases issue 9 reported, one test each (they failed before the fix: see the commit)."""

from __future__ import annotations

import datetime as dt
import statistics

from tests.factories import BASE_TIME, result, run_body


def _two_agents_two_filesystems() -> list[dict]:
    """Two agents, each on ext4 and xfs, ten runs per target: every target its own level."""
    runs = []
    for a, agent in enumerate(("lab-1", "lab-2")):
        for f, fs in enumerate(("ext4", "xfs")):
            for i in range(10):
                level = 100.0 * (1 + a) + 1000.0 * f + i
                runs.append(
                    run_body(
                        agent=agent, target=f"/mnt/{fs}-{agent}",
                        environment={"hostname": agent, "fs_type": fs, "kernel": f"6.{a + f}.0-amd64",
                                     "device": f"/dev/sd{'ab'[f]}", "mount_options": fs},
                        started_at=(BASE_TIME + dt.timedelta(minutes=len(runs))).isoformat(),
                        results=[result("create.ops_per_s", [level, level + 1, level + 2])],
                    )
                )  # fmt: skip
    return runs


def _explore(client, headers, **params):
    query = {"workload": "smallfile", "metric": "create.ops_per_s", **params}
    return client.get("/api/v1/explore", params=query, headers=headers)


def test_time_grouped_by_target_draws_each_targets_own_runs(client, upload_headers, read_headers):
    runs = _two_agents_two_filesystems()
    assert client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers).is_success
    data = _explore(client, read_headers, x="time", group="target").json()
    assert len(data["traces"]) == 4
    for trace in data["traces"]:
        mine = sorted(r["results"][0]["samples"][1] for r in runs if r["target"] == trace["group"])
        assert sorted(p["median"] for p in trace["points"]) == mine  # 10 points, its own values


def test_builtin_dimensions_from_other_tables_do_not_mix(client, upload_headers, read_headers):
    runs = _two_agents_two_filesystems()
    assert client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers).is_success
    for x, key in (("fs_type", "fs_type"), ("kernel", "kernel"), ("device", "device"),
                   ("mount_options", "mount_options")):  # fmt: skip
        data = _explore(client, read_headers, x=x).json()
        (trace,) = data["traces"]
        for p in trace["points"]:
            mine = [r["results"][0]["samples"][1] for r in runs if r["environment"][key] == p["x"]]
            assert (p["n"], p["median"]) == (len(mine), statistics.median(mine)), (x, p["x"])
    data = _explore(client, read_headers, x="fs_type", group="agent").json()
    for trace in data["traces"]:
        for p in trace["points"]:
            mine = [r["results"][0]["samples"][1] for r in runs
                    if r["agent"] == trace["group"] and r["environment"]["fs_type"] == p["x"]]  # fmt: skip
            assert (p["n"], p["median"]) == (10, statistics.median(mine))


def test_one_run_of_five_repetitions_has_a_spread(client, upload_headers, read_headers):
    run = run_body(results=[result("create.ops_per_s", [90.0, 100.0, 95.0, 120.0, 80.0])])
    assert client.post("/api/v1/runs", json=run, headers=upload_headers).status_code == 201
    for x in ("fs_type", "time"):
        (point,) = _explore(client, read_headers, x=x).json()["traces"][0]["points"]
        assert (point["n"], point["repetitions"], point["median"]) == (1, 5, 95.0)
        assert (point["min"], point["max"]) == (80.0, 120.0)
        assert point["p5"] == 80.0 + 0.2 * 10.0 and point["p95"] == 100.0 + 0.8 * 20.0


def test_what_explore_cannot_answer_is_a_422_naming_the_field(client, upload_headers, read_headers):
    assert client.post("/api/v1/runs", json=run_body(), headers=upload_headers).status_code == 201
    cases = [
        ({"metric": "create.ops_per_s,create.seconds"}, "metric"),
        ({"metric": ["create.ops_per_s", "create.seconds"]}, "metric"),
        ({"group": "no_such_thing"}, "group"),
        ({"x": "no_such_thing"}, "x"),
        ({"filter": "no_such_thing:1"}, "filter"),
        ({"x": "param.mode"}, "x"),  # mode is a label, not a parameter
        ({"group": "label.nfiles"}, "group"),  # nfiles is a parameter, not a label
        ({"x": "env.no_such_key"}, "x"),
        ({"group": "time"}, "group"),
        ({"filter": "time:yesterday..today"}, "filter"),
    ]
    for params, field in cases:
        response = _explore(client, read_headers, **params)
        assert response.status_code == 422, (params, response.text)
        assert response.json()["errors"][0]["field"] == field, params
        csv = client.get(
            "/api/v1/explore.csv",
            params={"workload": "smallfile", "metric": "create.ops_per_s", **params},
            headers=read_headers,
        )
        assert csv.status_code == 422, params
    for params in ({"x": "nfiles"}, {"x": "param.nfiles", "group": "mode"},
                   {"x": "env.kernel", "group": "label.mode"}):  # fmt: skip
        assert _explore(client, read_headers, **params).status_code == 200, params


def test_an_empty_answer_says_why(client, upload_headers, read_headers):
    assert client.post("/api/v1/runs", json=run_body(), headers=upload_headers).status_code == 201
    data = _explore(client, read_headers, metric="no.such_metric").json()
    assert data["traces"] == [] and "no results of metric" in data["note"]
    data = _explore(client, read_headers, workload="nosuch").json()
    assert data["traces"] == [] and "no runs of workload" in data["note"]
    data = _explore(client, read_headers, x="fs_type", filter="fs_type:zfs").json()
    assert data["traces"] == [] and data["note"] == "no results match the filters"
    data = _explore(client, read_headers, x="fs_type").json()
    assert data["note"] is None
    assert set(data["flag_reasons"]) == {"short_phase", "busy", "few_repetitions",
                                         "reference", "tentative_alert"}  # fmt: skip
