"""Load benchmark on PostgreSQL and Redis, from separate client processes on loopback:

1. BENCH_LOAD_UPLOADERS (50) agents' uploaders post `POST /runs/batch` (10 runs × 5 metrics,
   into the seeded agents' series) without pause for BENCH_LOAD_UPLOAD_SECONDS (60): latency
   p50/p95/p99, runs/s, errors by kind (connection errors apart);
2. meanwhile one upload plants a step in a series of its own, and a webhook channel (a receiver
   in this process) times how long after that upload the notification arrives; the detection
   backlog (detection_requests rows, the Redis queues' lengths) is sampled every second;
3. the same uploaders paced, one upload every BENCH_LOAD_PACED_INTERVAL (4) s each for
   BENCH_LOAD_PACED_SECONDS (30), latency counted from when each upload was due: an upload's
   latency when the machine is not saturated. Both upload phases say where the CPU went (the
   API server, the worker, the clients, the rest of the machine: PostgreSQL, mostly), per batch;
4. BENCH_LOAD_READERS (50) Explore readers for BENCH_LOAD_READ_SECONDS (30) over bench_server's
   explore cases on BENCH_LOAD_RESULTS (10,000,000) seeded results (how many answers were kept
   ones: explore/answers.py), then the same readers on a second server that keeps no answer
   (PERFATLAS_EXPLORE_CACHE_MB=0), the anchor.

BENCH_LOAD_HOLD_WORKER=1 stops the worker through phase 1 (see HOLD_WORKER).

A real `perfatlas serve` and `perfatlas worker` (its own Redis queue) serve it. The database is
perfatlas_bench_load, seeded through the API like bench_server's (same runs) and kept for the
next run; BENCH_LOAD_DB names another one to use as it is (bench_server's perfatlas_bench)
when it holds BENCH_LOAD_RESULTS seeded results. Writes tests/bench/results/load.json (or
BENCH_LOAD_OUT)."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import psycopg
import redis

# Run as a script: its own folder is on sys.path.
from common import (
    EXPLORE_CASES,
    PERFATLAS,
    REDIS_URL,
    Receiver,
    admin_dsn,
    create_token,
    drop_queues,
    free_port,
    perfatlas_env,
    pg_settings,
    seed_database,
    serve_webhook,
    start_server,
    start_worker,
    stop_process,
    sweep_run,
)
from loadgen import clients, cpu_seconds, gather, summary
from long_series import AGENT as LONG_SERIES_AGENT

HERE = Path(__file__).resolve().parent
OUT = Path(os.environ.get("BENCH_LOAD_OUT", HERE / "results" / "load.json"))
DB = os.environ.get("BENCH_LOAD_DB", "perfatlas_bench_load")
OWN_DB = "BENCH_LOAD_DB" not in os.environ
SEEDED = int(os.environ.get("BENCH_LOAD_RESULTS", "10000000"))
UPLOADERS = int(os.environ.get("BENCH_LOAD_UPLOADERS", "50"))
UPLOAD_SECONDS = float(os.environ.get("BENCH_LOAD_UPLOAD_SECONDS", "60"))
READERS = int(os.environ.get("BENCH_LOAD_READERS", "50"))
READ_SECONDS = float(os.environ.get("BENCH_LOAD_READ_SECONDS", "30"))
CLIENT_PROCS = int(os.environ.get("BENCH_LOAD_CLIENT_PROCS", "2"))
API_WORKERS = int(os.environ.get("BENCH_LOAD_API_WORKERS", "1"))
# Tasks the worker runs at once (processes; 1: the solo pool). 4: what docker-compose.yml runs.
WORKER_CONCURRENCY = int(os.environ.get("BENCH_LOAD_WORKER_CONCURRENCY", "4"))
# The upload that plants the step goes out this far into the upload load.
PLANT_AT = float(os.environ.get("BENCH_LOAD_PLANT_AT", str(UPLOAD_SECONDS / 6)))
# The paced upload phase: each uploader uploads every PACED_INTERVAL s (50 / 4 s: 12.5 batches,
# 125 runs a second, about a fifth of what the unpaced load reaches here).
PACED_SECONDS = float(os.environ.get("BENCH_LOAD_PACED_SECONDS", "30"))
PACED_INTERVAL = float(os.environ.get("BENCH_LOAD_PACED_INTERVAL", "4"))
NOTIFY_WAIT = float(os.environ.get("BENCH_LOAD_NOTIFY_WAIT", "180"))
# BENCH_LOAD_HOLD_WORKER=1: the worker's processes stopped (SIGSTOP) through the unpaced upload
# load and let go after it. A bound, not a way to run: what the uploads reach with no background
# work beside them (the checks, and so the notification, wait until the load is over).
HOLD_WORKER = os.environ.get("BENCH_LOAD_HOLD_WORKER", "0") == "1"
AGENTS = 8  # the seeded agents host-0 .. host-7: uploads extend their series
RUNS_PER_BATCH, LOAD_METRICS = 10, 5
TARGETS = {"upload_p99_ms": 500, "notify_delay_s": 60, "explore_p99_ms": 1000}


def seeded_results(db: str) -> int | None:
    """Results in `db` that the seeding stored (not this benchmark's uploads, nor the long series
    bench_server adds after its seeding: tests/bench/long_series.py); None if no db."""
    try:
        with psycopg.connect(admin_dsn(db)) as conn:
            row = conn.execute(
                "SELECT count(*) FROM results WHERE run_id IN "
                "(SELECT id FROM runs WHERE NOT (meta ? 'bench_load') AND agent_id NOT IN"
                " (SELECT id FROM agents WHERE name = %s))",
                (LONG_SERIES_AGENT,),
            ).fetchone()
    except psycopg.Error:
        return None
    return int(row[0]) if row else 0


def prepare_database() -> dict[str, Any]:
    """Use DB as it is when it holds SEEDED seeded results; else (our own DB only) seed it."""
    found = seeded_results(DB)
    if found == SEEDED:
        print(f"reusing {DB}: {found} seeded results", flush=True)
        return {"seeded_now": False}
    if not OWN_DB:
        held = "is missing" if found is None else f"holds {found} seeded results"
        raise SystemExit(f"BENCH_LOAD_DB={DB} {held}, not BENCH_LOAD_RESULTS={SEEDED}")
    started = time.perf_counter()
    seed_database(DB, SEEDED)
    if seeded_results(DB) != SEEDED:
        raise SystemExit(f"seeding {DB} stored {seeded_results(DB)} results, not {SEEDED}")
    return {"seeded_now": True, "seed_seconds": time.perf_counter() - started}


class Backlog(threading.Thread):
    """Every second: pending detection requests and the Redis queues' lengths (work, notify)."""

    def __init__(self, queues: list[str]) -> None:
        super().__init__(daemon=True)
        self.queues, self.stop = queues, threading.Event()
        self.samples: list[dict[str, float]] = []

    def run(self) -> None:
        broker = redis.Redis.from_url(REDIS_URL)
        with psycopg.connect(admin_dsn(DB), autocommit=True) as conn:
            while not self.stop.is_set():
                row = conn.execute(
                    "SELECT (SELECT count(*) FROM detection_requests),"
                    " (SELECT count(*) FROM rollup_pending)"
                ).fetchone()
                requests, folds = row if row else (0, 0)
                sample = {"t": time.time(), "detection_requests": requests, "fold_pending": folds}
                for name, queue in zip(("work", "notify"), self.queues, strict=True):
                    sample[f"queue_{name}"] = broker.llen(queue)
                self.samples.append(sample)
                self.stop.wait(1.0)

    def drained(self, until: float, *, folds: bool = False) -> float | None:
        """When no check waits any more (nor, with `folds`, any run for its fold), by `until`."""

        def done() -> float | None:
            last = self.samples[-1] if self.samples else None
            if last is None or last["detection_requests"] or (folds and last["fold_pending"]):
                return None
            return time.time()

        return wait_for(done, until)


