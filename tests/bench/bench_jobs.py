"""Jobs benchmark on PostgreSQL, from separate client processes on loopback:

1. BENCH_JOBS_AGENTS (50) agents enrolled through the API (an enrollment token each, labels
   group=g0..g<BENCH_JOBS_GROUPS-1>) long-poll `POST /agents/jobs/claim?wait=25` for
   BENCH_JOBS_SECONDS (60) as daemons do (jobagents.py: on a job, progress twice with a log
   line, complete with one run, poll again), while a producer in this process queues jobs
   through the product's path at BENCH_JOBS_RATE (5) schedules a second: `POST /schedules` with
   when "now", picking one agent by name, or a label group for one in BENCH_JOBS_GROUP_EVERY
   (10). The producer stops BENCH_JOBS_DRAIN (5) seconds before the agents, so that every job
   can be claimed and completed.
   Claim-to-start: from the answer to the schedule's POST (its jobs are committed) to the
   agent holding the job (the claim's answer received); both processes read time.time() on
   this machine. Split by whether the agent's poll was waiting when the POST went out.
2. Then BENCH_JOBS_QUEUED (2) jobs per agent are queued first, and the agents, one after
   another (BENCH_JOBS_STAGGER, 0.2 s apart), claim with wait=0 until nothing is left: the
   claim's latency when a job is waiting already, on a quiet server. (Under load, the same
   is measured for the claims whose poll went out after their job was committed.)

Every job must be claimed exactly once (the clients' records and GET /jobs agree: one claim
per job, attempt 1, held by the agent that logged it) and completed. The API's resident memory
(server process and children) is sampled every 0.2 s. A real `perfatlas serve` (one API worker,
on-upload detection off: no worker runs) serves its own database, perfatlas_bench_jobs (or
BENCH_JOBS_DB), made anew each time. Writes tests/bench/results/jobs.json (or BENCH_JOBS_OUT)."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import psutil
import psycopg

# Run as a script: its own folder is on sys.path.
from common import PERFATLAS, admin_dsn, create_token, free_port, perfatlas_env, start_server
from loadgen import clients, cpu_seconds, error_kind, gather, summary

HERE = Path(__file__).resolve().parent
OUT = Path(os.environ.get("BENCH_JOBS_OUT", HERE / "results" / "jobs.json"))
DB = os.environ.get("BENCH_JOBS_DB", "perfatlas_bench_jobs")
AGENTS = int(os.environ.get("BENCH_JOBS_AGENTS", "50"))
SECONDS = float(os.environ.get("BENCH_JOBS_SECONDS", "60"))
RATE = float(os.environ.get("BENCH_JOBS_RATE", "5"))
GROUPS = int(os.environ.get("BENCH_JOBS_GROUPS", "5"))
GROUP_EVERY = int(os.environ.get("BENCH_JOBS_GROUP_EVERY", "10"))
DRAIN = float(os.environ.get("BENCH_JOBS_DRAIN", "5"))
QUEUED = int(os.environ.get("BENCH_JOBS_QUEUED", "2"))
WAIT = float(os.environ.get("BENCH_JOBS_WAIT", "25"))
CLIENT_PROCS = int(os.environ.get("BENCH_JOBS_CLIENT_PROCS", "2"))
STAGGER = float(os.environ.get("BENCH_JOBS_STAGGER", "0.2"))
TARGETS = {"claim_to_start_p99_ms": 200}
SCRIPT = HERE / "jobagents.py"
SPEC = {"workload": "command", "targets": ["/tmp/bench-jobs"], "params": {"cmd": "true"},
        "repetitions": 1, "min_seconds": 0, "warmup": False}  # fmt: skip


class Memory(threading.Thread):
    """Resident memory of the server process and its children, every 0.2 s."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.stop = pid, threading.Event()
        self.samples: list[tuple[float, int]] = []

    def rss(self) -> int:
        try:
            root = psutil.Process(self.pid)
            return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)])
        except psutil.Error:
            return 0

    def run(self) -> None:
        while not self.stop.is_set():
            self.samples.append((time.time(), self.rss()))
            self.stop.wait(0.2)

    def peak_mb(self, since: float = 0.0, until: float = float("inf")) -> float:
        values = [rss for at, rss in self.samples if since <= at <= until]
        return round(max(values, default=0) / 2**20, 1)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def enroll(admin: httpx.Client, base: str, tag: str) -> list[dict[str, Any]]:
    """AGENTS agents through the API: an enrollment token each (its group label), then enroll."""
    workers = []
    for i in range(AGENTS):
        made = admin.post("/api/v1/agents/enrollment-tokens",
                          json={"labels": {"group": f"g{i % GROUPS}"}, "expires_in_hours": 1})  # fmt: skip
        name = f"bench-agent-{i:03d}"
        body = {"enrollment_token": made.raise_for_status().json()["token"], "name": name,
                "labels": {"bench": tag}, "version": "bench"}  # fmt: skip
        answer = httpx.post(f"{base}/api/v1/agents/enroll", json=body).raise_for_status().json()
        workers.append({"name": name, "token": answer["token"], "index": i})
    return workers


