"""A client process for bench_jobs.py: simulated agent daemons, each with its own agent token
and one connection (asyncio + httpx). Reads its orders as JSON on standard input, like
loadgen.py (whose `clients` starts it and whose `gather` reads its answer), and prints what it
measured as JSON, with one record per claim: the job, the attempt, the agent, and when the
claim request went out and its answer came back (time.time(), the clock bench_jobs.py reads).

Modes: "daemon" long-polls `POST /agents/jobs/claim?wait=S` until the deadline (the last poll
waits only until then); "queued" claims with wait=0 until the server answers 204 (the jobs
were queued before it started), each agent `stagger` seconds after the one before. On a job
an agent reports progress twice, each with a log line, then completes it with one small run
(job_id set), and polls again."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import random
import resource
import sys
import time
from typing import Any

import httpx

# Run as a script: its own folder is on sys.path.
from common import sweep_run
from loadgen import error_kind

RETRY_SECONDS = 0.5  # after an error, as a daemon backs off before it tries again


def count(out: dict[str, Any], kind: str) -> None:
    out["errors"][kind] = out["errors"].get(kind, 0) + 1


async def call(
    client: httpx.AsyncClient, out: dict[str, Any], what: str, path: str, **kwargs: Any
) -> httpx.Response | None:
    """POST; None (the error counted by kind) unless it answered below 400. Times `what` (a
    claim as claim_200 or claim_204)."""
    started = time.perf_counter()
    try:
        response = await client.post(path, **kwargs)
    except Exception as exc:  # counted by kind; the agent goes on, as the daemon retries
        count(out, f"{what}:{error_kind(exc)}")
        return None
    out["last_end"] = time.time()
    if response.status_code >= 400:
        count(out, f"{what}:http_{response.status_code}")
        return None
    if what == "claim":  # timed by its caller: a poll that got a job, or an empty one
        what = "claim_200" if response.status_code == 200 else "claim_204"
    out["latencies_ms"].setdefault(what, []).append((time.perf_counter() - started) * 1000)
    out["requests_ok"] += 1
    return response


async def work(
    client: httpx.AsyncClient, out: dict[str, Any], name: str, job: dict[str, Any], rng: Any
) -> None:
    """Run the job as a daemon reports it: progress twice, then complete with one run."""
    attempt, path = job["attempt"], f"/api/v1/jobs/{job['id']}"
    for step in (1, 2):
        body = {"attempt": attempt, "phase": "run", "percent": 50.0 * step, "done": step - 1,
                "total": 1, "log": [f"bench step {step} of job {job['id']} on {name}"]}  # fmt: skip
        answer = await call(client, out, "progress", f"{path}/progress", json=body)
        if answer is not None and answer.json()["cancel"]:
            count(out, "progress:cancel_requested")  # nobody cancels in this benchmark
    run = sweep_run(agent=name, workload="smallfile", params={"nfiles": 10, "size": "4k"},
                    started=dt.datetime.now(dt.UTC), rng=rng, metrics=1, labels={})  # fmt: skip
    run["job_id"] = job["id"]
    body = {"attempt": attempt, "status": "succeeded", "log": ["bench job done"], "runs": [run]}
    if await call(client, out, "complete", f"{path}/complete", json=body) is not None:
        out["runs"] += 1


async def agent(orders: dict[str, Any], worker: dict[str, Any], out: dict[str, Any]) -> None:
    name, mode = worker["name"], orders["mode"]
    rng = random.Random(f"{orders['tag']}-{mode}-{name}")
    headers = {"Authorization": f"Bearer {worker['token']}"}
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=orders["base"], headers=headers, limits=limits,
                                 timeout=orders["wait"] + 15.0) as client:  # fmt: skip
        # "queued": one agent after another, so that each claim meets a quiet server.
        turn = orders["start_at"] + orders.get("stagger", 0.0) * worker.get("index", 0)
        await asyncio.sleep(max(0.0, turn - time.time()))
        while True:
            if mode == "daemon":
                remaining = orders["deadline"] - time.time()
                if remaining < 0.5:
                    return
                wait = round(min(orders["wait"], remaining), 1)
            elif time.time() > orders["deadline"]:
                return
            else:
                wait = 0.0
            sent = time.time()
            answer = await call(client, out, "claim", "/api/v1/agents/jobs/claim",
                                params={"wait": wait})  # fmt: skip
            got = time.time()
            if answer is None:
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if answer.status_code == 204:
                if mode == "queued":
                    return
                continue
            job = answer.json()
            out["records"].append({"job": job["id"], "attempt": job["attempt"], "agent": name,
                                   "sent": sent, "got": got, "mode": mode})  # fmt: skip
            await work(client, out, name, job, rng)


async def run(orders: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"latencies_ms": {}, "errors": {}, "requests_ok": 0, "runs": 0,
                           "records": [], "last_end": None}  # fmt: skip
    await asyncio.sleep(max(0.0, orders["start_at"] - time.time() - 1))
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    out["first_start"] = max(time.time(), orders["start_at"])
    await asyncio.gather(*(agent(orders, w, out) for w in orders["workers"]))
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    out["cpu_s"] = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    out["wall_s"] = time.time() - out["first_start"]
    return out


def main() -> int:
    orders = json.load(sys.stdin)
    sys.stdout.write(json.dumps(asyncio.run(run(orders))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