def planted_runs(
    agent: str, tag: str, *, first: int, count: int, scale: float
) -> list[dict[str, Any]]:
    """Points of the planted series: one configuration of `agent`, level 100 × `scale`; the step's
    runs carry a new version label, as a new release that slows the workload would."""
    rng, t0 = random.Random(f"{tag}{first}"), dt.datetime.now(dt.UTC) - dt.timedelta(hours=2)
    version = f"{tag}-{'a' if scale == 1.0 else 'b'}"
    runs = [sweep_run(agent=agent, workload="seqio", params={"k": 10, "segsize": 131072},
                      started=t0 + dt.timedelta(minutes=i), rng=rng, metrics=LOAD_METRICS,
                      scale=scale, labels={"version": version})
            for i in range(first, first + count)]  # fmt: skip
    return [{**run, "meta": {"bench_load": tag}} for run in runs]


def machine_cpu() -> float:
    """Busy CPU seconds so far of the whole machine (every core, every process: a PostgreSQL
    backend that exits takes its own count with it, the machine's does not)."""
    times = psutil.cpu_times()
    return (
        sum(times)
        - times.idle
        - getattr(times, "iowait", 0.0)
        - getattr(times, "steal", 0.0)  # the hypervisor's, not ours
        - getattr(times, "guest", 0.0)
        - getattr(times, "guest_nice", 0.0)
    )