def post_schedule(admin: httpx.Client, name: str, selector: list[str]) -> dict[str, Any]:
    """One schedule with when "now": its jobs are committed when the answer arrives."""
    body = {"name": name, "spec": SPEC, "agents": selector, "when": "now"}
    sent = time.time()
    try:
        response = admin.post("/api/v1/schedules", json=body)
    except Exception as exc:
        return {"name": name, "selector": selector, "sent": sent, "error": error_kind(exc)}
    done = time.time()
    posted = {"name": name, "selector": selector, "sent": sent, "committed": done}
    if response.status_code != 201:
        return {**posted, "error": f"http_{response.status_code}"}
    return {**posted, "id": response.json()["id"],
            "matching": len(response.json()["matching_agents"])}  # fmt: skip


def produce(admin: httpx.Client, workers: list[dict[str, Any]], tag: str, start: float,
            stop: float) -> list[dict[str, Any]]:  # fmt: skip
    """Schedules at RATE a second from `start` until `stop`: one agent by name, or one in
    GROUP_EVERY a label group. A late POST goes at once (its lag is kept)."""
    rng, posted, i = random.Random(tag), [], 0
    while (due := start + i / RATE) < stop:
        time.sleep(max(0.0, due - time.time()))
        if GROUP_EVERY and i % GROUP_EVERY == GROUP_EVERY - 1:
            selector = [f"group=g{rng.randrange(GROUPS)}"]
        else:
            selector = [rng.choice(workers)["name"]]
        posted.append({**post_schedule(admin, f"bench-{tag}-{i:05d}", selector),
                       "lag_s": max(0.0, time.time() - due)})  # fmt: skip
        i += 1
    return posted


def all_jobs(reader: httpx.Client) -> list[dict[str, Any]]:
    jobs, cursor = [], None
    while True:
        params: dict[str, Any] = {"limit": 500, **({"cursor": cursor} if cursor else {})}
        page = reader.get("/api/v1/jobs", params=params).raise_for_status().json()
        jobs += page["items"]
        if not (cursor := page["next_cursor"]):
            return jobs


def phase_jobs(
    posted: list[dict[str, Any]], jobs: list[dict[str, Any]], records: list[dict[str, Any]]
) -> dict[str, Any]:
    """The jobs of these schedules, their claims as the clients logged them, the checks that
    each was claimed once, by the agent that logged it, and completed."""
    by_schedule = {p["id"]: p for p in posted if "id" in p}
    mine = [j for j in jobs if j["schedule_id"] in by_schedule]
    claims: dict[int, list[dict[str, Any]]] = {}
    for record in records:
        claims.setdefault(record["job"], []).append(record)
    twice = sorted(job for job, seen in claims.items() if len(seen) > 1)
    server_twice = sorted(j["id"] for j in mine if j["attempts"] > 1)
    wrong_holder = sorted(
        j["id"] for j in mine if j["id"] in claims and claims[j["id"]][0]["agent"] != j["leased_by"]
    )
    unlogged = sorted(j["id"] for j in mine if j["leased_by"] and j["id"] not in claims)
    from_commit, from_sent, waiting, already, during = [], [], [], [], []
    by_selector: dict[str, list[float]] = {"one_agent": [], "label_group": []}
    for job in mine:
        if job["id"] not in claims:
            continue
        post, claim = by_schedule[job["schedule_id"]], claims[job["id"]][0]
        ms = (claim["got"] - post["committed"]) * 1000
        from_commit.append(ms)
        group = any("=" in item for item in post["selector"])
        by_selector["label_group" if group else "one_agent"].append(ms)
        from_sent.append((claim["got"] - post["sent"]) * 1000)
        if claim["sent"] < post["sent"]:
            waiting.append(ms)  # the agent was long-polling when the job was queued
        elif claim["sent"] > post["committed"]:
            already.append((claim["got"] - claim["sent"]) * 1000)  # the job waited for it
        else:
            during.append(ms)
    statuses = Counter(j["status"] for j in mine)
    return {
        "schedules": len(posted),
        "schedule_errors": dict(Counter(p["error"] for p in posted if "error" in p)),
        "jobs_queued": len(mine),
        "jobs_claimed": sum(1 for j in mine if j["id"] in claims),
        "jobs_completed": statuses.get("succeeded", 0),
        "statuses": dict(statuses),
        "runs_stored": sum(len(j["runs"]) for j in mine),
        "claimed_twice_in_client_logs": twice,
        "claimed_twice_on_server": server_twice,
        "held_by_another_agent": wrong_holder,
        "leased_but_not_logged": unlogged,
        "claim_to_start": summary(from_commit),
        "claim_to_start_negative": sum(1 for v in from_commit if v < 0),
        "claim_to_start_from_post_sent": summary(from_sent),
        # A label group's schedule queues a job for each agent of the group at once.
        "claim_to_start_by_selector": {k: summary(v) for k, v in by_selector.items()},
        "agent_was_waiting": summary(waiting),
        "agent_polled_after_commit": summary(already),
        "agent_polled_during_post": summary(during),
    }


