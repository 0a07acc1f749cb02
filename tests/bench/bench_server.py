"""Server benchmark on PostgreSQL: ingest through the API next to a raw COPY of the same rows,
explore and series-points latency with 1,000,000 results stored (BENCH_RESULTS), and the API's
peak memory.

Writes tests/bench/results/server.json (server-10m.json for BENCH_RESULTS=10000000, server-30m.json
for 30,000,000, beside the committed 1 M figures and, under "growth", every committed size's;
BENCH_OUT names another file) and leaves the database perfatlas_bench
populated for the benchmarks that follow. Run with `make bench` (or this file alone;
`make bench-scale` for 10 M)."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil
import psycopg

# Run as a script: its own folder is on sys.path.
from common import (
    EXPLORE_CASES,
    METRICS,
    PERFATLAS,
    SAMPLES,
    SEED,
    SERIES_POINTS,
    admin_dsn,
    create_token,
    free_port,
    make_runs,
    percentile,
    perfatlas_env,
    pg_settings,
    start_server,
)
from long_series import long_series_phase

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "tests" / "bench" / "results"
DB = os.environ.get("BENCH_DB", "perfatlas_bench")
TOTAL_RESULTS = int(os.environ.get("BENCH_RESULTS", "1000000"))
RUNS_PER_BATCH = 1000
QUERY_REPEATS = 60
EXACT_REPEATS = 20
OUT = Path(os.environ.get("BENCH_OUT") or RESULTS / (
    "server.json" if TOTAL_RESULTS == 1_000_000 else f"server-{TOTAL_RESULTS // 1_000_000}m.json"
))  # fmt: skip
# Concurrent uploaders and API worker processes (this machine has 2 cores).
UPLOADERS = int(os.environ.get("BENCH_UPLOADERS", "2"))
WORKERS = int(os.environ.get("BENCH_WORKERS", "1"))


class PeakRss:
    """Samples a process's resident memory (children included) every 20 ms."""

    def __init__(self, pid: int) -> None:
        self.proc = psutil.Process(pid)
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                procs = [self.proc, *self.proc.children(recursive=True)]
                self.peak = max(self.peak, sum(p.memory_info().rss for p in procs))
            except psutil.Error:
                pass
            time.sleep(0.02)

    def reset(self) -> None:
        self.peak = 0

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


ANCHOR_PASSES = 3


