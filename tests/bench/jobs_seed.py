"""Jobs for the read benchmarks: BENCH_JOBS (default 500,000) finished jobs over a year, added
to the database bench_server.py left (perfatlas_bench), so that reads_ab.py's jobs cases read a
jobs list as long as a fleet's year of schedules makes it. Each of the database's agents runs
its share; a tenth of the jobs were made for one agent and held by another (a selector's job
taken by whichever agent matched); an agent enrolled a year ago, `retired-agent`, ran the 30
oldest and nothing since; `quiet-agent` ran a tenth of the jobs of the first half year and
nothing since; one job in twenty came from a schedule, `paused-bench` in the first half year
and `nightly-bench` since; one job in a thousand failed and the newest four are running. Run again, it
replaces the jobs it added. Then VACUUM ANALYZE, as autovacuum would have by then.

    .venv/bin/python tests/bench/jobs_seed.py"""

from __future__ import annotations

import os
import sys

import psycopg
from common import admin_dsn

DB = os.environ.get("BENCH_DB", "perfatlas_bench")
JOBS = int(os.environ.get("BENCH_JOBS", "500000"))


def main() -> int:
    with psycopg.connect(admin_dsn(DB)) as conn:
        conn.execute("""DELETE FROM jobs WHERE selector = '["pool=bench"]'""")
        conn.execute(
            "INSERT INTO agents (name, labels, created_at) VALUES"
            " ('retired-agent', '{}', now() - interval '400 days'),"
            " ('quiet-agent', '{}', now() - interval '400 days') ON CONFLICT DO NOTHING"
        )
        agents = [r[0] for r in conn.execute(
            "SELECT id FROM agents WHERE name NOT IN ('retired-agent', 'quiet-agent') ORDER BY id")]  # fmt: skip
        ids = dict(conn.execute(
            "SELECT name, id FROM agents WHERE name IN ('retired-agent', 'quiet-agent')").fetchall())  # fmt: skip
        retired, quiet = ids["retired-agent"], ids["quiet-agent"]
        schedules = {}
        for name in ("nightly-bench", "paused-bench"):
            conn.execute(
                'INSERT INTO schedules (name, spec, agents, "when", timezone, paused,'
                " created_at, updated_at) VALUES (%s, %s, '[\"pool=bench\"]',"
                " 'cron:0 3 * * *', 'UTC', true, now(), now()) ON CONFLICT DO NOTHING",
                (name, '{"workload": "smallfile", "targets": ["/x"]}'),
            )
            (schedules[name],) = conn.execute(
                "SELECT id FROM schedules WHERE name = %s", (name,)
            ).fetchone()
        conn.execute(
            "INSERT INTO jobs (kind, schedule_id, fire_at, agent_id, leased_by_id, pinned,"
            " selector, spec, status, attempts, max_attempts, progress, log_tail, created_at,"
            " started_at, finished_at)"
            " SELECT 'run', CASE WHEN i %% 20 = 11 AND i <= %(jobs)s / 2 THEN %(paused)s"
            "  WHEN i %% 20 = 11 THEN %(nightly)s END,"
            " CASE WHEN i %% 20 = 11 THEN t END, CASE WHEN i <= 30 THEN %(retired)s"
            "  WHEN i <= %(jobs)s / 2 AND i %% 10 = 5 THEN %(quiet)s ELSE a[1 + i %% n] END,"
            " CASE WHEN i <= 30 THEN %(retired)s"
            "  WHEN i <= %(jobs)s / 2 AND i %% 10 = 5 THEN %(quiet)s"
            "  WHEN i %% 10 = 3 THEN a[1 + (i + 1) %% n] ELSE a[1 + i %% n] END,"
            ' false, \'["pool=bench"]\', \'{"workload": "smallfile", "targets": ["/x"]}\','
            " CASE WHEN i > %(jobs)s - 4 THEN 'running' WHEN i %% 1000 = 7 THEN 'failed'"
            "  ELSE 'succeeded' END, 1, 3, '{}', '[]', t, t, t + interval '5 minutes'"
            " FROM generate_series(1, %(jobs)s) AS i,"
            " LATERAL (SELECT now() - interval '365 days' + i * (interval '365 days' / %(jobs)s)"
            "  AS t) AS at, (SELECT %(agents)s::int[] AS a, %(n)s AS n) AS fleet",
            {"retired": retired, "quiet": quiet, "agents": agents, "n": len(agents),
             "jobs": JOBS,
             "nightly": schedules["nightly-bench"], "paused": schedules["paused-bench"]},
        )  # fmt: skip
        (count,) = conn.execute("SELECT count(*) FROM jobs").fetchone()
    with psycopg.connect(admin_dsn(DB), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE jobs")
    print(f"{count} jobs in {DB}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