def transactions() -> int:
    """Transactions committed in DB so far (PostgreSQL's statistics, flushed within a second)."""
    time.sleep(1.5)
    with psycopg.connect(admin_dsn(DB)) as conn:
        row = conn.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s", (DB,)
        ).fetchone()
    return int(row[0]) if row else 0


def figure(value: Any, target: str, met: bool, **extra: Any) -> dict[str, Any]:
    return {"value": value, "target": target, "met": met, **extra}


def errors_of(*outcomes: dict[str, Any]) -> tuple[dict[str, int], int]:
    """Errors by kind, put together, and how many of them are connection errors."""
    total: Counter[str] = Counter()
    for outcome in outcomes:
        total.update(outcome)
    return dict(total), sum(n for kind, n in total.items() if ":connection:" in f":{kind}")


def load_phase(
    server: Any, base: str, admin: httpx.Client, workers: list[dict[str, Any]], tag: str,
    memory: Memory,
) -> dict[str, Any]:  # fmt: skip
    """The agents long-poll for SECONDS while the producer queues jobs."""
    print(f"{AGENTS} agents long-poll for {SECONDS:.0f} s, {RATE} schedules/s", flush=True)
    cpu0, xacts0 = cpu_seconds(server), transactions()
    start_at = time.time() + 3
    orders = {"base": base, "start_at": start_at, "deadline": start_at + SECONDS, "wait": WAIT,
              "tag": tag}  # fmt: skip
    procs = clients("daemon", orders, workers, CLIENT_PROCS, script=SCRIPT)
    # The first POST a second in: the agents are waiting by then.
    posted = produce(admin, workers, tag, start_at + 1, start_at + SECONDS - DRAIN)
    daemon = gather(procs)
    return {**daemon, "posted": posted, "start_at": start_at,
            "server_cpu_s": cpu_seconds(server) - cpu0, "xacts": transactions() - xacts0,
            "rss_after": memory.rss()}  # fmt: skip


def queued_phase(base: str, admin: httpx.Client, workers: list[dict[str, Any]],
                 tag: str) -> dict[str, Any]:  # fmt: skip
    """QUEUED jobs per agent, queued first; then the agents claim them one after another."""
    print(f"then {QUEUED} jobs per agent queued before the agents claim", flush=True)
    posted = [post_schedule(admin, f"bench-{tag}-q{n}-{w['name']}", [w["name"]])
              for n in range(QUEUED) for w in workers]  # fmt: skip
    orders = {"base": base, "start_at": time.time() + 2, "wait": 0.0, "tag": tag,
              "stagger": STAGGER, "deadline": time.time() + 120 + STAGGER * AGENTS}  # fmt: skip
    return {**gather(clients("queued", orders, workers, CLIENT_PROCS, script=SCRIPT)),
            "posted": posted}  # fmt: skip


