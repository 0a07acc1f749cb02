"""Runs side by side on PostgreSQL: each change judged on the samples (checked against a plain
computation), trust flags with the numbers, durability warnings, metric choice and phase order."""

from __future__ import annotations

import csv
import io
import random
import statistics

import pytest
from sqlalchemy import Engine

from perfatlas.alerts import service as alerts_service
from perfatlas.core.config import Settings
from perfatlas.core.db import session_factory
from tests.factories import at, noisy, result, run_body

PHASES = ["create", "read_cold", "read_warm", "stat", "delete"]


def upload(client, headers, runs):
    response = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=headers)
    assert response.status_code == 200, response.text
    return runs


def compare(client, headers, *runs, **params):
    response = client.get(
        "/api/v1/compare", params={"runs": ",".join(r["uuid"] for r in runs), **params},
        headers=headers,
    )  # fmt: skip
    assert response.status_code == 200, response.text
    return response.json()


def change_pct(a, b):
    return (statistics.median(b) - statistics.median(a)) / abs(statistics.median(a)) * 100


def test_compare_shows_differences_and_warns_on_durability(client, upload_headers, read_headers):
    safe = run_body(fsync_policy="file", labels={"mode": "safe"},
                    results=[result("extract.files_per_s", [100.0, 110.0, 105.0], unit="files/s"),
                             result("extract.seconds", [10.0, 9.0, 9.5], unit="s")])  # fmt: skip
    unsafe = run_body(fsync_policy="none", write_cache="disabled", labels={"mode": "unsafe"},
                      environment={"hostname": "host-a", "kernel": "6.2.0"},
                      results=[result("extract.files_per_s", [420.0], unit="files/s"),
                               result("extract.seconds", [2.5], unit="s")])  # fmt: skip
    upload(client, upload_headers, [safe, unsafe])
    response = client.get(
        "/api/v1/compare", params={"runs": f"{safe['uuid']},{unsafe['uuid']}"}, headers=read_headers
    )
    assert response.status_code == 200, response.text
    data = response.json()
    assert [r["uuid"] for r in data["runs"]] == [safe["uuid"], unsafe["uuid"]]
    rows = {m["metric"]: m for m in data["metrics"]}
    files = rows["extract.files_per_s"]
    assert files["values"] == [105.0, 420.0]
    assert files["diff_pct"][1] == pytest.approx(300.0) and files["better"] == [None, True]
    seconds = rows["extract.seconds"]
    assert seconds["diff_pct"][1] == pytest.approx((2.5 - 9.5) / 9.5 * 100)
    assert seconds["better"][1] is True  # less time is better
    assert data["durability_differs"] is True
    assert "fsync_policy (file vs none)" in data["warning"]
    assert {d["key"] for d in data["durability"]} == {"fsync_policy", "write_cache"}
    assert {d["key"] for d in data["labels"]} == {"mode"}
    assert "kernel" in {d["key"] for d in data["environment"]}

    same = run_body(fsync_policy="file", labels={"mode": "safe"})
    upload(client, upload_headers, [same])
    calm = client.get(
        "/api/v1/compare", params={"runs": [safe["uuid"], same["uuid"]]}, headers=read_headers
    )
    assert calm.json()["durability_differs"] is False and calm.json()["warning"] is None

    exported = client.get(
        "/api/v1/compare.csv", params={"runs": [safe["uuid"], unsafe["uuid"]]}, headers=read_headers
    )
    lines = list(csv.reader(io.StringIO(exported.text)))
    assert lines[0][:3] == ["metric", "unit", "direction"]
    assert lines[-1][0] == "warning"


def test_compare_errors(client, upload_headers, read_headers):
    body = run_body()
    upload(client, upload_headers, [body])
    one = client.get("/api/v1/compare", params={"runs": body["uuid"]}, headers=read_headers)
    assert one.status_code == 422 and one.json()["errors"][0]["field"] == "runs"
    missing = client.get(
        "/api/v1/compare", params={"runs": [body["uuid"], "00000000-0000-0000-0000-000000000000"]},
        headers=read_headers,
    )  # fmt: skip
    assert missing.status_code == 404
    garbage = client.get(
        "/api/v1/compare", params={"runs": [body["uuid"], "zzz"]}, headers=read_headers
    )
    assert garbage.status_code == 422


