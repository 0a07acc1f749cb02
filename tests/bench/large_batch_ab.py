"""The API's CPU for one large `/runs/batch` body, stored the two ways this tree can: validated
whole and stored as one list ('whole', how every batch was stored before runs/large_batch.py,
and how a body under PERFATLAS_LARGE_BATCH_BYTES still is) against read run by run from its bytes and
written a chunk at a time ('large'). In-process, on one fresh PostgreSQL database, alternating
which goes first; each body gets fresh uuids. Two shapes: the server bench's batches (1,000
runs of 10 metrics of 5 samples) and the memory bench's 30 MB bodies (1,000 runs of 2 metrics of
~770 samples). CPU is the process's (time.process_time), from the bytes to the commit.

    .venv/bin/python tests/bench/large_batch_ab.py [rounds]

Writes tests/bench/results/large_batch_ab.json."""

from __future__ import annotations

import datetime as dt
import json
import random
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
import psycopg
from bench_upload_memory import body as memory_body
from common import PG, SEED, admin_dsn, make_runs

from perfatlas.cli import run_migrations
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.measurement import RunBatchCreate
from perfatlas.flows import group_commit, large_batch

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "tests" / "bench" / "results" / "large_batch_ab.json"
DB = "perfatlas_large_batch_ab"


def with_new_uuids(raw: bytes) -> bytes:
    batch = orjson.loads(raw)
    for run in batch["runs"]:
        run["uuid"] = str(uuid.uuid4())
    return orjson.dumps(batch)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}"')
    url = f"{PG}/{DB}"
    run_migrations(url)
    settings = Settings(database_url=url, broker_url="memory://")
    factory = session_factory(get_engine(url))
    rng = random.Random(SEED)

    def whole(raw: bytes) -> None:
        runs = RunBatchCreate.model_validate_json(raw).runs
        with factory() as session:
            group_commit._commit(session, settings, runs)

    def large(raw: bytes) -> None:
        batch = large_batch.prepare(raw, large=1)
        assert batch is not None
        with factory() as session:
            large_batch.store(session, settings, batch)

    shapes = {
        "server bench batch": lambda i: orjson.dumps(
            {"runs": make_runs(1000, start=1000 * i, rng=rng)}
        ),
        "memory bench 30 MB body": lambda i: memory_body(i, rng),
    }
    report: dict[str, Any] = {}
    for shape, make in shapes.items():
        times: dict[str, list[float]] = {"whole": [], "large": []}
        size = 0
        for i in range(rounds):
            raw = make(i)
            size = len(raw)
            order = [("whole", whole), ("large", large)]
            for name, store in order if i % 2 else order[::-1]:
                data = with_new_uuids(raw)
                began = time.process_time()
                store(data)
                times[name].append(time.process_time() - began)
        report[shape] = {
            "body_mb": round(size / 1e6, 2),
            "cpu_s_median": {k: round(statistics.median(v), 3) for k, v in times.items()},
            "cpu_s": {k: [round(t, 3) for t in v] for k, v in times.items()},
        }
    out = {
        "benchmark": "large_batch_ab",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip(),
        "rounds": rounds,
        "shapes": report,
    }
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
