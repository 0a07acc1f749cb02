"""The alerts list in-process with the index of the jobs' alerts (migration 0022,
`ix_jobs_alert_id`) dropped and created again, alternated three times, on the database
bench_server.py left once jobs_seed.py has added its jobs: every alerts page reads its alerts'
confirmation jobs (confirm/reads.py), and without the index that read scanned every job. p50 of
40 lists each way and round. Writes BENCH_OUT (default
tests/bench/results/alert_jobs_ab.json).

    .venv/bin/python tests/bench/alert_jobs_ab.py"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path

import psycopg
from common import PG, admin_dsn

from perfatlas.alerts.queries import list_alerts
from perfatlas.core.db import get_engine, session_factory

DB = os.environ.get("BENCH_DB", "perfatlas_bench")
OUT = Path(os.environ.get("BENCH_OUT") or Path(__file__).parent / "results" / "alert_jobs_ab.json")
make = session_factory(get_engine(f"{PG}/{DB}"))


def timed(n: int = 40) -> float:
    times = []
    for _ in range(n):
        with make() as session:
            started = time.perf_counter()
            list_alerts(session, limit=50)
            times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


def main() -> None:
    without: list[float] = []
    with_index: list[float] = []
    with psycopg.connect(admin_dsn(DB), autocommit=True) as admin:
        for _ in range(3):
            admin.execute("DROP INDEX IF EXISTS ix_jobs_alert_id")
            timed(5)
            without.append(timed())
            admin.execute(
                "CREATE INDEX ix_jobs_alert_id ON jobs (alert_id) WHERE alert_id IS NOT NULL"
            )
            timed(5)
            with_index.append(timed())
        counts = {
            table: (admin.execute(f"SELECT count(*) FROM {table}").fetchone() or (0,))[0]
            for table in ("jobs", "alerts")
        }
    out = {"without_index_ms": without, "with_index_ms": with_index, **counts}
    OUT.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
