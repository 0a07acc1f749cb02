"""Read requests of two versions of the code, alternated on the database bench_server.py left
(perfatlas_bench, 1 M results): an A/B of the read paths on one machine, where a single run's
figures move with the machine more than with a change.

Each round serves each tree in turn (`perfatlas serve` with the tree's backend first on
PYTHONPATH, every explore answer computed) and times, one request at a time:
a series' points (10 and 10,000, as the UI asks), each explore case, /health, and the other
GET routes a user reads (runs, runs filtered on a label, a parameter or a status, series, the series of the long series' agent, a run, catalog,
compare, change points, alerts, incidents, agents), with their parameters cycling over
workloads, agents, runs and series (and the jobs list, once tests/bench/jobs_seed.py has
added a year of jobs). Each
is asked WARMUP times first: a connection prepares a statement the sixth time it runs it, and
PostgreSQL plans it generically (when it judges that cheaper) from the sixth run of the prepared
statement on, so the timed requests are the steady state (one request at a time is served by
one pooled connection, the most recently returned).

Usage: python reads_ab.py BEFORE_BACKEND AFTER_BACKEND [ROUNDS] (a backend is a folder holding
the perfatlas package: `git worktree add /tmp/base <commit>` gives /tmp/base/backend).
BENCH_READS_CASES (comma-separated prefixes) times only the cases named so; BENCH_READS_DB reads
another database than perfatlas_bench (bench_load.py's, say). Writes BENCH_OUT
(default results/reads-ab.json): per case and tree each round's p50 and p95."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psycopg

# Run as a script: its own folder is on sys.path.
from common import (  # isort: skip
    EXPLORE_CASES, SERIES_POINTS, admin_dsn, create_token, free_port, percentile, perfatlas_env,
    start_server, stop_process,
)  # fmt: skip

DB = os.environ.get("BENCH_READS_DB", "perfatlas_bench")
WARMUP = 25
TIMED = {"points": 100, "explore": 30, "other": 30}
Request = tuple[str, dict[str, Any] | None]


def cases(conn: psycopg.Connection[Any]) -> dict[str, tuple[str, list[Request]]]:
    """Each case's kind and the requests it cycles through, from what the database holds."""
    workloads = [r[0] for r in conn.execute("SELECT DISTINCT workload FROM runs ORDER BY 1")]
    agents = [r[0] for r in conn.execute("SELECT name FROM agents ORDER BY name LIMIT 5")]
    runs = [str(r[0]) for r in conn.execute("SELECT uuid FROM runs ORDER BY id DESC LIMIT 10")]
    series = [r[0] for r in conn.execute("SELECT id FROM series ORDER BY id LIMIT 400")][::40]
    pairs = conn.execute(
        "SELECT a.uuid, b.uuid FROM runs a JOIN runs b ON b.workload = a.workload"
        " AND b.agent_id = a.agent_id AND b.id = a.id - 5 ORDER BY a.id DESC LIMIT 10"
    ).fetchall()
    (points_series,) = conn.execute(
        "SELECT s.id FROM series s WHERE s.workload = 'smallfile' AND s.metric = 'm0.mb_per_s'"
        " ORDER BY s.id LIMIT 1"
    ).fetchone() or (None,)
    points = f"/api/v1/series/{points_series}/points"
    # The series with the most points (the long series, in perfatlas_bench), as its page asks
    # for its changes over the largest window it offers.
    longest = [r[0] for r in conn.execute(
        "SELECT series_id FROM explore_digests GROUP BY series_id ORDER BY sum(count) DESC LIMIT 2"
    )]  # fmt: skip
    (jobs,) = conn.execute("SELECT count(*) > 1000 FROM jobs").fetchone() or (False,)
    nightly = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM schedules WHERE name IN ('nightly-bench', 'paused-bench') ORDER BY name"
        )
    ]
    # The runs list filtered on values: the version labels of the oldest runs (their runs come
    # after every newer one in the list's order), values no run has, and common ones.
    oldest = [
        r[0]
        for r in conn.execute(
            "SELECT labels->>'version' FROM runs GROUP BY 1 ORDER BY min(started_at) LIMIT 3"
        )
    ]
    newest = conn.execute(
        "SELECT labels->>'version', status FROM runs ORDER BY started_at DESC LIMIT 1"
    ).fetchone()
    ui = {"samples": "false", "fields": "run,p5,p95"}
    found: dict[str, tuple[str, list[Request]]] = {
        "points_10": ("points", [(points, {**ui, "limit": 10})]),
        f"points_{SERIES_POINTS}": ("points", [(points, {**ui, "limit": SERIES_POINTS})]),
        "health": ("points", [("/api/v1/health", None)]),
    }
    for name, params in EXPLORE_CASES.items():
        found[name] = ("explore", [("/api/v1/explore", params)])
    found.update({
        "runs_by_workload": ("other", [("/api/v1/runs", {"workload": w}) for w in workloads]),
        "runs_by_agent": ("other", [("/api/v1/runs", {"agent": a}) for a in agents]),
        # An agent's runs, for the agent of the long series (its runs are 100,000 of a minute
        # apart, older than most) and for a name no agent has.
        "runs_of_agents_seldom_newest": ("other", [
            ("/api/v1/runs", {"agent": "host-long"}), ("/api/v1/runs", {"agent": "nobody"})]),
        "runs_filtered_old_label": (
            "other", [("/api/v1/runs", {"label": f"version:{v}"}) for v in oldest]),
        "runs_filtered_absent": ("other", [
            ("/api/v1/runs", {"label": "version:none-such"}), ("/api/v1/runs", {"param": "k:-1"}),
            ("/api/v1/runs", {"status": "aborted"})]),
        "runs_filtered_common": ("other", [
            ("/api/v1/runs", {"label": f"version:{newest[0]}"}),
            ("/api/v1/runs", {"status": newest[1]})] if newest else []),
        # The jobs list (jobs_seed.py's jobs, when the database has them): an agent's jobs,
        # made for it or held by it; agents whose jobs are a year or half a year old; a
        # schedule's, and one paused half a year ago; a rare status.
        **({
            "jobs_by_agent": ("other", [("/api/v1/jobs", {"agent": a}) for a in agents]),
            "jobs_of_a_retired_agent": ("other", [("/api/v1/jobs", {"agent": "retired-agent"})]),
            "jobs_of_a_quiet_agent": ("other", [("/api/v1/jobs", {"agent": "quiet-agent"})]),
            "jobs_of_a_schedule": ("other", [("/api/v1/jobs", {"schedule": nightly[0]})]),
            "jobs_of_a_paused_schedule": ("other", [("/api/v1/jobs", {"schedule": nightly[1]})]),
            "jobs_by_status": ("other", [("/api/v1/jobs", {"status": s})
                                         for s in ("running", "failed", "succeeded")]),
        } if jobs else {}),
        "run": ("other", [(f"/api/v1/runs/{u}", None) for u in runs]),
        "series_by_workload": ("other", [("/api/v1/series", {"workload": w}) for w in workloads]),
        "series_by_agent_and_metric": (
            "other", [("/api/v1/series", {"agent": a, "metric": "m0.mb_per_s"}) for a in agents]),
        # A later page of every series: the page says how many there are (a count of series).
        "series_later_page": ("other", [("/api/v1/series", {"limit": 100, "cursor": c})
                                        for c in (100, 2000, 5000)]),
        # The long series' agent (bench_server.py's long_series.py): its series' counts.
        "series_of_the_long_history": ("other", [("/api/v1/series", {"agent": "host-long"})]),
        "catalog": ("other", [("/api/v1/catalog", {"workload": w}) for w in workloads]),
        "compare": ("other", [("/api/v1/compare", {"runs": f"{a},{b}"}) for a, b in pairs]),
        "change_points": (
            "other", [(f"/api/v1/series/{s}/change-points", None) for s in series]),
        f"change_points_{SERIES_POINTS}": ("other", [
            (f"/api/v1/series/{s}/change-points", {"points": SERIES_POINTS}) for s in longest]),
        "alerts": ("other", [("/api/v1/alerts", {"limit": 50})]),
        "incidents": ("other", [("/api/v1/incidents", None)]),
        "agents": ("other", [("/api/v1/agents", None)]),
    })  # fmt: skip
    return found


