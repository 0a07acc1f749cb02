"""The reads that look at runs, not results, as the runs grow, the code before and after a
change alternated: once on a copy of the database bench_server.py left (perfatlas_bench), and
once with its runs copied FACTOR times over (new uuids, the same times, no results), so that a
read which grows with the runs shows it and one that does not stays flat.

Each tree is served in turn (`perfatlas serve`, its backend first on PYTHONPATH) and asked,
one request at a time after WARMUP requests (a connection prepares a statement the sixth time it runs it): `/agents` (the fleet page, every 5 s), the whole
`/catalog` (what the Explore, heatmap, compare and schedule pages ask first), the catalog
of each workload, and the runs list filtered on an old version, on a value no run has, on the
newest version and on the agent of the long series (whose runs are older than the others).
After the copies what ingest keeps of the runs (counts, values and their days) is computed
afresh by migrations 0019 and 0020 (downgrade to 0018, upgrade), which is timed: it is what an
existing installation runs once.

Usage: python tallies_growth.py BEFORE_BACKEND AFTER_BACKEND [FACTOR (10)]. Writes BENCH_OUT
(default results/tallies-growth.json). Leaves perfatlas_bench untouched and drops its copy."""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg
from alembic import command

from perfatlas.cli import _alembic_config

# Run as a script: its own folder is on sys.path.
from common import (  # isort: skip
    PG, admin_dsn, create_token, free_port, perfatlas_env,
)  # fmt: skip
from reads_ab import median_of_rounds, served_in_turn, timed  # isort: skip

SOURCE, DB = "perfatlas_bench", "perfatlas_bench_tallies"
WARMUP, TIMED, ROUNDS = 10, 20, 2
# The runs' columns but id and uuid, copied as they are.
_COPIED = """body_hash, agent_id, environment_id, workload, target, parameters, labels,
started_at, finished_at, status, job_id, confirming, reference, fsync_policy, o_direct,
sync_mount, write_cache, flush_to_device, memory_backed, cold_method, meta, created_at"""


def measure(trees: dict[str, str], env: dict[str, str], token: str) -> dict[str, Any]:
    with psycopg.connect(admin_dsn(DB)) as conn:
        workloads = [r[0] for r in conn.execute("SELECT DISTINCT workload FROM runs ORDER BY 1")]
        versions = [r[0] for r in conn.execute(
            "SELECT labels->>'version' FROM runs GROUP BY 1 ORDER BY min(started_at)")]  # fmt: skip
    runs = "/api/v1/runs"
    cases = {
        "agents": [("/api/v1/agents", None)],
        "catalog": [("/api/v1/catalog", None)],
        "catalog_of_a_workload": [("/api/v1/catalog", {"workload": w}) for w in workloads],
        "runs_of_an_old_version": [(runs, {"label": f"version:{versions[0]}"})],
        "runs_of_an_absent_value": [(runs, {"label": "version:none-such"})],
        "runs_of_the_newest_version": [(runs, {"label": f"version:{versions[-1]}"})],
        "runs_of_the_long_series_agent": [(runs, {"agent": "host-long"})],
    }
    rows: dict[str, dict[str, list[dict[str, float]]]] = {c: {t: [] for t in trees} for c in cases}
    answers: dict[str, list[Any]] = {}

    def visit(tree: str, client: httpx.Client) -> None:
        for case, requests in cases.items():
            rows[case][tree].append(timed(client, requests, TIMED, WARMUP))
        answers[tree] = [client.get(p, params=q).json() for p, q in
                         (("/api/v1/agents", None), ("/api/v1/catalog", None),
                          *(r for c, rs in cases.items() if c.startswith("runs_") for r in rs))]  # fmt: skip

    served_in_turn(trees, env, token, ROUNDS, visit, timeout=600)
    return {
        "same_answers": answers[next(iter(trees))] == answers[list(trees)[-1]],
        "cases": median_of_rounds(rows),
    }  # fmt: skip


def main() -> None:
    trees = {"before": sys.argv[1], "after": sys.argv[2]}
    factor = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}" TEMPLATE "{SOURCE}"')
    config = _alembic_config(f"{PG}/{DB}")
    command.upgrade(config, "head")  # type: ignore[arg-type]
    env = perfatlas_env(DB, free_port())
    token = create_token(env, "read")
    report: dict[str, Any] = {
        "benchmark": "tallies_growth", "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "source": SOURCE, "before": trees["before"], "after": trees["after"], "rounds": ROUNDS,
        "warmup": WARMUP, "timed": TIMED, "sizes": [],
    }  # fmt: skip
    for copies in (0, factor - 1):
        size: dict[str, Any] = {}
        with psycopg.connect(admin_dsn(DB), autocommit=True) as conn:
            if copies:
                started = time.perf_counter()
                conn.execute(
                    f"INSERT INTO runs (id, uuid, {_COPIED}) SELECT id + c * m.top,"
                    f" gen_random_uuid(), {_COPIED} FROM runs,"
                    " (SELECT max(id) AS top FROM runs) m, generate_series(1, %s) c",
                    (copies,),
                )
                conn.execute("VACUUM ANALYZE runs")
                size["copy_seconds"] = round(time.perf_counter() - started, 1)
            size["runs"] = conn.execute("SELECT count(*) FROM runs").fetchone()[0]  # type: ignore[index]
            size["runs_mb"] = round(float(conn.execute(
                "SELECT pg_total_relation_size('runs') / 1e6").fetchone()[0]), 1)  # type: ignore[index]  # fmt: skip
        if copies:
            command.downgrade(config, "0018")  # type: ignore[arg-type]
            started = time.perf_counter()
            command.upgrade(config, "head")  # type: ignore[arg-type]
            size["migrations_0019_to_head_seconds"] = round(time.perf_counter() - started, 2)
        print(f"{size['runs']} runs: measuring", flush=True)
        size.update(measure(trees, env, token))
        report["sizes"].append(size)
        for case, by_tree in size["cases"].items():
            b, a = (by_tree[t]["p50_ms_median_of_rounds"] for t in trees)
            print(f"  {case:30s} p50 {b:9.1f} -> {a:8.1f} ms", flush=True)
    report["load_average"] = os.getloadavg()
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
    out = Path(
        os.environ.get("BENCH_OUT", Path(__file__).parent / "results" / "tallies-growth.json")
    )
    out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
