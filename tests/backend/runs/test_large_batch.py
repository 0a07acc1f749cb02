"""Large /runs/batch bodies, stored from their bytes a chunk of runs at a time
(runs/large_batch.py): the same answers, errors and all-or-nothing as a batch validated whole."""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select

from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine
from perfatlas.core.errors import _validation_errors, body_invalid
from perfatlas.core.measurement import RunBatchCreate
from perfatlas.core.stats import Summary, summarize
from perfatlas.flows import large_batch
from perfatlas.main import create_app
from perfatlas.runs.models import Result, Run
from tests.factories import BASE_TIME, result, run_body

MB = 2**20
# Bodies from 1 MiB on are read run by run here (the default is 8 MiB).
LARGE = MB
TRICKY = ['a"b', "back\\slash\\", "}]{[", "tab\there", "ünï ✓", '\\"', "", "\u2028"]


@pytest.fixture
def big_client(settings: Settings, engine: Engine) -> Iterator[TestClient]:
    roomy = settings.model_copy(update={"max_body_bytes": 32 * MB, "large_batch_bytes": LARGE})
    with TestClient(create_app(roomy), raise_server_exceptions=False) as test_client:
        yield test_client


def large_runs(rng: random.Random, count: int, samples: int) -> list[dict[str, Any]]:
    """Runs that vary in every field ingest reads: agents, targets, parameters, labels with
    brackets and quotes in their text, environments, results with samples or a value only."""
    runs = []
    for i in range(count):
        results = [
            result(f"m{j}.ops_per_s", [rng.uniform(-1e6, 1e9) for _ in range(rng.randint(1, samples))])
            for j in range(rng.randint(1, 4))
        ]  # fmt: skip
        if i % 7 == 0:
            results.append({"metric": "only.value_s", "unit": "s", "value": rng.uniform(0, 9)})
        runs.append(
            run_body(
                agent=f"host-{i % 3}",
                target=rng.choice(["/mnt/x", 'C:\\"t"', "/mnt/{y}"]),
                parameters={"k": i % 5, "name": rng.choice(TRICKY)},
                labels={"version": rng.choice(TRICKY)[:64], "mode": str(i % 2)},
                started_at=(BASE_TIME.replace(minute=i % 60, second=i // 60 % 60)).isoformat(),
                environment={"hostname": f"host-{i % 3}", "kernel": rng.choice(["6.1", "6.2"]),
                             "cores": 2, "notes": rng.choice(TRICKY)},
                meta={"log": rng.choice(TRICKY) * rng.randint(0, 20)},
                results=results,
            )
        )  # fmt: skip
    return runs


def post(client: TestClient, headers: dict[str, str], payload: bytes) -> Any:
    return client.post(
        "/api/v1/runs/batch", content=payload,
        headers={**headers, "Content-Type": "application/json"},
    )  # fmt: skip


def stored_rows(engine: Engine) -> dict[tuple[uuid.UUID, str], Any]:
    with engine.connect() as conn:
        return {
            (row.uuid, row.metric): row
            for row in conn.execute(
                select(Run.uuid, Run.target, Run.labels, Run.meta, Result.metric, Result.value,
                       Result.samples, *(getattr(Result, f) for f in Summary._fields))
                .join(Result.run)
            )
        }  # fmt: skip


def check_stored(engine: Engine, runs: list[dict[str, Any]]) -> None:
    """Every result of every run stored once, as sent, with its summary (the oracle:
    stats.summarize of the sent samples, one result at a time)."""
    rows = stored_rows(engine)
    assert len(rows) == sum(len(run["results"]) for run in {r["uuid"]: r for r in runs}.values())
    for run in runs:
        for sent in run["results"]:
            row = rows[(uuid.UUID(run["uuid"]), sent["metric"])]
            samples = sent.get("samples") or [sent["value"]]
            assert row.samples == samples
            assert row.value == sent.get("value", summarize(samples).p50)
            assert tuple(getattr(row, f) for f in Summary._fields) == tuple(summarize(samples))
            assert (row.target, row.labels, row.meta) == (run["target"], run["labels"], run["meta"])


def count(engine: Engine, model: type) -> int:
    with engine.connect() as conn:
        return int(conn.scalar(select(func.count()).select_from(model)) or 0)


def test_a_large_good_batch_stores_every_run_once_as_sent(big_client, upload_headers, engine):
    rng = random.Random(7)
    runs = large_runs(rng, 600, 900)
    # A run sent twice with the same body is one run; one stored before is a retry.
    runs.insert(300, copy.deepcopy(runs[17]))
    before = runs[450]
    assert post(big_client, upload_headers, orjson.dumps({"runs": [before]})).status_code == 200
    payload = orjson.dumps({"runs": runs})
    assert len(payload) > 3 * large_batch.STORE_CHUNK_BYTES  # several chunks of runs
    batch = large_batch.prepare(payload, large=LARGE)  # the large path, not the whole validation
    assert batch is not None
    # Its rows are written a chunk of runs at a time, each validated again from the bytes.
    assert len(list(batch.load([run.head for run in batch.runs]))) > 3

    answer = post(big_client, upload_headers, payload)
    assert answer.status_code == 200, answer.text[:500]
    unique = list(dict.fromkeys(run["uuid"] for run in runs))
    assert answer.json() == {
        "created": 599,
        "existing": 1,
        "runs": [{"uuid": u, "created": u != before["uuid"]} for u in unique],
    }
    check_stored(engine, runs)
    # Ids in uuid order across the chunks, as a small batch's (concurrent batches insert the
    # same new runs in one order).
    with engine.connect() as conn:
        order = [u for (u,) in conn.execute(select(Run.uuid).where(Run.uuid != uuid.UUID(before["uuid"])).order_by(Run.id))]  # fmt: skip
    assert order == sorted(order)

    again = post(big_client, upload_headers, payload)
    assert again.json()["created"] == 0 and again.json()["existing"] == 600
    assert count(engine, Run) == 600


def test_a_bad_value_in_the_last_run_of_a_large_batch_stores_nothing(
    big_client, upload_headers, engine
):
    runs = large_runs(random.Random(8), 500, 900)
    runs[-1]["results"][0] = result("m0.ops_per_s", [1.0, 2.0, 1e300, 3.0])
    payload = orjson.dumps({"runs": runs})
    assert len(payload) > 2 * large_batch.STORE_CHUNK_BYTES
    answer = post(big_client, upload_headers, payload)
    assert answer.status_code == 422
    assert [e["field"] for e in answer.json()["errors"]] == ["body.runs[499].results[0].samples[2]"]
    assert count(engine, Run) == 0 and count(engine, Result) == 0


def whole_errors(payload: bytes) -> list[dict[str, str]]:
    """The oracle: the 422's fields and messages of the batch validated whole."""
    try:
        RunBatchCreate.model_validate_json(payload)
    except Exception as exc:
        return _validation_errors(body_invalid(exc.errors()))  # type: ignore[attr-defined]
    raise AssertionError("the batch is valid")


def test_a_large_batch_names_every_error_as_the_whole_validation_does(
    big_client, upload_headers, engine
):
    runs = large_runs(random.Random(9), 300, 900)
    runs[3]["workload"] = "has space"
    runs[120]["results"][0]["unit"] = "furlongs"
    runs[200]["finished_at"] = "2020-01-01T00:00:00Z"
    runs[250]["surprise"] = {"a": [1, 2]}
    runs[299]["results"] = [result("x.y", [])]
    payload = orjson.dumps({"runs": runs})
    assert len(payload) > LARGE
    answer = post(big_client, upload_headers, payload)
    assert answer.status_code == 422
    assert answer.json()["errors"] == whole_errors(payload)
    assert len(answer.json()["errors"]) == 5
    assert count(engine, Run) == 0

    # Malformed JSON inside a run, or a body of another shape: validated whole, the same 422.
    broken = payload.replace(b'"has space"', b'"has space",,', 1)
    for body in (broken, payload[:-1] + b', "more": 1}', b"[" + payload + b"]"):
        assert large_batch.prepare(body, large=LARGE) is None
        answer = post(big_client, upload_headers, body)
        assert answer.status_code == 422
        assert answer.json()["errors"] == whole_errors(body)
    assert count(engine, Run) == 0


def test_a_large_batch_refuses_a_uuid_twice_and_a_conflict_whole(
    big_client, upload_headers, engine
):
    runs = large_runs(random.Random(10), 300, 900)
    stored = copy.deepcopy(runs[5])
    assert post(big_client, upload_headers, orjson.dumps({"runs": [stored]})).status_code == 200
    runs[5]["target"] = "/mnt/other"  # stored with another body: a conflict
    twice = copy.deepcopy(runs[10])
    twice["labels"] = {"mode": "x"}
    payload = orjson.dumps({"runs": [*runs, twice]})
    answer = post(big_client, upload_headers, payload)
    assert answer.status_code == 422  # the uuid twice comes first, as for a small batch
    assert answer.json()["errors"][0]["field"] == "runs[300].uuid"
    answer = post(big_client, upload_headers, orjson.dumps({"runs": runs}))
    assert answer.status_code == 409
    assert answer.json()["uuids"] == [runs[5]["uuid"]]
    assert count(engine, Run) == 1


def test_run_spans_find_each_run_whatever_its_text_and_spacing():
    rng = random.Random(12)
    runs = large_runs(rng, 40, 5)
    for options in ({}, {"indent": 2}, {"separators": (" , ", " : ")}, {"ensure_ascii": False}):
        text = json.dumps({"runs": runs}, **options).encode()
        for body in (text, b" \n\t" + text + b"\r\n "):
            spans = large_batch.run_spans(body)
            assert spans is not None
            assert [json.loads(body[a:b]) for a, b in spans] == runs
    for other in (b'{"runs": [1, 2]}', b'{"runs": []}', b'{"runs": [{}], "x": 1}', b'{"run": [{}]}',
                  b'{"runs": [{"a": "}"]', b'{"runs": [{"a": "\\"}]}', b'{"runs": [{}]} x'):  # fmt: skip
        assert large_batch.run_spans(other) is None, other


@pytest.mark.slow  # the CLI as a process, a server on SQLite
def test_a_large_batch_on_sqlite(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env["PERFATLAS_DATA_DIR"] = str(tmp_path / "data")
    subprocess.run([sys.executable, "-m", "perfatlas", "migrate"], env=env, check=True,
                   capture_output=True)  # fmt: skip
    token = subprocess.run(
        [sys.executable, "-m", "perfatlas", "token", "create", "--scope", "upload", "-q"],
        env=env, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    settings = Settings(data_dir=tmp_path / "data", max_body_bytes=32 * MB, large_batch_bytes=LARGE)
    engine = get_engine(settings.effective_database_url)
    headers = {"Authorization": f"Bearer {token}"}
    runs = large_runs(random.Random(13), 400, 900)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        bad = copy.deepcopy(runs)
        bad[-1]["results"][0]["unit"] = "furlongs"
        answer = post(client, headers, orjson.dumps({"runs": bad}))
        assert answer.status_code == 422
        assert answer.json()["errors"][0]["field"] == "body.runs[399].results[0].unit"
        assert count(engine, Run) == 0
        payload = orjson.dumps({"runs": runs})
        assert len(payload) > 2 * large_batch.STORE_CHUNK_BYTES
        answer = post(client, headers, payload)
        assert answer.status_code == 200, answer.text[:300]
        assert answer.json()["created"] == 400
    check_stored(engine, runs)