def start_uploads(
    base: str, token: str, tag: str, seconds: float, interval: float = 0.0
) -> tuple[list[Any], float]:
    """The uploaders, in the client processes: unpaced, or an upload every `interval` s each."""
    start_at = time.time() + 3
    orders = {"base": base, "token": token, "start_at": start_at,
              "deadline": start_at + seconds, "tag": tag, "interval": interval,
              "runs_per_batch": RUNS_PER_BATCH, "metrics": LOAD_METRICS}  # fmt: skip
    # Seeded by the run's tag: a run on a reused database makes new uuids.
    workers = [{"agent": f"host-{u % AGENTS}", "seed": f"{tag}-{u}"} for u in range(UPLOADERS)]
    paced = f", one upload every {interval:g} s each" if interval else ""
    print(f"upload load: {UPLOADERS} uploaders{paced}, {seconds:.0f} s", flush=True)
    return clients("upload", orders, workers, CLIENT_PROCS), start_at


def cpu_split(procs_cpu: list[Any], before: list[float]) -> dict[str, float]:
    """CPU seconds since `before` (from cpu_now) of the server, the worker and the machine."""
    now = cpu_now(procs_cpu)
    return {f"{name}_cpu_s": round(b - a, 1)
            for name, a, b in zip(("server", "worker", "machine"), before, now, strict=True)}  # fmt: skip


def cpu_now(procs_cpu: list[Any]) -> list[float]:
    return [*(cpu_seconds(p) for p in procs_cpu), machine_cpu()]


def paced_phase(
    base: str, tokens: dict[str, str], tag: str, procs_cpu: list[Any]
) -> dict[str, Any]:
    """The same uploaders, each uploading every PACED_INTERVAL s: the latency of an upload when
    the machine is not saturated (the unpaced load's latency is mostly queueing)."""
    cpu0 = cpu_now(procs_cpu)
    procs, _ = start_uploads(base, tokens["upload"], f"{tag}-paced", PACED_SECONDS, PACED_INTERVAL)
    paced = gather(procs)
    return {**paced, **cpu_split(procs_cpu, cpu0)}


@contextlib.contextmanager
def held(proc: subprocess.Popen[bytes], hold: bool) -> Iterator[None]:
    """With `hold`, `proc` and its children stopped inside the block (BENCH_LOAD_HOLD_WORKER)."""
    stopped = []
    if hold:
        parent = psutil.Process(proc.pid)
        stopped = [parent, *parent.children(recursive=True)]
        for each in stopped:
            each.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        for each in stopped:
            each.send_signal(signal.SIGCONT)


def upload_phase(
    base: str, tokens: dict[str, str], tag: str, planted: str, procs_cpu: list[Any]
) -> dict[str, Any]:
    """The upload load from the client processes; this process plants the step at PLANT_AT."""
    cpu0 = cpu_now(procs_cpu)
    _, worker = procs_cpu  # the server's and the worker's processes
    with held(worker, HOLD_WORKER):
        procs, start_at = start_uploads(base, tokens["upload"], tag, UPLOAD_SECONDS)
        time.sleep(max(0.0, start_at + PLANT_AT - time.time()))
        # The upload that makes the change: the step's run and nine more at the new level.
        step = planted_runs(planted, tag, first=30, count=10, scale=0.8)
        with httpx.Client(base_url=base, timeout=120) as client:
            client.post("/api/v1/runs/batch", json={"runs": step},
                        headers={"Authorization": f"Bearer {tokens['upload']}"}).raise_for_status()  # fmt: skip
        planted_at = time.time()
        upload = gather(procs)
    upload["start_at"], upload["planted_at"], upload["end_at"] = start_at, planted_at, time.time()
    upload["step_run"] = step[0]["uuid"]
    return {**upload, **cpu_split(procs_cpu, cpu0)}