def timed(
    client: httpx.Client, requests: list[Request], repeats: int, warmup: int = WARMUP
) -> dict[str, float]:
    """p50 and p95 of `repeats` requests cycling through `requests`, after `warmup` of them."""
    cycle = itertools.cycle(requests)
    for _ in range(warmup):
        path, params = next(cycle)
        client.get(path, params=params).raise_for_status()
    times = []
    for _ in range(repeats):
        path, params = next(cycle)
        started = time.perf_counter()
        response = client.get(path, params=params)
        times.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
    return {"p50_ms": round(percentile(times, 0.5), 2), "p95_ms": round(percentile(times, 0.95), 2)}


def served_in_turn(
    trees: dict[str, str],
    env: dict[str, str],
    token: str,
    rounds: int,
    visit: Callable[[str, httpx.Client], None],
    *,
    timeout: float = 120,
    progress: bool = False,
) -> None:
    """Each round, each tree served in turn (`perfatlas serve`, its backend first on
    PYTHONPATH) and visited with a client holding the token."""
    for round_ in range(rounds):
        for tree, backend in trees.items():
            server, base = start_server({**env, "PYTHONPATH": backend})
            try:
                headers = {"Authorization": f"Bearer {token}"}
                with httpx.Client(base_url=base, headers=headers, timeout=timeout) as client:
                    visit(tree, client)
            finally:
                stop_process(server)
            if progress:
                print(f"round {round_ + 1}/{rounds}: {tree} done", flush=True)


