"""Memory under concurrent large uploads: twenty 30 MB `/runs/batch` bodies at once against one
`perfatlas serve` on a fresh PostgreSQL database, the API's resident size sampled every 20 ms.
Run in the same go against the server before large batches were stored from their bytes
(BEFORE, its backend taken from git into a temporary folder: the anchor) and this tree's: each
with the body budget off (PERFATLAS_MAX_INFLIGHT_BODY_BYTES=0), with its default (32 MiB), and
one upload alone (what a single 30 MB body costs whatever the bound). A client sends a body
again after a 503's Retry-After, as the agent does, so every upload ends stored. The target is
this tree's peak with the default budget; `rss_after_mb` is 5 s after the last answer.

Writes tests/bench/results/upload_memory.json."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import random
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import psutil
import psycopg

# Run as a script: its own folder is on sys.path.
from common import (
    PERFATLAS,
    admin_dsn,
    create_token,
    free_port,
    perfatlas_env,
    start_server,
    stop_process,
)

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "tests" / "bench" / "results" / "upload_memory.json"
DB = "perfatlas_bench_upload_memory"
UPLOADS = int(os.environ.get("BENCH_UPLOADS", "20"))
BODY_MB = float(os.environ.get("BENCH_BODY_MB", "30"))
TARGET_MB = 256
# The commit before runs/large_batch.py: the anchor's server.
BEFORE = os.environ.get("BENCH_BEFORE", "d8811db")


def body(index: int, rng: random.Random) -> bytes:
    """About BODY_MB of one batch: 1,000 runs, each two results with their samples."""
    per_run = int(BODY_MB * 1e6 / 1000)
    samples = max(1, (per_run - 700) // 2 // 19)
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=index)
    runs = [
        {
            "uuid": str(uuid.uuid4()),
            "workload": "smallfile",
            "agent": f"mem-{index % 4}",
            "target": f"/mnt/t{i % 10}",
            "parameters": {"nfiles": 1000, "fsync": "file"},
            "labels": {"batch": str(index)},
            "started_at": (t0 + dt.timedelta(seconds=i)).isoformat(),
            "results": [
                {
                    "metric": m,
                    "unit": "ops/s",
                    "direction": "higher",
                    "samples": [rng.uniform(900, 1100) for _ in range(samples)],
                }
                for m in ("create.ops_per_s", "stat.ops_per_s")
            ],
        }
        for i in range(1000)
    ]
    return json.dumps({"runs": runs}).encode()


def fresh_database() -> None:
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}"')


def before_tree() -> Path:
    """BEFORE's backend and agent, from git, in a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="bench-upload-memory-"))
    archive = subprocess.run(
        ["git", "archive", BEFORE, "backend", "agent", "migrations", "alembic.ini"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def run_mode(
    name: str, budget: int | None, bodies: list[bytes], tree: Path | None = None
) -> dict[str, Any]:
    fresh_database()
    port = free_port()
    extra = {"PERFATLAS_BROKER_URL": "memory://", "PERFATLAS_DETECT_ON_INGEST": "false"}
    if budget is not None:
        extra["PERFATLAS_MAX_INFLIGHT_BODY_BYTES"] = str(budget)
    if tree is not None:
        extra["PYTHONPATH"] = f"{tree}/backend:{tree}/agent/src"
    env = perfatlas_env(DB, port, **extra)
    subprocess.run([*PERFATLAS, "migrate"], env=env, check=True, capture_output=True)
    token = create_token(env, "upload")
    server, base = start_server(env)
    proc = psutil.Process(server.pid)
    idle = proc.memory_info().rss
    peak = idle
    sampling = True

    def sample() -> None:
        nonlocal peak
        while sampling:
            peak = max(peak, proc.memory_info().rss)
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    busy = 0
    lock = threading.Lock()

    def send(data: bytes) -> float:
        nonlocal busy
        started = time.monotonic()
        with httpx.Client(timeout=600) as client:
            while True:
                answer = client.post(
                    f"{base}/api/v1/runs/batch",
                    content=data,
                    headers={
                        "Authorization": f"Bearer {token}",
                        "Content-Type": "application/json",
                    },
                )
                if answer.status_code != 503:
                    break
                with lock:
                    busy += 1
                time.sleep(float(answer.headers.get("retry-after", "1")))
        assert answer.status_code == 200, answer.text[:300]
        assert answer.json()["created"] == 1000
        return time.monotonic() - started

    cpu_before = proc.cpu_times()
    started = time.monotonic()
    with ThreadPoolExecutor(len(bodies)) as pool:
        latencies = list(pool.map(send, bodies))
    wall = time.monotonic() - started
    cpu = proc.cpu_times()
    sampling = False
    sampler.join()
    time.sleep(5)  # what the process keeps once the uploads are over
    after = proc.memory_info().rss
    with psycopg.connect(admin_dsn(DB)) as conn:
        stored = conn.execute("SELECT count(*), count(DISTINCT uuid) FROM runs").fetchone()
    stop_process(server)
    assert stored == (1000 * len(bodies), 1000 * len(bodies)), stored
    return {
        "mode": name,
        "server": BEFORE if tree is not None else "this tree",
        "max_inflight_body_bytes": budget,
        "rss_idle_mb": round(idle / 2**20, 1),
        "rss_peak_mb": round(peak / 2**20, 1),
        "rss_after_mb": round(after / 2**20, 1),
        "wall_s": round(wall, 1),
        "upload_latency_s": {"min": round(min(latencies), 2), "max": round(max(latencies), 2)},
        "busy_503s": busy,
        "runs_stored_once": stored[1],
        "api_cpu_s": round((cpu.user + cpu.system) - (cpu_before.user + cpu_before.system), 1),
    }


def main() -> None:
    rng = random.Random(41)
    bodies = [body(i, rng) for i in range(UPLOADS)]
    sizes = [len(b) for b in bodies]
    before = before_tree()
    # Each mode stores the same bodies into a fresh database.
    try:
        modes = [
            run_mode("before: unbounded (anchor)", 0, bodies, before),
            run_mode("before: budget (default)", None, bodies, before),
            run_mode("before: one upload alone", None, bodies[:1], before),
            run_mode("after: budget (default)", None, bodies),
            run_mode("after: unbounded", 0, bodies),
            run_mode("after: one upload alone", None, bodies[:1]),
        ]
    finally:
        shutil.rmtree(before)
    out = {
        "benchmark": "upload_memory",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip(),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "loadavg_start": os.getloadavg(),
        },
        "setup": {
            "uploads_at_once": UPLOADS,
            "body_mb": round(sum(sizes) / len(sizes) / 1e6, 1),
            "runs_per_body": 1000,
            "target_peak_mb": TARGET_MB,
        },
        "modes": modes,
        "target_met": modes[3]["rss_peak_mb"] <= TARGET_MB,
    }
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
