"""Uploading runs: idempotent retries, conflicts, validation, size limits, all-or-nothing."""

from __future__ import annotations

import copy
import math
import random
import uuid

import orjson
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select

from perfatlas.core.stats import Summary, summarize
from perfatlas.runs.copy_writer import CHUNK
from perfatlas.runs.models import Environment, Result, Run, Series
from tests.factories import result, run_body


def count(engine: Engine, model: type) -> int:
    with engine.connect() as conn:
        return int(conn.scalar(select(func.count()).select_from(model)) or 0)


def test_upload_then_list_and_read_back(client: TestClient, upload_headers, read_headers, engine):
    body = run_body()
    created = client.post("/api/v1/runs", json=body, headers=upload_headers)
    assert created.status_code == 201, created.text
    stored = created.json()
    assert stored["uuid"] == body["uuid"]
    by_metric = {r["metric"]: r for r in stored["results"]}
    create = by_metric["create.ops_per_s"]
    assert create["value"] == 1050.0  # the median of the samples
    assert (create["min"], create["max"], create["n"]) == (1000.0, 1100.0, 3)
    assert create["direction"] == "higher"
    assert by_metric["create.seconds"]["direction"] == "lower"
    assert stored["environment"]["data"]["kernel"] == "6.1.0-18-amd64"
    assert stored["fsync_policy"] == "none" and stored["cold_method"] == "drop_caches"

    listed = client.get("/api/v1/runs", headers=read_headers).json()
    assert [item["uuid"] for item in listed["items"]] == [body["uuid"]]
    detail = client.get(f"/api/v1/runs/{body['uuid']}", headers=read_headers).json()
    assert detail["results"] == stored["results"]


def test_retry_with_same_body_creates_nothing_new(client, upload_headers, engine):
    body = run_body()
    first = client.post("/api/v1/runs", json=body, headers=upload_headers)
    again = client.post("/api/v1/runs", json=body, headers=upload_headers)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert count(engine, Run) == 1
    assert count(engine, Result) == 3

    batch = client.post("/api/v1/runs/batch", json={"runs": [body]}, headers=upload_headers)
    assert batch.status_code == 200
    assert batch.json() == {
        "created": 0,
        "existing": 1,
        "runs": [{"uuid": body["uuid"], "created": False}],
    }
    assert count(engine, Run) == 1


def test_same_uuid_different_body_is_409_and_keeps_the_stored_run(
    client, upload_headers, read_headers, engine
):
    body = run_body()
    assert client.post("/api/v1/runs", json=body, headers=upload_headers).status_code == 201
    changed = copy.deepcopy(body)
    changed["results"][0]["samples"] = [1.0, 2.0, 3.0]
    conflict = client.post("/api/v1/runs", json=changed, headers=upload_headers)
    assert conflict.status_code == 409
    assert body["uuid"] in conflict.json()["detail"]
    stored = client.get(f"/api/v1/runs/{body['uuid']}", headers=read_headers).json()
    assert {r["metric"]: r["value"] for r in stored["results"]}["create.ops_per_s"] == 1050.0

    # In a batch, one conflicting run refuses the whole batch: the new run is not written.
    fresh = run_body()
    batch = client.post(
        "/api/v1/runs/batch", json={"runs": [fresh, changed]}, headers=upload_headers
    )
    assert batch.status_code == 409
    assert batch.json()["uuids"] == [body["uuid"]]
    assert count(engine, Run) == 1


def test_batch_stores_all_runs_and_derives_series(client, upload_headers, engine):
    runs = [run_body(started_at=f"2026-11-0{d}T10:00:00+00:00") for d in range(1, 6)]
    runs.append(run_body(parameters={"nfiles": 1000, "size": "30B", "fsync": True, "threads": 1}))
    response = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert response.status_code == 200, response.text
    assert response.json()["created"] == 6
    assert count(engine, Run) == 6
    assert count(engine, Result) == 18
    # Five runs share every dimension but time: one series per metric for them, and one per
    # metric for the run with fsync on.
    assert count(engine, Series) == 6
    # The environment was the same for all six: stored once.
    assert count(engine, Environment) == 1


