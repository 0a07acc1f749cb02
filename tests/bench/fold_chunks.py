"""What the chunk size costs a fold: one series and variant with RUNS runs, folded one run per
transaction (as a worker keeping up with a steady trickle does), for several CHUNK_RECORDS;
the time of each append by how full the head was, and the rows explore then reads. Writes
tests/bench/results/fold_chunks.json.

    .venv/bin/python tests/bench/fold_chunks.py"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
from common import PG, admin_dsn, sweep_run
from sqlalchemy import text

from perfatlas.cli import run_migrations
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.measurement import RunCreate
from perfatlas.rollups import fold
from perfatlas.runs import service as runs_service

RESULTS = Path(__file__).resolve().parent / "results"
DB = "perfatlas_fold_chunks"
RUNS = 2100
SIZES = tuple(int(s) for s in os.environ.get("CHUNK_SIZES", "128,512,2048").split(","))


def main() -> int:
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}"')
    url = f"{PG}/{DB}"
    run_migrations(url)
    factory = session_factory(get_engine(url))
    rng = random.Random(1)
    t0 = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    runs = [
        RunCreate.model_validate(sweep_run(
            agent="host-0", workload="seqio", params={"k": 3}, labels={"version": "1"},
            started=t0 + dt.timedelta(minutes=i), rng=rng, metrics=1,
        ))
        for i in range(RUNS)
    ]  # fmt: skip
    with factory() as session:
        runs_service.ingest(
            session, runs=runs, ignore_labels=Settings.model_fields["series_ignore_labels"].default
        )
        session.commit()
    report: dict[str, Any] = {
        "benchmark": "fold_chunks",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "load_1m": os.getloadavg()[0],
        "runs": RUNS,
        "what": "one run per fold transaction into one (series, variant); ms per fold by how "
        "full the head chunk was (quarters of CHUNK_RECORDS)",
        "by_chunk_records": {},
    }
    for size in SIZES:
        fold.CHUNK_RECORDS = size
        with factory() as session:
            session.execute(text("DELETE FROM explore_rollups"))
            session.execute(text("DELETE FROM rollup_pending"))
            session.execute(text("INSERT INTO rollup_pending SELECT id FROM runs"))
            session.commit()
            quarters: list[list[float]] = [[], [], [], []]
            started = time.perf_counter()
            for i in range(RUNS):
                began = time.perf_counter()
                assert fold.fold_batch(session, limit=1) == 1
                session.commit()
                quarters[(i % size) * 4 // size].append((time.perf_counter() - began) * 1000)
            total = time.perf_counter() - started
            rows = session.scalar(text("SELECT count(*) FROM explore_rollups"))
        report["by_chunk_records"][str(size)] = {
            "fold_ms_median_by_head_quarter": [round(statistics.median(q), 2) for q in quarters],
            "total_s": round(total, 2),
            "rows_after": rows,
            "chunk_kib": round(size * 80 / 1024, 1),
        }
        print(size, report["by_chunk_records"][str(size)], flush=True)
    get_engine(url).dispose()
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
    (RESULTS / "fold_chunks.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