def test_noise_is_within_noise_a_step_is_worse_and_one_sample_cannot_be_tested(
    client, upload_headers, read_headers
):
    rng = random.Random(11)
    ext4 = [400.0, 643.0, 656.0]  # the pair: xfs was shown red next to this
    xfs = [484.0, 549.0, 706.0]
    step = [v * 0.8 * (1 + rng.uniform(-0.01, 0.01)) for v in [650.0, 640.0, 645.0]]
    base = run_body(target="/mnt/ext4", results=[
        result("read.mb_per_s", ext4, unit="MB/s"),
        result("write.mb_per_s", [650.0, 640.0, 645.0], unit="MB/s"),
        result("stat.seconds", [2.0, 2.1, 1.9], unit="s")])  # fmt: skip
    other = run_body(target="/mnt/xfs", results=[
        result("read.mb_per_s", xfs, unit="MB/s"),
        result("write.mb_per_s", step, unit="MB/s"),
        result("stat.seconds", [1.0], unit="s")])  # fmt: skip
    upload(client, upload_headers, [base, other])
    data = compare(client, read_headers, base, other)
    rows = {m["metric"]: m for m in data["metrics"]}
    assert data["min_effect_pct"] == 5 and data["confidence"] == 0.95

    read = rows["read.mb_per_s"]
    assert read["changes"][0] is None
    noise = read["changes"][1]
    assert noise["verdict"] == "noise"
    assert noise["change_pct"] == pytest.approx(change_pct(ext4, xfs))
    assert noise["ci_low_pct"] < 0 < noise["ci_high_pct"]
    assert (noise["n_base"], noise["n"]) == (3, 3) and read["n"] == [3, 3]
    assert read["better"] == [None, False]  # the direction, whatever the noise says

    worse = rows["write.mb_per_s"]["changes"][1]
    assert worse["verdict"] == "worse"
    assert worse["change_pct"] == pytest.approx(change_pct([650.0, 640.0, 645.0], step))
    assert worse["ci_low_pct"] <= -20 <= worse["ci_high_pct"] < 0

    few = rows["stat.seconds"]
    assert few["changes"][1]["verdict"] == "few"
    assert few["changes"][1]["ci_low_pct"] is None
    assert few["flags"] == [[], ["few_repetitions"]]
    assert "few_repetitions" in data["reasons"] and "verdict.noise" in data["reasons"]

    # A minimum effect of 30 % makes the 20 % step within noise.
    loose = compare(client, read_headers, base, other, min_effect=30)
    assert {m["metric"]: m for m in loose["metrics"]}["write.mb_per_s"]["changes"][1][
        "verdict"
    ] == "noise"
    bad = client.get("/api/v1/compare", params={"runs": f"{base['uuid']},{other['uuid']}",
                     "min_effect": -1}, headers=read_headers)  # fmt: skip
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "query.min_effect"

    exported = client.get("/api/v1/compare.csv", params={"runs": [base["uuid"], other["uuid"]]},
                          headers=read_headers)  # fmt: skip
    table = list(csv.DictReader(io.StringIO(exported.text)))
    write = next(r for r in table if r["metric"] == "write.mb_per_s")
    assert write[f"verdict {other['uuid']}"] == "worse"
    assert float(write[f"ci_low_pct {other['uuid']}"]) == pytest.approx(worse["ci_low_pct"])
    assert write[f"n {other['uuid']}"] == "3"
    stat = next(r for r in table if r["metric"] == "stat.seconds")
    assert stat[f"flags {other['uuid']}"] == "few_repetitions"


def test_tmpfs_against_ext4_with_fsync_per_file_warns(client, upload_headers, read_headers):
    env = run_body()["environment"]
    ext4 = run_body(target="/mnt/ext4", fsync_policy="file", memory_backed=False,
                    flush_to_device=True, write_cache="write through")  # fmt: skip
    tmpfs = run_body(target="/mnt/tmpfs", fsync_policy="file", write_cache=None,
                     environment={**env, "fs_type": "tmpfs", "device": "tmpfs"})  # fmt: skip
    upload(client, upload_headers, [ext4, tmpfs])
    data = compare(client, read_headers, ext4, tmpfs)
    assert data["durability_differs"] is True
    keys = {d["key"]: d["values"] for d in data["durability"]}
    assert keys["memory_backed"] == [False, True]
    assert keys["flush_to_device"] == [True, False]
    assert "fsync_policy" not in keys  # both fsync every file: that is the trap
    assert "memory_backed (false vs true)" in data["warning"]
    assert "tmpfs" in data["warning"]
    back = run_body(target="/mnt/ext4b", fsync_policy="file", write_cache="write back",
                    memory_backed=False, flush_to_device=True)  # fmt: skip
    upload(client, upload_headers, [back])
    cache = compare(client, read_headers, ext4, back)
    assert [d["key"] for d in cache["durability"]] == ["write_cache"]
    assert "write-back" in cache["warning"]


