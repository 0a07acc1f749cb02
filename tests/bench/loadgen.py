"""A load-generating client process for bench_load.py: reads its orders as JSON on standard
input, runs that many concurrent uploaders or Explore readers (asyncio + httpx, one connection
each) from a common start time for a number of seconds, and prints what it measured as JSON.

bench_load.py starts several of these, so that the client's own CPU is spread over processes and
measured (user + system seconds of this process while it ran). `clients` starts them and
`gather` puts their answers together."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil

# Run as a script: its own folder is on sys.path.
from common import K_VALUES, SEGSIZES, SWEEP_WORKLOADS, percentile, sweep_run

# Transport errors that mean a connection failed or was dropped (the keep-alive race included).
CONNECTION_ERRORS = (
    httpx.ConnectError,
    httpx.RemoteProtocolError,
    httpx.ReadError,
    httpx.WriteError,
    httpx.CloseError,
)


def error_kind(exc: Exception) -> str:
    if isinstance(exc, CONNECTION_ERRORS):
        return f"connection:{type(exc).__name__}"
    if isinstance(exc, httpx.TimeoutException):
        return f"timeout:{type(exc).__name__}"
    return f"other:{type(exc).__name__}"


def upload_batch(
    orders: dict[str, Any], agent: str, rng: random.Random, meta: dict[str, str]
) -> bytes:
    """One agent's upload: a sweep of `runs_per_batch` configurations of one workload, the
    configurations (and so the series) the seeded agents run, now."""
    workload = rng.choice(SWEEP_WORKLOADS)
    segsize = rng.choice(SEGSIZES)
    now = dt.datetime.now(dt.UTC)
    runs = []
    for j in range(orders["runs_per_batch"]):
        run = sweep_run(
            agent=agent, workload=workload, rng=rng, metrics=orders["metrics"],
            params={"k": K_VALUES[j % len(K_VALUES)], "segsize": segsize},
            started=now + dt.timedelta(microseconds=j),
        )  # fmt: skip
        run["meta"] = meta
        runs.append(run)
    return orjson.dumps({"runs": runs})


async def uploader(orders: dict[str, Any], client: httpx.AsyncClient, agent: str, seed: str,
                   out: dict[str, Any]) -> None:  # fmt: skip
    rng = random.Random(seed)
    meta = {"bench_load": orders["tag"]}
    # Paced (open loop): an upload every `interval` seconds from a random offset, its latency
    # counted from when it was due, so that an uploader held up by a slow answer counts the
    # wait too. Unpaced (0): the next upload as soon as the last one is answered.
    interval = orders.get("interval", 0.0)
    # Drawn only when paced: an unpaced uploader's batches stay what they were.
    due = time.time() + (rng.uniform(0, interval) if interval else 0.0)
    while time.time() < orders["deadline"]:
        body = upload_batch(orders, agent, rng, meta)
        if interval:
            await asyncio.sleep(max(0.0, due - time.time()))
            if due >= orders["deadline"]:
                break
            started = time.perf_counter() - max(0.0, time.time() - due)
            due += interval
        else:
            started = time.perf_counter()
        try:
            response = await client.post("/api/v1/runs/batch", content=body)
        except Exception as exc:  # counted by kind; the uploader goes on, as an agent retries
            out["errors"][error_kind(exc)] = out["errors"].get(error_kind(exc), 0) + 1
            continue
        elapsed = (time.perf_counter() - started) * 1000
        out["last_end"] = time.time()
        if response.status_code >= 400:
            key = f"http_{response.status_code}"
            out["errors"][key] = out["errors"].get(key, 0) + 1
            continue
        out["latencies_ms"]["upload"].append(elapsed)
        out["requests_ok"] += 1
        out["runs"] += orders["runs_per_batch"]


async def reader(orders: dict[str, Any], client: httpx.AsyncClient, number: int,
                 out: dict[str, Any]) -> None:  # fmt: skip
    cases = list(orders["cases"].items())
    i = number
    while time.time() < orders["deadline"]:
        name, params = cases[i % len(cases)]
        i += 1
        started = time.perf_counter()
        try:
            response = await client.get("/api/v1/explore", params=params)
        except Exception as exc:
            out["errors"][error_kind(exc)] = out["errors"].get(error_kind(exc), 0) + 1
            continue
        elapsed = (time.perf_counter() - started) * 1000
        out["last_end"] = time.time()
        if response.status_code >= 400:
            key = f"http_{response.status_code}"
            out["errors"][key] = out["errors"].get(key, 0) + 1
            continue
        out["latencies_ms"].setdefault(name, []).append(elapsed)
        out["requests_ok"] += 1
        # Kept answers served again, or computed (explore/answers.py).
        outcome = response.headers.get("x-explore-cache", "none")
        out["cache"][outcome] = out["cache"].get(outcome, 0) + 1


async def run(orders: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"latencies_ms": {"upload": []} if orders["mode"] == "upload" else {},
                           "errors": {}, "requests_ok": 0, "runs": 0, "last_end": None,
                           "cache": {}}  # fmt: skip
    n = len(orders["workers"])
    # One connection per uploader or reader, kept in httpx's idle pool (5 s) between requests.
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    headers = {"Authorization": f"Bearer {orders['token']}", "Content-Type": "application/json"}
    async with httpx.AsyncClient(base_url=orders["base"], headers=headers, limits=limits,
                                 timeout=orders.get("timeout", 60.0)) as client:  # fmt: skip
        await asyncio.sleep(max(0.0, orders["start_at"] - time.time()))
        cpu0, out["first_start"] = resource.getrusage(resource.RUSAGE_SELF), time.time()
        if orders["mode"] == "upload":
            tasks = [
                uploader(orders, client, w["agent"], w["seed"], out) for w in orders["workers"]
            ]
        else:
            tasks = [reader(orders, client, w["number"], out) for w in orders["workers"]]
        await asyncio.gather(*tasks)
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    out["cpu_s"] = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    out["wall_s"] = time.time() - out["first_start"]
    return out


# What bench_load.py calls: start these processes, put their answers together.


def clients(
    mode: str, orders: dict[str, Any], workers: list[dict[str, Any]], count: int,
    script: Path | None = None,
) -> list[Any]:  # fmt: skip
    """Start `count` processes of this script (or of `script`, another client that reads its
    orders on standard input and answers as `run` does) sharing `workers`; returns them
    running."""
    procs = []
    for p in range(min(count, len(workers))):
        mine = {**orders, "mode": mode, "workers": workers[p::count]}
        here = (script or Path(__file__)).resolve()
        proc = subprocess.Popen([sys.executable, str(here)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, cwd=here.parent)  # fmt: skip
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(mine).encode())
        proc.stdin.close()
        procs.append(proc)
    return procs


def gather(procs: list[Any]) -> dict[str, Any]:
    """Wait for the client processes; their latencies, errors and CPU put together."""
    outs = []
    for proc in procs:
        outs.append(json.loads(proc.stdout.read()))
        if proc.wait() != 0:
            raise SystemExit("a load client failed")
    latencies: dict[str, list[float]] = {}
    errors: dict[str, int] = {}
    cache: dict[str, int] = {}
    for out in outs:
        for outcome, n in out.get("cache", {}).items():
            cache[outcome] = cache.get(outcome, 0) + n
        for name, values in out["latencies_ms"].items():
            latencies.setdefault(name, []).extend(values)
        for kind, n in out["errors"].items():
            errors[kind] = errors.get(kind, 0) + n
    first = min(o["first_start"] for o in outs)
    last = max((o["last_end"] or first) for o in outs)
    cpu = sum(o["cpu_s"] for o in outs)
    # What a client logged one line per event (bench_jobs' claims), all processes' together.
    records = [r for o in outs for r in o.get("records", [])]
    return {"latencies": latencies, "errors": errors, "runs": sum(o["runs"] for o in outs),
            "records": records, "cache": cache,
            "ok": sum(o["requests_ok"] for o in outs), "seconds": last - first,
            "client_cpu_s": round(cpu, 2), "client_cpu_pct_of_one_core": round(100 * cpu / (last - first), 1),
            "client_processes": len(outs)}  # fmt: skip


def summary(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50_ms": round(percentile(values, 0.5), 1),
            "p95_ms": round(percentile(values, 0.95), 1), "p99_ms": round(percentile(values, 0.99), 1),
            "max_ms": round(max(values), 1)}  # fmt: skip


def cpu_seconds(proc: subprocess.Popen[bytes]) -> float:
    """User + system seconds of a process and its children so far."""
    try:
        procs = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
        return sum(p.cpu_times().user + p.cpu_times().system for p in procs)
    except psutil.Error:
        return 0.0


def main() -> int:
    orders = json.load(sys.stdin)
    sys.stdout.write(json.dumps(asyncio.run(run(orders))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