def median_of_rounds(
    rows: dict[str, dict[str, list[dict[str, float]]]],
) -> dict[str, dict[str, dict[str, Any]]]:
    """Per case and tree: the median of its rounds' p50, beside the rounds."""
    return {
        case: {
            tree: {"p50_ms_median_of_rounds": percentile([r["p50_ms"] for r in runs], 0.5),
                   "rounds": runs}
            for tree, runs in by_tree.items()
        }
        for case, by_tree in rows.items()
    }  # fmt: skip


def main() -> None:
    before, after = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    env = perfatlas_env(DB, free_port(), PERFATLAS_EXPLORE_CACHE_MB="0")
    token = create_token(env, "read")
    with psycopg.connect(admin_dsn(DB)) as conn:
        found = cases(conn)
    # BENCH_READS_CASES: the cases whose names start with one of these (comma-separated).
    chosen = tuple(p for p in os.environ.get("BENCH_READS_CASES", "").split(",") if p)
    if chosen:
        found = {name: case for name, case in found.items() if name.startswith(chosen)}
    trees = {"before": before, "after": after}
    rows: dict[str, dict[str, list[dict[str, float]]]] = {n: {t: [] for t in trees} for n in found}

    def visit(tree: str, client: httpx.Client) -> None:
        for name, (kind, requests) in found.items():
            rows[name][tree].append(timed(client, requests, TIMED[kind]))

    served_in_turn(trees, env, token, rounds, visit, progress=True)
    summary = median_of_rounds(rows)
    report = {
        "benchmark": "reads_ab", "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "database": DB, "before": before, "after": after, "rounds": rounds,
        "warmup": WARMUP, "timed": TIMED, "load_average": os.getloadavg(), "cases": summary,
    }  # fmt: skip
    out = Path(os.environ.get("BENCH_OUT", Path(__file__).parent / "results" / "reads-ab.json"))
    out.write_text(json.dumps(report, indent=2) + "\n")
    for name, by_tree in summary.items():
        b, a = (by_tree[t]["p50_ms_median_of_rounds"] for t in trees)
        print(f"{name:36s} p50 {b:8.1f} -> {a:8.1f} ms")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