def test_version_labels_do_not_split_a_series(client, upload_headers, engine):
    old = run_body(labels={"fs_version": "6.1", "mode": "connected"})
    new = run_body(labels={"fs_version": "6.2", "mode": "connected"})
    other_mode = run_body(labels={"fs_version": "6.2", "mode": "disconnected"})
    client.post("/api/v1/runs/batch", json={"runs": [old, new, other_mode]}, headers=upload_headers)
    assert count(engine, Series) == 6  # 3 metrics x 2 modes; fs_version is a point's property


def test_validation_errors_name_the_field_and_write_nothing(client, upload_headers, engine):
    good = run_body()
    bad = run_body()
    bad["results"][1]["unit"] = "furlongs"
    response = client.post("/api/v1/runs/batch", json={"runs": [good, bad]}, headers=upload_headers)
    assert response.status_code == 422
    error = response.json()
    assert error["errors"][0]["field"] == "body.runs[1].results[1].unit"
    assert "unknown unit 'furlongs'" in error["detail"]
    assert count(engine, Run) == 0


def test_non_finite_numbers_are_refused(client, upload_headers, engine):
    for bad_value in ("NaN", "Infinity", "-Infinity"):
        body = run_body()
        raw = orjson.dumps(body).decode().replace("1100.0", bad_value)
        response = client.post(
            "/api/v1/runs",
            content=raw,
            headers={**upload_headers, "Content-Type": "application/json"},
        )
        assert response.status_code == 422, bad_value
        assert response.json()["errors"][0]["field"] == "body.results[0].samples[1]"
        assert "finite" in response.json()["detail"]
    assert count(engine, Run) == 0


def test_other_rules_name_their_fields(client, upload_headers):
    cases = [
        ({"workload": "has space"}, "body.workload"),
        ({"uuid": "not-a-uuid"}, "body.uuid"),
        ({"finished_at": "2020-01-01T00:00:00Z"}, "body"),
        ({"results": [result("x.y", [])]}, "body.results[0]"),
        # The second result: the run checks its results together, and names the one at fault.
        (
            {"results": [result("a.ms", [1.0], unit="ms"), result("x.count", [1.0], unit="count")]},
            "body.results[1].direction",
        ),
        ({"results": [result("a.ms", [1.0], unit="ms"), result("x.y", [])]}, "body.results[1]"),
        ({"surprise": 1}, "body.surprise"),
    ]
    for override, field in cases:
        response = client.post("/api/v1/runs", json=run_body(**override), headers=upload_headers)
        assert response.status_code == 422, override
        assert response.json()["errors"][0]["field"] == field, response.json()