def phase_results(rng, scale=1.0):
    """Results in the order a smallfile run uploads them (phase order, not the alphabet)."""
    out = []
    for i, phase in enumerate(PHASES):
        level = (i + 1) * 100 * scale
        out.append(
            result(f"{phase}.ops_per_s", [level * rng.uniform(0.99, 1.01) for _ in range(3)])
        )
        out.append(
            result(
                f"{phase}.seconds",
                [1000 / level * rng.uniform(0.99, 1.01) for _ in range(3)],
                unit="s",
            )
        )
    return out


def test_metrics_by_list_and_glob_in_phase_order(client, upload_headers, read_headers):
    rng = random.Random(5)
    a = run_body(results=phase_results(rng))
    b = run_body(results=phase_results(rng, 0.7))
    upload(client, upload_headers, [a, b])
    every = compare(client, read_headers, a, b)
    assert [m["metric"] for m in every["metrics"]] == [
        f"{p}.{k}" for p in PHASES for k in ("ops_per_s", "seconds")
    ]
    seconds = compare(client, read_headers, a, b, metric="*.seconds")
    assert [m["metric"] for m in seconds["metrics"]] == [f"{p}.seconds" for p in PHASES]
    listed = client.get("/api/v1/compare", params={"runs": [a["uuid"], b["uuid"]],
        "metric": ["stat.ops_per_s,create.seconds", "delete.*"]}, headers=read_headers).json()  # fmt: skip
    assert [m["metric"] for m in listed["metrics"]] == [
        "create.seconds",
        "stat.ops_per_s",
        "delete.ops_per_s",
        "delete.seconds",
    ]
    for m in listed["metrics"]:
        expected = "worse"  # 30 % fewer ops per second, 43 % more seconds: worse both ways
        assert m["changes"][1]["verdict"] == expected, m
    typo = client.get("/api/v1/compare", params={"runs": [a["uuid"], b["uuid"]],
                      "metric": "*.secnds"}, headers=read_headers)  # fmt: skip
    assert typo.status_code == 422 and typo.json()["errors"][0]["field"] == "metric"
    assert "*.secnds" in typo.json()["detail"]


def test_a_tentative_alert_travels_with_the_compare_cell(
    client, upload_headers, read_headers, engine: Engine, settings: Settings
):
    rng = random.Random(2)
    bodies = []
    for day, level in enumerate([1000.0] * 20 + [700.0] * 5):
        bodies.append(run_body(
            started_at=at(days=day),
            labels={"mode": "connected", "fs_version": "6.1" if day < 20 else "6.2"},
            results=[result("create.ops_per_s", noisy(rng, level)),
                     result("read_cold.ops_per_s", noisy(rng, 500))],
        ))  # fmt: skip
    upload(client, upload_headers, bodies)
    with session_factory(engine)() as session:
        report = alerts_service.check_runs(session, [b["uuid"] for b in bodies], settings=settings)
    assert report.opened == 1
    data = compare(client, read_headers, bodies[19], bodies[24])
    rows = {m["metric"]: m for m in data["metrics"]}
    assert rows["create.ops_per_s"]["flags"] == [["tentative_alert"], ["tentative_alert"]]
    assert rows["create.ops_per_s"]["changes"][1]["verdict"] == "worse"
    assert rows["read_cold.ops_per_s"]["flags"] == [[], []]
    assert "tentative_alert" in data["reasons"]
    groups = client.get("/api/v1/compare/groups", params={"workload": "smallfile",
        "by": "fs_version", "value": ["6.1", "6.2"]}, headers=read_headers).json()  # fmt: skip
    rows = {m["metric"]: m for m in groups["metrics"]}
    assert [c["flags"] for c in rows["create.ops_per_s"]["cells"]] == [["tentative_alert"]] * 2
    assert rows["create.ops_per_s"]["cells"][1]["verdict"] == "worse"
    assert [c["flags"] for c in rows["read_cold.ops_per_s"]["cells"]] == [[], []]