def explore_phase(base: str, token: str) -> dict[str, Any]:
    """Each case once (warm, and its traces counted), then the readers from client processes."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, timeout=120, headers=headers) as client:
        traces = {
            name: len(client.get("/api/v1/explore", params=p).raise_for_status().json()["traces"])
            for name, p in EXPLORE_CASES.items()
        }
    start_at = time.time() + 3
    orders = {"base": base, "token": token, "start_at": start_at,
              "deadline": start_at + READ_SECONDS, "cases": EXPLORE_CASES}  # fmt: skip
    print(f"explore load: {READERS} readers, {READ_SECONDS:.0f} s", flush=True)
    explore = gather(
        clients("explore", orders, [{"number": n} for n in range(READERS)], CLIENT_PROCS)
    )
    explore["traces"] = traces
    return explore


def wait_for(what: Any, until: float) -> float | None:
    """Poll `what()` every 0.5 s until it gives a time (returned) or `until` passes."""
    while (found := what()) is None and time.time() < until:
        time.sleep(0.5)
    return found  # type: ignore[no-any-return]


def planted_alert(step_run: str) -> dict[str, Any] | None:
    """The notified alert of the planted series (its agent is named planted-…), if any."""
    for _, payload in list(Receiver.received):
        for alert in payload.get("alerts") or []:
            if alert.get("agent", "").startswith("planted-"):
                return {"change_run_is_step": alert["change_run"]["uuid"] == step_run,
                        "change_pct": alert["change_pct"], "event": payload["event"]}  # fmt: skip
    return None


def figure(value: Any, target: str, met: bool, **extra: Any) -> dict[str, Any]:
    return {"value": value, "target": target, "met": met, **extra}


def report_phase(d: dict[str, Any]) -> dict[str, Any]:
    connection = sum(n for k, n in d["errors"].items() if k.startswith("connection"))
    keep = ("seconds", "ok", "errors", "client_processes", "client_cpu_s",
            "client_cpu_pct_of_one_core", "cache")  # fmt: skip
    return {**{k: d[k] for k in keep}, "connection_errors": connection}


def cpu_report(upload: dict[str, Any]) -> dict[str, Any]:
    """Where an upload phase's CPU went, in seconds and per batch: the API server, the worker,
    the clients, and the rest of the machine's (PostgreSQL, mostly)."""
    seconds = {n: upload[f"{n}_cpu_s"] for n in ("server", "worker", "client")}
    seconds["postgres_and_rest"] = round(upload["machine_cpu_s"] - sum(seconds.values()), 1)
    batches = max(1, upload["ok"])
    return {
        **{f"{n}_cpu_s": v for n, v in seconds.items()},
        "cpu_ms_per_batch": {n: round(1000 * v / batches, 1) for n, v in seconds.items()},
        "machine_cores_busy": round(upload["machine_cpu_s"] / upload["seconds"], 2),
    }