def copy_anchor(batches: list[bytes]) -> dict[str, Any]:
    """The same run and result rows, COPYed straight into look-alike tables of the same
    database: ANCHOR_PASSES passes, each after a CHECKPOINT (so that no pass pays for the
    ingest's or VACUUM's dirty pages being written out meanwhile), the median pass the anchor.
    One pass right after the ingest measured anywhere from 59k to 108k results/s."""
    passes = [_copy_pass(batches) for _ in range(ANCHOR_PASSES)]
    median = sorted(passes, key=lambda p: p["results_per_s"])[len(passes) // 2]
    return {**median, "passes_results_per_s": [round(p["results_per_s"]) for p in passes]}


def _copy_pass(batches: list[bytes]) -> dict[str, float]:
    with psycopg.connect(admin_dsn(DB), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS anchor_results, anchor_runs")
        conn.execute("CREATE TABLE anchor_runs (LIKE runs INCLUDING ALL)")
        conn.execute("CREATE TABLE anchor_results (LIKE results INCLUDING ALL)")
        conn.execute("CHECKPOINT")
        run_cols = "uuid, body_hash, agent_id, workload, target, parameters, labels, started_at, finished_at, status, meta, created_at"
        res_cols = "run_id, series_id, workload, started_at, run_uuid, environment_id, agent_id, flags, metric, unit, direction, value, samples, n, mean, stdev, min, max, p5, p50, p95, p99"
        # Rows are rendered before the clock starts: the anchor measures the database alone.
        rendered = []
        run_id = 0
        for batch in batches:
            runs_buf, results_buf = io.StringIO(), io.StringIO()
            for run in orjson.loads(batch)["runs"]:
                run_id += 1
                runs_buf.write("\t".join([
                    run["uuid"], "0" * 64, "1", run["workload"], run["target"],
                    json.dumps(run["parameters"]), json.dumps(run["labels"]), run["started_at"],
                    run["finished_at"], "ok", "{}", run["started_at"],
                ]) + "\n")  # fmt: skip
                for r in run["results"]:
                    s = sorted(r["samples"])
                    mean = sum(s) / len(s)
                    results_buf.write("\t".join(map(str, [
                        run_id, 1, run["workload"], run["started_at"], run["uuid"], 1, 1, 0,
                        r["metric"], r["unit"],
                        "higher", s[2], json.dumps(r["samples"]), len(s), mean, 0.0, s[0], s[-1],
                        s[0], s[2], s[-1], s[-1],
                    ])) + "\n")  # fmt: skip
            rendered.append((runs_buf.getvalue(), results_buf.getvalue()))
        rows = 0
        started = time.perf_counter()
        for runs_text, results_text in rendered:
            with conn.transaction(), conn.cursor() as cur:
                with cur.copy(f"COPY anchor_runs ({run_cols}) FROM STDIN") as copy:
                    copy.write(runs_text)
                with cur.copy(f"COPY anchor_results ({res_cols}) FROM STDIN") as copy:
                    copy.write(results_text)
            rows += results_text.count("\n")
        elapsed = time.perf_counter() - started
        conn.execute("DROP TABLE anchor_results, anchor_runs")
    return {"results": rows, "seconds": elapsed, "results_per_s": rows / elapsed}


def timed(client: httpx.Client, path: str, params: Any, repeats: int) -> dict[str, Any]:
    times = []
    body: Any = None
    for _ in range(repeats):
        started = time.perf_counter()
        response = client.get(path, params=params)
        times.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
        body = response.json()
    return {
        "p50_ms": percentile(times, 0.5),
        "p95_ms": percentile(times, 0.95),
        "max_ms": max(times),
        "n": repeats,
        "body": body,
    }


LAG_CASE = "explore_k_by_agent"
LAG_REPEATS = 20


def pending_runs() -> int:
    with psycopg.connect(admin_dsn(DB)) as conn:
        row = conn.execute("SELECT count(*) FROM rollup_pending").fetchone()
    return int(row[0]) if row else -1


def fold_all(env: dict[str, str], *, vacuum: bool = False) -> dict[str, Any]:
    """`perfatlas fold`: every pending run into the rollups, timed (then VACUUM ANALYZE)."""
    pending = pending_runs()
    started = time.perf_counter()
    out = subprocess.run(
        [*PERFATLAS, "fold"], env=env, check=True, capture_output=True, text=True
    ).stdout.strip()
    seconds = time.perf_counter() - started
    with psycopg.connect(admin_dsn(DB), autocommit=True) as conn:
        if vacuum:
            conn.execute("VACUUM ANALYZE")
        row = conn.execute(
            "SELECT count(*), coalesce(sum(count), 0), pg_total_relation_size('explore_rollups'),"
            " (SELECT count(*) FROM run_variants) FROM explore_rollups"
        ).fetchone()
    assert row is not None
    return {
        "runs_pending_before": pending, "seconds": seconds, "output": out,
        "results_folded": int(row[1]), "results_per_s": int(row[1]) / seconds,
        "rollup_rows": int(row[0]), "rollup_mb": round(row[2] / 2**20, 1), "variants": int(row[3]),
    }  # fmt: skip


def _worst_difference(sketched: dict[str, Any], exact: dict[str, Any]) -> float:
    """The largest relative difference of a median, p5 or p95 between two explore answers."""
    worst = 0.0
    for a, b in zip(sketched["traces"], exact["traces"], strict=True):
        for p, q in zip(a["points"], b["points"], strict=True):
            assert (p["x"], p["n"]) == (q["x"], q["n"])
            for stat in ("median", "p5", "p95"):
                worst = max(worst, abs(p[stat] - q[stat]) / abs(q[stat]))
    return worst


def query_phase(client: httpx.Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each explore case as a user asks (sketched past PERFATLAS_EXPLORE_EXACT_RESULTS) and with
    exact=true, then a series' points as the UI asks, each timed: (queries, queries_exact)."""
    queries: dict[str, Any] = {}
    queries_exact: dict[str, Any] = {}
    for name, params in EXPLORE_CASES.items():
        timed(client, "/api/v1/explore", params, 3)  # warm the caches
        result = timed(client, "/api/v1/explore", params, QUERY_REPEATS)
        body = result.pop("body")
        result["rows_aggregated"] = sum(p["n"] for t in body["traces"] for p in t["points"])
        result["traces"] = len(body["traces"])
        # Past PERFATLAS_EXPLORE_EXACT_RESULTS (50,000) the medians are sketched.
        result["approximate"] = body["approximate"]
        # The data must vary along what is grouped, or the case measures nothing.
        assert len(body["traces"]) >= 2, (name, body["traces"])
        queries[name] = result
        # The same with exact=true: every record read, as a user may ask.
        exact = timed(client, "/api/v1/explore", {**params, "exact": "true"}, EXACT_REPEATS)
        exact_body = exact.pop("body")
        assert not exact_body["approximate"]
        exact["worst_relative_difference"] = _worst_difference(body, exact_body)
        queries_exact[name] = exact
    series = client.get(
        "/api/v1/series", params={"workload": "smallfile", "metric": "m0.mb_per_s"}
    ).json()["items"][0]
    # What the UI's series page asks for (frontend/src/features/series/api/).
    points_query = {"limit": SERIES_POINTS, "samples": "false", "fields": "run,p5,p95"}
    timed(client, f"/api/v1/series/{series['id']}/points", points_query, 3)
    result = timed(client, f"/api/v1/series/{series['id']}/points", points_query, QUERY_REPEATS)
    body = result.pop("body")
    # Read from explore's rollups: the newest points of a series whose length grows with what
    # is stored (10,000 points at 1 M results).
    result["points"], result["series_length"] = len(body["value"]), body["series"]["points"]
    queries["series_points_10000"] = result
    return queries, queries_exact


def sizes(db: str = DB) -> dict[str, float]:
    """The database's size and its largest parts, in MB."""
    with psycopg.connect(admin_dsn(db)) as conn:
        row = conn.execute(
            "SELECT pg_database_size(current_database()), pg_total_relation_size('results'),"
            " pg_total_relation_size('runs'), pg_total_relation_size('explore_rollups'),"
            " pg_total_relation_size('explore_digests')"
        ).fetchone()
    assert row is not None
    names = ("database", "results", "runs", "explore_rollups", "explore_digests")
    return {name: round(value / 2**20, 1) for name, value in zip(names, row, strict=True)}


def query_figures(queries: dict[str, Any]) -> dict[str, Any]:
    """The query phase's figures against their targets (requery_server.py re-times them)."""
    explore = max(v["p95_ms"] for k, v in queries.items() if k.startswith("explore"))
    points = queries["series_points_10000"]["p95_ms"]
    return {
        "explore_p95_ms": {"value": round(explore, 1), "target": "<= 100", "met": explore <= 100},
        "series_points_10000_p95_ms": {
            "value": round(points, 1), "target": "<= 15", "met": points <= 15,
        },
    }  # fmt: skip


def growth(report: dict[str, Any]) -> list[dict[str, Any]]:
    """This run beside every committed server run of another size, smallest first: the cost of
    explore, series points, ingest and the database as what is stored grows."""
    runs = [report]
    for path in sorted(RESULTS.glob("server*.json")):
        other = json.loads(path.read_text())
        if path != OUT and other.get("results_stored") != report["results_stored"]:
            runs.append(other)
    rows = []
    for run in sorted(runs, key=lambda r: r["results_stored"]):
        figures = run["figures"]
        rows.append({
            "results_stored": run["results_stored"], "date": run["date"],
            "explore_p95_ms": figures["explore_p95_ms"]["value"],
            "explore_exact_p95_ms": round(max(v["p95_ms"] for v in run["queries_exact"].values()), 1),
            "series_points_10000_p95_ms": figures["series_points_10000_p95_ms"]["value"],
            "ingest_results_per_s": round(run["ingest"]["results_per_s"]),
            "ingest_vs_copy_ratio": figures["ingest_vs_copy_ratio"]["value"],
            "fold_results_per_s": round(run["fold"]["results_per_s"]),
            "api_peak_rss_mb": figures["api_peak_rss_mb"]["value"],
            "database_mb": run["database_mb"]["database"],
        })  # fmt: skip
    return rows


def main() -> int:
    load_before = os.getloadavg()
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}"')
    # Every explore answer computed, none served again (explore/answers.py would answer the
    # repeats from memory: bench_load.py measures that, beside an uncached anchor).
    env = perfatlas_env(DB, free_port(), PERFATLAS_EXPLORE_CACHE_MB="0")
    subprocess.run([*PERFATLAS, "migrate"], env=env, check=True, capture_output=True)
    token = create_token(env, "upload")
    server, base = start_server(env, workers=WORKERS)
    try:
        rss = PeakRss(server.pid)
        rng = random.Random(SEED)
        runs_total = TOTAL_RESULTS // METRICS
        print(f"generating {runs_total} runs ({TOTAL_RESULTS} results)", flush=True)
        # Rendered before the clock starts; past 2,000,000 results spooled to files (10 M
        # results are 15 GB of JSON), each read back as its upload goes out.
        spool = tempfile.TemporaryDirectory(prefix="perfatlas-bench-")
        batches: list[bytes | Path] = []
        for number, s in enumerate(range(0, runs_total, RUNS_PER_BATCH)):
            body = orjson.dumps(
                {"runs": make_runs(min(RUNS_PER_BATCH, runs_total - s), start=s, rng=rng)}
            )
            if TOTAL_RESULTS > 2_000_000:
                path = Path(spool.name) / f"{number}.json"
                path.write_bytes(body)
                batches.append(path)
            else:
                batches.append(body)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        with httpx.Client(base_url=base, headers=headers, timeout=300) as client:
            started = time.perf_counter()
            # UPLOADERS agents upload at once, as machines do; each batch is one request.
            total = len(batches)
            pending = iter(enumerate(batches, 1))
            lock = threading.Lock()
            # When the last tenth of the batches started: the rate as the tables are full.
            last_tenth: list[float] = []

            failures: list[BaseException] = []

            def uploader() -> None:
                while True:
                    with lock:
                        item = next(pending, None) if not failures else None
                    if item is None:
                        return
                    number, batch = item
                    if number == total - total // 10 + 1:
                        last_tenth.append(time.perf_counter())
                    body = batch.read_bytes() if isinstance(batch, Path) else batch
                    try:
                        client.post("/api/v1/runs/batch", content=body).raise_for_status()
                    except httpx.HTTPError as exc:  # every batch must land, or no figure
                        failures.append(exc)
                        return
                    if number % 10 == 0:
                        print(f"  ingested {number}/{total} batches", flush=True)

            threads = [threading.Thread(target=uploader) for _ in range(UPLOADERS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            if failures:
                raise RuntimeError(f"an upload failed: {failures[0]!r}") from failures[0]
            ingest_seconds = time.perf_counter() - started
            tail_seconds = time.perf_counter() - last_tenth[0] if last_tenth else ingest_seconds
        ingest_peak = rss.peak
        ingest = {"results": TOTAL_RESULTS, "runs": runs_total, "seconds": ingest_seconds,
                  "results_per_s": TOTAL_RESULTS / ingest_seconds, "batch_runs": RUNS_PER_BATCH,
                  "results_per_run": METRICS, "samples_per_result": SAMPLES,
                  "concurrent_uploaders": UPLOADERS, "api_workers": WORKERS,
                  "last_tenth_results_per_s": (total // 10) * RUNS_PER_BATCH * METRICS / tail_seconds,
                  }  # fmt: skip
        print(f"ingest: {ingest['results_per_s']:.0f} results/s; COPY anchor...", flush=True)
        with psycopg.connect(admin_dsn(DB), autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        # The same 200,000 results (or a fifth of fewer) whatever the size stored.
        anchor = copy_anchor([
            b.read_bytes() if isinstance(b, Path) else b
            for b in batches[: max(1, min(len(batches) // 5, 200_000 // (RUNS_PER_BATCH * METRICS)))]
        ])  # fmt: skip
        del batches
        spool.cleanup()

        rss.reset()
        read_token = create_token(env, "read")
        lagging: dict[str, Any] = {}
        with httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {read_token}"}, timeout=60
        ) as client:
            # The worst lag: nothing folded yet, every run read from its results.
            name, params = LAG_CASE, EXPLORE_CASES[LAG_CASE]
            timed(client, "/api/v1/explore", params, 3)
            lagging[name] = timed(client, "/api/v1/explore", params, LAG_REPEATS)
            lagging[name]["pending_runs"] = pending_runs()
            lagging[name]["rows_aggregated"] = sum(
                p["n"] for t in lagging[name].pop("body")["traces"] for p in t["points"]
            )
            # What the worker's fold task does after uploads, all at once and timed.
            fold = fold_all(env)
            print(f"fold: {fold}", flush=True)
            with psycopg.connect(admin_dsn(DB), autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE")
            fold["pending_runs_when_explore_measured"] = pending_runs()
            queries, queries_exact = query_phase(client)
            queries["series_points_long"] = long_series_phase(
                base, token, client, lambda: fold_all(env, vacuum=True)
            )
        query_peak = rss.stop()
        database_mb = sizes()
    finally:
        server.terminate()
        server.wait(timeout=20)
    ratio = ingest["results_per_s"] / anchor["results_per_s"]
    report = {
        "benchmark": "server",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "ram_gib": round(psutil.virtual_memory().total / 2**30, 1),
            "python": platform.python_version(),
            "kernel": platform.release(),
            "postgresql": pg_settings(),
        },
        "results_stored": TOTAL_RESULTS,
        "database_mb": database_mb,
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "ingest": ingest,
        "copy_anchor": anchor,
        # Explore reads rollups (explore/rolled.py): the fold of every uploaded run, timed after
        # the uploads, then the queries with nothing pending; and one case before the fold.
        "fold": fold,
        "queries": queries,
        "queries_exact": queries_exact,
        "queries_before_fold": lagging,
        "api_peak_rss_mb": {
            "ingest": round(ingest_peak / 2**20, 1),
            "queries": round(query_peak / 2**20, 1),
        },
        "figures": {
            "ingest_vs_copy_ratio": {
                "value": round(ratio, 3),
                "target": ">= 0.35",
                "met": ratio >= 0.35,
            },
            **query_figures(queries),
            "api_peak_rss_mb": {
                "value": round(max(ingest_peak, query_peak) / 2**20, 1),
                "target": "<= 256",
                "met": max(ingest_peak, query_peak) <= 256 * 2**20,
            },
        },
    }
    committed = RESULTS / "server.json"
    if committed != OUT and committed.exists():
        # The anchor of growth: the committed 1,000,000-result run's figures.
        report["figures_at_1m"] = json.loads(committed.read_text())["figures"]
    report["growth"] = growth(report)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["figures"], indent=2))
    # The database stays: later benchmarks (the UI's) read the same 1,000,000 results.
    return 0


if __name__ == "__main__":
    sys.exit(main())
