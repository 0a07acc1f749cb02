"""In-process ingest cost of one step of ingest (runs/ingest.py), by default explore's pending
marker (rollup_pending, written beside the runs): the same batches of the server bench's runs
stored into two fresh PostgreSQL databases, batch by batch in alternating order, once with the
step left out ('main') and once as ingest does it ('branch'). BENCH_INGEST_AB_STEP names
the step, a function ingest calls with the session first and returns nothing from
(insert_pending, count_runs). Prints and writes BENCH_OUT (default
tests/bench/results/ingest_ab.json).

    .venv/bin/python tests/bench/ingest_ab.py [rounds]"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
from common import PG, SEED, admin_dsn, make_runs

from perfatlas.cli import run_migrations
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.measurement import RunCreate
from perfatlas.runs import ingest as ingest_module

RESULTS = Path(__file__).resolve().parent / "results"
SIZES = {10: 40, 100: 20, 1000: 6}  # runs per batch: batches per round
IGNORE = Settings.model_fields["series_ignore_labels"].default
STEP = os.environ.get("BENCH_INGEST_AB_STEP", "insert_pending")


def fresh(name: str) -> str:
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    url = f"{PG}/{name}"
    run_migrations(url)
    return url


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    urls = {
        "main": fresh("perfatlas_ingest_ab_main"),
        "branch": fresh("perfatlas_ingest_ab_branch"),
    }
    factories = {k: session_factory(get_engine(u)) for k, u in urls.items()}
    marker = getattr(ingest_module, STEP)
    rng = random.Random(SEED)
    times: dict[int, dict[str, list[float]]] = {s: {"main": [], "branch": []} for s in SIZES}
    start = 0
    for _ in range(rounds):
        for size, count in SIZES.items():
            for i in range(count):
                runs = [RunCreate.model_validate(b) for b in make_runs(size, start=start, rng=rng)]
                start += size
                for which in ("main", "branch") if i % 2 else ("branch", "main"):
                    setattr(ingest_module, STEP, marker if which == "branch" else _nothing)
                    with factories[which]() as session:
                        began = time.perf_counter()
                        ingest_module.ingest(session, runs=runs, ignore_labels=IGNORE)
                        session.commit()
                        times[size][which].append(time.perf_counter() - began)
    setattr(ingest_module, STEP, marker)
    with psycopg.connect(admin_dsn("perfatlas_ingest_ab_branch")) as conn:
        row = conn.execute("SELECT count(*) FROM rollup_pending").fetchone()
        pending = int(row[0]) if row else -1
        row = conn.execute("SELECT coalesce(sum(runs), 0) FROM run_counts").fetchone()
        counted = int(row[0]) if row else -1
    report: dict[str, Any] = {
        "benchmark": "ingest_ab",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "what": "runs.ingest + commit in-process, the same batches into two databases in "
        f"alternating order: 'main' without {STEP}, 'branch' with it",
        "load_1m": os.getloadavg()[0],
        "runs_stored_each": start,
        "pending_rows_branch": pending,
        "runs_counted_branch": counted,
        "by_batch_runs": {},
    }
    for size, by in times.items():
        main_ms = statistics.median(by["main"]) * 1000
        branch_ms = statistics.median(by["branch"]) * 1000
        report["by_batch_runs"][str(size)] = {
            "batches": len(by["main"]),
            "main_median_ms": round(main_ms, 2),
            "branch_median_ms": round(branch_ms, 2),
            "main_total_s": round(sum(by["main"]), 3),
            "branch_total_s": round(sum(by["branch"]), 3),
            "branch_vs_main_median": round(branch_ms / main_ms, 3),
            "branch_vs_main_total": round(sum(by["branch"]) / sum(by["main"]), 3),
        }
    print(json.dumps(report, indent=2))
    Path(os.environ.get("BENCH_OUT", RESULTS / "ingest_ab.json")).write_text(
        json.dumps(report, indent=2) + "\n"
    )
    for name in ("perfatlas_ingest_ab_main", "perfatlas_ingest_ab_branch"):
        for url in urls.values():
            get_engine(url).dispose()
        subprocess.run(
            ["psql", admin_dsn(), "-qc", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'],
            check=False,
        )
    return 0


def _nothing(session: Any, *args: Any) -> None:
    return None


if __name__ == "__main__":
    sys.exit(main())