def build_report(
    upload: dict[str, Any], paced: dict[str, Any], explore: dict[str, Any],
    noticed: float | None, drained: float | None, samples: list[dict[str, float]],
) -> dict[str, Any]:  # fmt: skip
    with psycopg.connect(admin_dsn(DB)) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM results), pg_database_size(current_database())"
        ).fetchone()
    results, size = row if row else (None, 0)
    up = summary(upload["latencies"].get("upload", []))
    paced_up = summary(paced["latencies"].get("upload", []))
    reads = summary([v for values in explore["latencies"].values() for v in values])
    delay = noticed - upload["planted_at"] if noticed is not None else None
    alert = planted_alert(upload["step_run"])
    right_alert = alert is not None and alert["change_run_is_step"]

    phase = report_phase
    return {
        "benchmark": "load",
        "database": {
            "name": DB,
            "results": results,
            "seeded_results": SEEDED,
            "size_mb": round(size / 2**20),
        },
        "setup": {
            "api_workers": API_WORKERS,
            "worker": f"perfatlas worker (concurrency {WORKER_CONCURRENCY}, beat)",
            "worker_held_through_upload": HOLD_WORKER,
            "keepalive_seconds": int(os.environ.get("PERFATLAS_KEEPALIVE_SECONDS", "75")),
            "notify_delay_seconds": float(os.environ.get("PERFATLAS_NOTIFY_DELAY_SECONDS", "30")),
            "postgresql": pg_settings(DB),
        },
        "upload": {
            **phase(upload),
            "uploaders": UPLOADERS,
            "batch": f"{RUNS_PER_BATCH} runs x {LOAD_METRICS} metrics",
            "runs": upload["runs"],
            "runs_per_s": round(upload["runs"] / upload["seconds"], 1),
            "latency": up,
            **cpu_report(upload),
        },
        "upload_paced": {
            **phase(paced),
            "uploaders": UPLOADERS,
            "interval_s": PACED_INTERVAL,
            "offered_runs_per_s": round(UPLOADERS * RUNS_PER_BATCH / PACED_INTERVAL, 1),
            "runs_per_s": round(paced["runs"] / paced["seconds"], 1),
            "latency": paced_up,
            **cpu_report(paced),
        },
        "notification": {
            "planted_s_into_upload": round(upload["planted_at"] - upload["start_at"], 1),
            "delay_s": round(delay, 1) if delay is not None else None,
            "arrived_while_uploading": noticed is not None and noticed <= upload["end_at"],
            "notifications_received": len(Receiver.received),
            # The alert as notified: it must name the step's first run, about -20 %.
            "alert": alert,
        },
        "detection_backlog": {
            "max_detection_requests": max((s["detection_requests"] for s in samples), default=0),
            "max_fold_pending": max((s["fold_pending"] for s in samples), default=0),
            "max_queue_work": max((s["queue_work"] for s in samples), default=0),
            "max_queue_notify": max((s["queue_notify"] for s in samples), default=0),
            "drained_s_after_upload": round(drained - upload["end_at"], 1) if drained else None,
            "samples": len(samples),
        },
        "explore": {
            **phase(explore),
            "readers": READERS,
            "latency": reads,
            "by_case": {k: summary(v) for k, v in explore["latencies"].items()},
            "traces": explore["traces"],
        },
        "figures": {
            "upload_p99_ms": figure(
                up.get("p99_ms"),
                "<= 500",
                up.get("p99_ms", 1e9) <= TARGETS["upload_p99_ms"],
                # Beside it, the same uploaders paced (not a target: the load is unpaced).
                paced_p99_ms=paced_up.get("p99_ms"),
            ),
            "upload_errors": figure(
                sum(upload["errors"].values()),
                "0",
                not upload["errors"],
                connection=phase(upload)["connection_errors"],
            ),
            "notify_delay_s": figure(
                round(delay, 1) if delay is not None else None,
                "<= 60",
                delay is not None and delay <= TARGETS["notify_delay_s"] and right_alert,
            ),
            "explore_p99_ms": figure(
                reads.get("p99_ms"),
                "<= 1000",
                reads.get("p99_ms", 1e9) <= TARGETS["explore_p99_ms"],
            ),
            "explore_errors": figure(
                sum(explore["errors"].values()),
                "0",
                not explore["errors"],
                connection=phase(explore)["connection_errors"],
            ),
        },
    }


