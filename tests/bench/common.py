"""What the benchmark scripts share: the PostgreSQL server, free ports, percentiles, the seeded
runs (bench_server.py stores them, bench_load.py reuses them), the explore cases timed over them,
starting a `perfatlas serve` on a database and a `perfatlas worker` on a Redis queue of its own,
and a webhook receiver in the benchmark's process."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import orjson
import psycopg
import redis

from perfatlas.core.stats import quantile

if os.environ.get("BENCH_PG") == "tuned":
    # The benchmarks' own cluster, set as docs/deployment.md advises (pgcluster.py), not the machine's.
    import pgcluster

    os.environ["PERFATLAS_TEST_PG"] = pgcluster.up()
PG = os.environ.get("PERFATLAS_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432")
PERFATLAS = [sys.executable, "-m", "perfatlas"]
REDIS_URL = os.environ.get("PERFATLAS_TEST_REDIS", "redis://127.0.0.1:6379/0")

# The seeded database: METRICS results of SAMPLES samples per run; the first SERIES_POINTS runs
# are one configuration (10,000-point series), the rest sweep SWEEP_WORKLOADS on 8 agents.
METRICS = 10
SAMPLES = 5
T0 = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
# Between two seeded runs' starts: 3,000,000 runs (30 M results) end in June 2026, before now
# (the server refuses a run that starts more than a day ahead; at a minute apart they did not).
SPACING = dt.timedelta(seconds=15)
SWEEP_WORKLOADS = ("partialread", "seqio", "extract", "treeops")
SERIES_POINTS = 10_000
FS_TYPES = ("ext4", "xfs", "btrfs")
SEED_AGENTS = 8
K_VALUES = (1, 2, 3, 5, 10, 20, 30, 40, 50, 60)
SEGSIZES = (32768, 131072, 1048576)
VERSIONS = ("1.7.1", "1.8.2", "trunk")
SEED = 20261121  # of the random numbers of the seeded runs

# Explore requests over the seeded runs, as the UI asks them.
EXPLORE_CASES: dict[str, dict[str, str]] = {
    "explore_k_by_version": {
        "workload": "partialread", "metric": "m0.mb_per_s", "x": "k", "group": "version"},
    "explore_segsize_by_agent_filtered": {
        "workload": "seqio", "metric": "m3.mb_per_s", "x": "segsize", "group": "agent",
        "filter": "version:trunk"},
    "explore_version_by_k": {
        "workload": "extract", "metric": "m5.mb_per_s", "x": "version", "group": "k"},
    # Dimensions from the agents and environments tables, joined from results.
    "explore_k_by_agent": {
        "workload": "treeops", "metric": "m1.mb_per_s", "x": "k", "group": "agent"},
    "explore_fs_type_by_agent": {
        "workload": "partialread", "metric": "m2.mb_per_s", "x": "fs_type", "group": "agent"},
    "explore_segsize_by_fs_type": {
        "workload": "extract", "metric": "m4.mb_per_s", "x": "segsize", "group": "fs_type",
        "filter": "version:1.8.2"},
}  # fmt: skip


def admin_dsn(db: str = "postgres") -> str:
    return PG.replace("postgresql+psycopg://", "postgresql://") + "/" + db


# The settings docs/deployment.md (Running big) names: the figures depend on them.
PG_SETTINGS = ("shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem",
               "max_wal_size", "synchronous_commit", "autovacuum")  # fmt: skip


def pg_settings(db: str = "postgres") -> dict[str, str]:
    """The server's PG_SETTINGS, and which server: the machine's or the benchmarks' own."""
    with psycopg.connect(admin_dsn(db)) as conn:
        found = dict(conn.execute(
            "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY(%s)",
            [list(PG_SETTINGS)],
        ).fetchall())  # fmt: skip
        found["version"] = str(conn.info.server_version)
    found["server"] = "tuned" if os.environ.get("BENCH_PG") == "tuned" else "the machine's"
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation, as the server's summaries and PostgreSQL's percentile_cont."""
    return quantile(sorted(values), q)


def sweep_run(
    *, agent: str, workload: str, params: dict[str, Any], started: dt.datetime, rng: Any,
    metrics: int = METRICS, scale: float = 1.0, labels: dict[str, str] | None = None,
    fs_type: str = "ext4", target: str = "/mnt/bench",
) -> dict[str, Any]:  # fmt: skip
    """One run as an agent uploads it: `metrics` results of SAMPLES samples around a level set by
    the parameters (times `scale`), 5 % noise."""
    base = scale * 100.0 / (1 + params.get("k", 1) / 30)
    if labels is None:
        labels = {"version": rng.choice(VERSIONS)}
    return {
        "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "workload": workload,
        "agent": agent,
        "target": target,
        "parameters": params,
        "labels": labels,
        "started_at": started.isoformat(),
        "finished_at": (started + dt.timedelta(seconds=20)).isoformat(),
        "fsync_policy": "none",
        "cold_method": "drop_caches",
        "environment": {"hostname": agent, "kernel": "6.1.0", "fs_type": fs_type, "cores": 2},
        "results": [
            {
                "metric": f"m{m}.mb_per_s",
                "unit": "MB/s",
                "samples": [round(base * (1 + 0.05 * rng.random()), 3) for _ in range(SAMPLES)],
            }
            for m in range(metrics)
        ],
    }


def make_runs(count: int, *, start: int, rng: Any) -> list[dict[str, Any]]:
    """Runs number start .. start+count-1 of the seeded database."""
    runs = []
    for i in range(start, start + count):
        started = T0 + i * SPACING
        slot = i // len(SWEEP_WORKLOADS)
        fs_type = FS_TYPES[slot % len(FS_TYPES)]
        if i < SERIES_POINTS:
            # One configuration run 10,000 times: every metric of it is a 10,000-point series.
            params: dict[str, Any] = {"nfiles": 1000, "size": "30B"}
            runs.append(sweep_run(agent="host-0", workload="smallfile", params=params,
                                  started=started, rng=rng, labels={"version": f"1.{i // 1000}"},
                                  fs_type=fs_type))  # fmt: skip
            continue
        params = {"k": rng.choice(K_VALUES), "segsize": rng.choice(SEGSIZES)}
        # Every sweep workload on every agent, several filesystems per agent (grouping by
        # fs_type, another table, is measured over real variety).
        runs.append(sweep_run(
            agent=f"host-{slot % SEED_AGENTS}", workload=SWEEP_WORKLOADS[i % len(SWEEP_WORKLOADS)],
            params=params, started=started, rng=rng, fs_type=fs_type,
        ))  # fmt: skip
    return runs


def perfatlas_env(db: str, port: int, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PERFATLAS_DATABASE_URL": f"{PG}/{db}",
        "PERFATLAS_PORT": str(port),
        "PERFATLAS_MAX_BODY_BYTES": str(64 * 2**20),
        **extra,
    }


def create_token(env: dict[str, str], scope: str) -> str:
    return subprocess.run(
        [*PERFATLAS, "token", "create", "--scope", scope, "-q"],
        env=env, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip


def start_server(env: dict[str, str], *, workers: int = 1) -> tuple[subprocess.Popen[bytes], str]:
    """`perfatlas serve` on the env's database and port (migrated already), once it answers."""
    server = subprocess.Popen(
        [*PERFATLAS, "serve", "--no-migrate", "--workers", str(workers)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{env['PERFATLAS_PORT']}"
    for _ in range(600):
        try:
            if httpx.get(f"{base}/api/v1/health").status_code == 200:
                return server, base
        except httpx.TransportError:
            pass
        if server.poll() is not None:
            break
        time.sleep(0.1)
    server.terminate()
    raise RuntimeError(f"perfatlas serve did not answer at {base}")


def seed_database(db: str, results: int, *, uploaders: int = 2, batch: int = 1000) -> None:
    """(Re)create `db` and store the seeded runs' first `results` results through the API, as
    bench_server.py does (on-upload detection off), then VACUUM ANALYZE."""
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{db}"')
    env = perfatlas_env(db, free_port(), PERFATLAS_DETECT_ON_INGEST="false")
    subprocess.run([*PERFATLAS, "migrate"], env=env, check=True, capture_output=True)
    server, base = start_server(env)
    runs_total, rng, lock = results // METRICS, random.Random(SEED), threading.Lock()
    starts = iter(range(0, runs_total, batch))
    print(f"seeding {db}: {results} results through the API", flush=True)

    def upload(client: httpx.Client) -> None:
        while True:
            with lock:  # the runs are generated in order, as bench_server's
                start = next(starts, None)
                if start is None:
                    return
                runs = make_runs(min(batch, runs_total - start), start=start, rng=rng)
            client.post(
                "/api/v1/runs/batch", content=orjson.dumps({"runs": runs})
            ).raise_for_status()
            if (start // batch) % 100 == 0:
                print(f"  {start * METRICS} results", flush=True)

    try:
        headers = {"Authorization": f"Bearer {create_token(env, 'upload')}"}
        with httpx.Client(base_url=base, headers=headers, timeout=300) as client:
            threads = [threading.Thread(target=upload, args=(client,)) for _ in range(uploaders)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        server.terminate()
        server.wait(timeout=20)
    # What a worker does after the uploads: the runs folded into explore's rollups, so that the
    # benchmarks that follow read them as a deployment that keeps up does.
    subprocess.run([*PERFATLAS, "fold"], env=env, check=True, capture_output=True)
    with psycopg.connect(admin_dsn(db), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def start_worker(
    env: dict[str, str], log_path: Path, *, timeout: float = 120, concurrency: int = 1
) -> subprocess.Popen[bytes]:
    """`perfatlas worker` (with its beat; `concurrency` tasks at once) on the env's database and
    queue, once it answers `perfatlas ping`; its output goes to log_path."""
    command = [*PERFATLAS, "worker", "--concurrency", str(concurrency)]
    with log_path.open("wb") as log:
        worker = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    ping = [*PERFATLAS, "ping", "--timeout", "2"]
    deadline = time.time() + timeout
    while subprocess.run(ping, env=env, capture_output=True).returncode != 0:
        if worker.poll() is not None or time.time() > deadline:
            stop_process(worker)
            raise SystemExit(f"the worker did not answer; its log: {log_path}")
        time.sleep(0.5)
    return worker


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def drop_queues(queue: str) -> None:
    """A benchmark's Celery queues in Redis (queue, queue.notify) and kombu's bindings of them."""
    broker = redis.Redis.from_url(REDIS_URL)
    if keys := [*broker.scan_iter(f"{queue}*"), *broker.scan_iter(f"_kombu.binding*{queue}*")]:
        broker.delete(*keys)
    broker.close()


class Receiver(BaseHTTPRequestHandler):
    """The webhook channel: keeps every notification with the time it arrived."""

    received: list[tuple[float, dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Receiver.received.append((time.time(), json.loads(body or b"{}")))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def serve_webhook() -> ThreadingHTTPServer:
    """Receiver on 127.0.0.1 (a free port), served by a thread of this process."""
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    return receiver