def build_report(
    daemon: dict[str, Any], queued: dict[str, Any], jobs: list[dict[str, Any]], memory: Memory,
    rss_enrolled: int,
) -> dict[str, Any]:  # fmt: skip
    load = phase_jobs(daemon["posted"], jobs, daemon["records"])
    first = phase_jobs(queued["posted"], jobs, queued["records"])
    errors, connection = errors_of(
        daemon["errors"], queued["errors"], load["schedule_errors"], first["schedule_errors"]
    )
    checks = ("claimed_twice_in_client_logs", "claimed_twice_on_server", "held_by_another_agent",
              "leased_but_not_logged")  # fmt: skip
    dupes = sum(len(p[k]) for p in (load, first) for k in checks)
    lags = [p["lag_s"] for p in daemon["posted"]]
    p99 = load["claim_to_start"].get("p99_ms")
    quiet = summary([(r["got"] - r["sent"]) * 1000 for r in queued["records"]])
    start_at, seconds = daemon["start_at"], daemon["seconds"]
    return {
        "benchmark": "jobs",
        "setup": {
            "api_workers": 1,
            "agents": AGENTS,
            "groups": GROUPS,
            "seconds": SECONDS,
            "schedules_per_s": RATE,
            "group_schedule_every": GROUP_EVERY,
            "drain_s": DRAIN,
            "claim_wait_s": WAIT,
            "client_processes": CLIENT_PROCS,
            "queued_per_agent": QUEUED,
            "stagger_s": STAGGER,
            "database": DB,
            "spec": SPEC,
        },
        "load": {
            **load,
            "producer_lag_s": {
                "max": round(max(lags, default=0), 3),
                "late_over_100ms": sum(1 for v in lags if v > 0.1),
            },
            "seconds": round(seconds, 1),
            "requests_ok": daemon["ok"],
            "latency": {k: summary(v) for k, v in daemon["latencies"].items()},
            "errors": daemon["errors"],
            "client_cpu_s": daemon["client_cpu_s"],
            "client_cpu_pct_of_one_core": daemon["client_cpu_pct_of_one_core"],
            "server_cpu_s": round(daemon["server_cpu_s"], 1),
            "server_cpu_pct_of_one_core": round(100 * daemon["server_cpu_s"] / seconds, 1),
            # Every transaction of the database while the agents ran (requests, claims' tries,
            # the watcher's reads, the pool's pings), per job queued.
            "db_transactions": daemon["xacts"],
            "db_transactions_per_job": round(daemon["xacts"] / max(1, load["jobs_queued"]), 1),
        },
        "already_queued": {
            **first,
            "claim_latency": quiet,
            "latency": {k: summary(v) for k, v in queued["latencies"].items()},
            "errors": queued["errors"],
        },
        "api_memory": {
            "peak_rss_mb": memory.peak_mb(),
            "peak_rss_mb_during_load": memory.peak_mb(start_at, start_at + SECONDS),
            "rss_mb_after_enrollment": round(rss_enrolled / 2**20, 1),
            "rss_mb_after_load": round(daemon["rss_after"] / 2**20, 1),
            "samples": len(memory.samples),
        },
        "figures": {
            "claim_to_start_p99_ms": figure(
                p99, "<= 200", p99 is not None and p99 <= TARGETS["claim_to_start_p99_ms"]
            ),
            "errors": figure(
                sum(errors.values()), "0", not errors, by_kind=errors, connection=connection
            ),
            "duplicate_claims": figure(dupes, "0", dupes == 0),
            "jobs_unclaimed_or_not_completed": figure(
                sum(p["jobs_queued"] - p["jobs_completed"] for p in (load, first)),
                "0",
                all(p["jobs_queued"] == p["jobs_completed"] for p in (load, first)),
            ),
            "api_peak_rss_mb": figure(memory.peak_mb(), "recorded (no target)", True),
            "already_queued_claim_p99_ms": figure(
                quiet.get("p99_ms"), "recorded (no target)", True
            ),
        },
        # The sizes: 50 agents for 60 s.
        "full_size": AGENTS >= 50 and SECONDS >= 60,
    }


def main() -> int:
    load_before, started_at = os.getloadavg(), dt.datetime.now(dt.UTC)
    tag = f"{os.getpid()}-{int(time.time())}"
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}"')
    env = perfatlas_env(DB, free_port(), PERFATLAS_DETECT_ON_INGEST="false")
    subprocess.run([*PERFATLAS, "migrate"], env=env, check=True, capture_output=True)
    tokens = {scope: create_token(env, scope) for scope in ("admin", "read")}
    server, base = start_server(env, workers=1)
    memory = Memory(server.pid)
    memory.start()
    try:
        with (
            httpx.Client(base_url=base, timeout=60, headers=bearer(tokens["admin"])) as admin,
            httpx.Client(base_url=base, timeout=60, headers=bearer(tokens["read"])) as reader,
        ):
            workers = enroll(admin, base, tag)
            rss_enrolled = memory.rss()
            daemon = load_phase(server, base, admin, workers, tag, memory)
            queued = queued_phase(base, admin, workers, tag)
            jobs = all_jobs(reader)
    finally:
        memory.stop.set()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    report = build_report(daemon, queued, jobs, memory, rss_enrolled)
    report["started_at"] = started_at.isoformat(timespec="seconds")
    report["finished_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    report["machine"] = {"cpus": os.cpu_count(), "loadavg_before": load_before,
                         "loadavg_after": os.getloadavg()}  # fmt: skip
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["figures"], indent=2))
    print(f"written to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