def main() -> int:
    load_before, started_at = os.getloadavg(), dt.datetime.now(dt.UTC)
    database = prepare_database()
    tag = f"{os.getpid()}-{int(time.time())}"
    queue = f"perfatlas-bench-load-{tag}"
    queues = [queue, f"{queue}.notify"]
    receiver = serve_webhook()
    workdir = Path(tempfile.mkdtemp(prefix="bench-load-"))
    env = perfatlas_env(DB, free_port(), PERFATLAS_BROKER_URL=REDIS_URL, PERFATLAS_QUEUE=queue,
                        PERFATLAS_DATA_DIR=str(workdir))  # fmt: skip
    subprocess.run([*PERFATLAS, "migrate"], env=env, check=True, capture_output=True)
    # A database seeded before explore's rollups has every run pending after the upgrade: fold
    # them now (nothing to do for one seeded since), so that readers meet a worker that keeps up.
    subprocess.run([*PERFATLAS, "fold"], env=env, check=True, capture_output=True)
    tokens = {scope: create_token(env, scope) for scope in ("admin", "upload", "read")}
    server, base = start_server(env, workers=API_WORKERS)
    try:
        worker = start_worker(env, workdir / "worker.log", concurrency=WORKER_CONCURRENCY)
    except SystemExit:
        stop_process(server)
        raise
    backlog = Backlog(queues)
    try:
        headers = {"Authorization": f"Bearer {tokens['admin']}"}
        planted = f"planted-{tag}"
        with httpx.Client(base_url=base, timeout=120, headers=headers) as admin:
            hook = f"http://127.0.0.1:{receiver.server_port}/hook"
            for old in admin.get("/api/v1/channels").raise_for_status().json()["items"]:
                if old["name"].startswith("bench-load"):  # an earlier run's, on a reused db
                    admin.delete(f"/api/v1/channels/{old['id']}").raise_for_status()
            channel = {"name": f"bench-load-{tag}", "kind": "webhook", "target": hook}
            admin.post("/api/v1/channels", json=channel).raise_for_status()
            # The planted series' history, before the load: 30 points at one level.
            history = planted_runs(planted, tag, first=0, count=30, scale=1.0)
            admin.post("/api/v1/runs/batch", json={"runs": history}).raise_for_status()
        backlog.start()
        # Its check done first, so that the step gets a check of its own.
        backlog.drained(time.time() + 60)

        upload = upload_phase(base, tokens, tag, planted, [server, worker])

        def planted_notice() -> float | None:
            for at, payload in list(Receiver.received):
                if any(a.get("agent") == planted for a in payload.get("alerts") or []):
                    return at
            return None

        noticed = wait_for(planted_notice, upload["planted_at"] + NOTIFY_WAIT)
        # The backlog drains before the reads begin.
        drained = backlog.drained(upload["end_at"] + NOTIFY_WAIT)
        # The same uploaders paced once the checks and folds are done (so that the CPU it
        # counts is its own), then drained again.
        backlog.drained(time.time() + NOTIFY_WAIT, folds=True)
        paced = paced_phase(base, tokens, tag, [server, worker])
        backlog.drained(time.time() + NOTIFY_WAIT)
        backlog.stop.set()
        backlog.join()
        explore = explore_phase(base, tokens["read"])
        # The anchor: the same readers on a server that keeps no answer (every one computed).
        uncached_env = {
            **env,
            "PERFATLAS_PORT": str(free_port()),
            "PERFATLAS_EXPLORE_CACHE_MB": "0",
        }
        uncached_server, uncached_base = start_server(uncached_env, workers=API_WORKERS)
        try:
            uncached = explore_phase(uncached_base, tokens["read"])
        finally:
            stop_process(uncached_server)
        report = build_report(upload, paced, explore, noticed, drained, backlog.samples)
        report["explore_uncached"] = {
            **report_phase(uncached), "readers": READERS,
            "latency": summary([v for values in uncached["latencies"].values() for v in values]),
        }  # fmt: skip
    finally:
        backlog.stop.set()
        for proc in (worker, server):
            stop_process(proc)
        receiver.shutdown()
        drop_queues(queue)
    report["database"].update(database)
    report["started_at"] = started_at.isoformat(timespec="seconds")
    report["finished_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    sizes = zip(
        (UPLOADERS, UPLOAD_SECONDS, READERS, READ_SECONDS, SEEDED),
        (50, 60, 50, 30, 10**7),
        strict=True,
    )
    report["full_size"] = all(a >= b for a, b in sizes)  # the sizes
    report["machine"] = {"cpus": os.cpu_count(), "loadavg_before": load_before,
                         "loadavg_after": os.getloadavg()}  # fmt: skip
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("figures", "notification", "detection_backlog")},
                     indent=2))  # fmt: skip
    print(f"written to {OUT}")
    shutil.rmtree(workdir)  # kept, with the worker's log, when the run fails
    return 0


if __name__ == "__main__":
    sys.exit(main())