def test_duplicate_uuid_in_one_batch_with_different_bodies(client, upload_headers, engine):
    body = run_body()
    other = copy.deepcopy(body)
    other["target"] = "/mnt/xfs"
    response = client.post(
        "/api/v1/runs/batch", json={"runs": [body, other]}, headers=upload_headers
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "runs[1].uuid"
    assert count(engine, Run) == 0


def test_body_over_the_limit_is_413(client, upload_headers, settings, engine):
    runs = []
    size = 0
    while size <= settings.max_body_bytes:
        body = run_body(
            results=[result(f"m{i}.ops_per_s", [float(j) for j in range(200)]) for i in range(20)]
        )
        runs.append(body)
        size += len(orjson.dumps(body))
    payload = orjson.dumps({"runs": runs})
    response = client.post(
        "/api/v1/runs/batch", content=payload,
        headers={**upload_headers, "Content-Type": "application/json"},
    )  # fmt: skip
    assert response.status_code == 413
    assert "PERFATLAS_MAX_BODY_BYTES" in response.json()["detail"]

    def chunks():  # no Content-Length: the limit must hold for a streamed body too
        for start in range(0, len(payload), 65536):
            yield payload[start : start + 65536]

    streamed = client.post(
        "/api/v1/runs/batch", content=chunks(),
        headers={**upload_headers, "Content-Type": "application/json"},
    )  # fmt: skip
    assert streamed.status_code == 413
    assert count(engine, Run) == 0


def test_batch_over_1000_runs_is_refused(client, upload_headers):
    run = run_body(results=[])
    runs = [{**run, "uuid": str(uuid.uuid4())} for _ in range(1001)]
    response = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "body.runs"


def test_value_without_samples_is_one_sample(client, upload_headers):
    body = run_body(results=[{"metric": "write.mb_per_s", "unit": "MB/s", "value": 512.5}])
    stored = client.post("/api/v1/runs", json=body, headers=upload_headers).json()
    (res,) = stored["results"]
    assert res["samples"] == [512.5] and res["n"] == 1 and res["stdev"] == 0.0
    assert math.isclose(res["p95"], 512.5)


def test_ingest_inside_an_outer_transaction_that_rolls_back_leaves_nothing(engine):
    from sqlalchemy.orm import Session

    from perfatlas.agents.models import Agent
    from perfatlas.core.measurement import RunCreate
    from perfatlas.runs import service

    runs = [RunCreate.model_validate(run_body(agent=f"host-{i}")) for i in range(3)]
    with engine.connect() as conn:
        outer = conn.begin()
        with Session(bind=conn, join_transaction_mode="create_savepoint") as session:
            stored = service.ingest(session, runs=runs, ignore_labels=[])
            assert [s.created for s in stored] == [True, True, True]
            # The caller's transaction sees what ingest wrote...
            assert session.scalar(select(func.count()).select_from(Run)) == 3
        outer.rollback()
    # ...and nothing is left once the caller rolls back: ingest committed nothing itself.
    for model in (Run, Result, Series, Environment, Agent):
        assert count(engine, model) == 0, model


def test_a_body_without_the_newer_fields_hashes_as_before_they_existed():
    """A run stored before flush_to_device and memory_backed existed is retried by its agent
    with the same body: it must hash as it did then (the value below is what the server at
    commit cdb8caa computed for this body), or the retry would be refused as a conflict."""
    from perfatlas.core.measurement import RunCreate
    from perfatlas.runs.service import body_hash

    body = {
        "uuid": "00000000-0000-4000-8000-000000000001", "workload": "smallfile",
        "agent": "host-a", "agent_version": "0.1.0", "target": "/mnt/ext4",
        "parameters": {"nfiles": 1000, "fsync": False}, "labels": {"fs_version": "6.1"},
        "started_at": "2026-10-01T12:00:00+00:00", "finished_at": "2026-10-01T12:00:30+00:00",
        "status": "ok", "fsync_policy": "none", "o_direct": False, "sync_mount": False,
        "write_cache": "enabled", "cold_method": "drop_caches",
        "environment": {"kernel": "6.1.0-18-amd64", "fs_type": "ext4", "cores": 2},
        "meta": {"repetitions": 3},
        "results": [
            {"metric": "create.ops_per_s", "unit": "ops/s", "samples": [1000.0, 1100.0, 1050.0]}
        ],
    }  # fmt: skip
    stored_before = "64f98d7f0dc08c8b135b8deef7de478efd66164c3777c0ff45674c57bac727cd"
    assert body_hash(RunCreate.model_validate(body)) == stored_before
    # Once given, the new fields are part of the body like any other.
    with_fact = RunCreate.model_validate({**body, "memory_backed": False})
    assert body_hash(with_fact) != stored_before


def test_series_keys_hashed_from_a_runs_parts_are_the_hashes_of_the_whole_keys():
    """Ingest hashes a result's series key from its run's part of the canonical text with the
    metric and unit put in place: the hash must be the one of the whole key as content_hash
    makes it (the stored series' key_hash), whatever the key holds: escapes, non-ASCII text,
    nested and empty parameters, numbers of every kind, ignored and version labels."""
    from perfatlas.core.canonical import content_hash
    from perfatlas.core.measurement import RunCreate
    from perfatlas.runs.keys import series_digest, series_key, series_parts

    rng = random.Random(11)
    texts = ['a"b', "back\\slash", "tab\there", "ünï ✓", "", "x" * 200, '"unit":""', "\u2028"]
    names = ["k", "nfiles", "z.y-x_1", "_", "metric", "unit", "workload"]
    checked = 0
    for i in range(300):
        parameters = {
            rng.choice(names): rng.choice(
                [rng.random() * 10 ** rng.randint(-5, 12), rng.randint(-(2**31), 2**31),
                 True, False, 0.0, -1e-300, rng.choice(texts)]
            )
            for _ in range(rng.randint(0, 4))
        }  # fmt: skip
        labels = {f"l{j}": rng.choice(texts)[:64] for j in range(rng.randint(0, 3))}
        labels |= {"fs_version": "6.1", "host": "h"} if i % 2 else {}
        body = run_body(
            workload=rng.choice(["smallfile", "seqio"]),
            agent=rng.choice(["host-a", "hôte-b"]),
            target=rng.choice(["/mnt/x", 'C:\\"t"']),
            parameters=parameters,
            labels=labels,
            results=[result(metric=m, unit=u, samples=[1.0, 2.0, 3.0]) for m, u in
                     [("create.ops_per_s", "ops/s"), ("read.MBps", "MB/s"), ("t", "s")]],
        )  # fmt: skip
        run = RunCreate.model_validate(body)
        ignored = ["host"] if i % 3 else []
        parts = series_parts(series_key(run, metric="", unit="", ignore_labels=ignored))
        for r in run.results:
            whole = series_key(run, metric=r.metric, unit=r.unit, ignore_labels=ignored)
            assert series_digest(parts, r.metric, r.unit) == content_hash(whole), (body, r)
            checked += 1
    assert checked == 900


def test_a_batch_of_more_results_than_one_copy_chunk_stores_each_as_sent(
    client, upload_headers, engine
):
    """A batch's results go to PostgreSQL a chunk at a time (runs/copy_writer.CHUNK): across
    the chunks' seams every stored result is its own run's, with its own samples, value and
    summary (the oracle: stats.summarize, one result at a time), and none is lost or doubled."""
    rng = random.Random(11)
    runs = []
    for i in range(CHUNK // 3 + 40):  # 3 results a run: past one chunk, not a multiple of it
        results = [
            result(f"m{j}.ops_per_s", [rng.uniform(1e-6, 1e9) for _ in range(rng.randint(1, 7))])
            for j in range(3)
        ]
        if i % 17 == 0:
            results[1] = {"metric": "m1.ops_per_s", "unit": "ops/s", "value": rng.uniform(0, 1)}
        runs.append(run_body(started_at=f"2026-11-01T{i // 60 % 24:02d}:{i % 60:02d}:00+00:00",
                             results=results))  # fmt: skip
    response = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert response.status_code == 200, response.text
    assert 3 * len(runs) > CHUNK
    with engine.connect() as conn:
        stored = {
            (row.uuid, row.metric): row
            for row in conn.execute(
                select(Run.uuid, Result.metric, Result.value, Result.samples,
                       *(getattr(Result, f) for f in Summary._fields))
                .join(Result.run)
            )
        }  # fmt: skip
    assert len(stored) == 3 * len(runs)
    for run in runs:
        for sent in run["results"]:
            row = stored[(uuid.UUID(run["uuid"]), sent["metric"])]
            samples = sent.get("samples") or [sent["value"]]
            expected = summarize(samples)
            assert row.samples == samples
            assert row.value == sent.get("value", expected.p50)
            assert tuple(getattr(row, f) for f in Summary._fields) == tuple(expected)
