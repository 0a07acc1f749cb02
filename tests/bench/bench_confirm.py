"""Confirm-before-alerting benchmark: the time from a candidate regression to a confirmed alert.

A real `perfatlas serve` (its own PostgreSQL database, perfatlas_bench_confirm or
BENCH_CONFIRM_DB, made anew), a real `perfatlas worker` with its beat (a Redis queue of its
own), a webhook channel to a receiver in this process, and for each case a new agent enrolled
through `perfatlas-agent enroll` running `perfatlas-agent daemon` (a new agent, series and
incident per case, so that one case cannot touch another's). Every run comes from a schedule
fired with when "now" (POST /schedules), so the series is fed by a schedule. The schedule's
command reads `{version}` and prints ops: 1000 on the old version, 800 (20 % slower) on the
new one or while a marker file counts slow repetitions down, times 1 ± 1 % noise seeded by
BENCH_CONFIRM_SEED + n (the repeat) and the invocation's number on that agent. Repeat n changes
version n.1 to n.2: a cause of its own (incidents group alerts by cause across agents), so an
incident of its own and a notification "incident.opened" of its own.

- regression: BENCH_CONFIRM_HISTORY (16) firings on the old version, then MIN_SIDE - 1 (3) on
  the new (the detector needs MIN_SIDE points after a step), then, once detection is idle,
  the measured firing on the new version: the run that makes the change alertable. On one clock (this
  machine's): t0 = that job's completion (the upload of its run: the job's finished_at, set by
  the server as it stores the run), t1 = the alert seen in status confirming (GET /alerts, every
  BENCH_CONFIRM_POLL s), t2 = its confirmation job seen claimed (GET /jobs/{id} no longer
  queued), t3 = the alert seen open with verdict DIFFERENT, t4 = the webhook notification
  received. t3 → t4 includes PERFATLAS_NOTIFY_DELAY_SECONDS (30 by default), the fixed wait
  after an incident opens so that the alerts of one cause go out together.
- one_off: the same history on the old version with a planted slow spell of MIN_SIDE runs (the last
  one the measured firing); the confirmation re-runs the candidate: t3 = the alert seen
  resolved not_confirmed; no notification may ever name it (checked after the notify delay).

Each case is repeated BENCH_CONFIRM_REPEATS (3) times; each interval's values and median are
recorded, with the confirmation's rounds and the server's own timestamps beside the polled ones.
Writes tests/bench/results/confirm.json (or BENCH_CONFIRM_OUT); exits 1 when a check fails."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import psycopg

# Run as a script: its own folder is on sys.path.
from common import (
    PERFATLAS,
    REDIS_URL,
    Receiver,
    admin_dsn,
    create_token,
    drop_queues,
    free_port,
    perfatlas_env,
    serve_webhook,
    start_server,
    start_worker,
    stop_process,
)
from confirmagent import LEVEL, SLOW_LEVEL, Machine, versions
from confirmfigures import checks, events, intervals, median, notified, since, summarize

from perfatlas.analysis.ranks import MIN_SIDE
from perfatlas.confirm.plan import ROUNDS_MAX
from perfatlas.core.config import Settings

HERE = Path(__file__).resolve().parent
OUT = Path(os.environ.get("BENCH_CONFIRM_OUT", HERE / "results" / "confirm.json"))
DB = os.environ.get("BENCH_CONFIRM_DB", "perfatlas_bench_confirm")
REPEATS = int(os.environ.get("BENCH_CONFIRM_REPEATS", "3"))
HISTORY = int(os.environ.get("BENCH_CONFIRM_HISTORY", "16"))
REPETITIONS = int(os.environ.get("BENCH_CONFIRM_REPETITIONS", "3"))
SEED = int(os.environ.get("BENCH_CONFIRM_SEED", "20261122"))
POLL = float(os.environ.get("BENCH_CONFIRM_POLL", "0.1"))
TIMEOUT = float(os.environ.get("BENCH_CONFIRM_TIMEOUT", "300"))
# The daemon's long poll (seconds); empty: the daemon's own default.
CLAIM_WAIT = os.environ.get("BENCH_CONFIRM_CLAIM_WAIT", "")
# Resolutions of a candidate its confirmation rejected (never notified).
REJECTED = ("not_confirmed", "unconfirmed")
# What the server and worker read (the environment passes on to them).
NOTIFY_DELAY = Settings().notify_delay_seconds
T = TypeVar("T")


def poll(what: str, probe: Callable[[], T | None], timeout: float = TIMEOUT,
         every: float = POLL) -> T:  # fmt: skip
    """probe() every `every` seconds until it gives something truthy."""
    deadline = time.time() + timeout
    while not (found := probe()):
        if time.time() > deadline:
            raise RuntimeError(f"gave up waiting {timeout:.0f} s for {what}")
        time.sleep(every)
    return found


def epoch(iso: str | None) -> float | None:
    return dt.datetime.fromisoformat(iso).timestamp() if iso else None


class Bench:
    def __init__(self, api: httpx.Client, base: str, workdir: Path) -> None:
        self.api, self.base, self.workdir = api, base, workdir
        self.firings = 0

    def machine(self, name: str, slow_version: str, number: int) -> Machine:
        """Repeat `number`'s agent; its noise seeded by SEED + number."""
        return Machine(self.api, self.base, self.workdir / name, name, seed=SEED + number,
                       repetitions=REPETITIONS, slow_version=slow_version,
                       claim_wait=CLAIM_WAIT)  # fmt: skip

    def get(self, path: str, **params: Any) -> Any:
        return self.api.get(f"/api/v1{path}", params=params).raise_for_status().json()

    def fire(self, machine: Machine, version: str) -> int:
        """A schedule with when "now" for this agent: its job is queued when the answer comes."""
        self.firings += 1
        body = {"name": f"{machine.name}-{self.firings:03d}", "spec": machine.spec(version),
                "agents": [machine.name], "when": "now"}  # fmt: skip
        made = self.api.post("/api/v1/schedules", json=body).raise_for_status().json()
        if made["matching_agents"] != [machine.name]:
            raise RuntimeError(f"schedule {made['id']} matches {made['matching_agents']}")
        return int(made["id"])

    def job_of(self, schedule: int) -> dict[str, Any] | None:
        items = self.get("/jobs", schedule=schedule)["items"]
        if items and items[0]["status"] in ("failed", "cancelled", "expired"):
            raise RuntimeError(f"job {items[0]['id']} {items[0]['status']}: {items[0]['error']}")
        return items[0] if items else None

    def history(self, machine: Machine, points: list[str]) -> None:
        """Fire one schedule per point, then wait for every job to have succeeded."""
        schedules = {self.fire(machine, v) for v in points}

        def done() -> bool:
            jobs = [j for j in self.get("/jobs", agent=machine.name, limit=500)["items"]
                    if j["schedule_id"] in schedules]  # fmt: skip
            if bad := [j for j in jobs if j["status"] in ("failed", "cancelled", "expired")]:
                raise RuntimeError(f"history jobs did not succeed: {bad}")
            return len(jobs) == len(schedules) and all(j["status"] == "succeeded" for j in jobs)

        poll(f"{len(schedules)} history jobs of {machine.name}", done, every=0.5)

    def detection_idle(self) -> None:
        """No detection request pending, twice in a row half a second apart."""

        def idle() -> bool:
            with psycopg.connect(admin_dsn(DB)) as conn:
                for look in range(2):
                    time.sleep(0.5 * look)
                    row = conn.execute("SELECT count(*) FROM detection_requests").fetchone()
                    if row and row[0]:
                        return False
            return True

        poll("detection to be idle", idle, every=0.5)

    def alerts(self, machine: Machine) -> list[dict[str, Any]]:
        statuses = [("status", s) for s in ("confirming", "open", "acknowledged", "resolved")]
        page = self.api.get("/api/v1/alerts", params=[("agent", machine.name), *statuses])
        # The planted metric's alerts only: the command's own wall time (command.seconds) is
        # a series too, and on a busy machine its noise may raise alerts of its own.
        items = page.raise_for_status().json()["items"]
        return [a for a in items if a["series"]["metric"] == "ops"]

    def measure(self, machine: Machine, version: str, settled: Callable[[dict[str, Any]], bool]
                ) -> dict[str, Any]:  # fmt: skip
        """Fire the measured schedule and watch: its job's completion, the alert confirming,
        its confirmation job claimed, the alert settled (`settled`)."""
        # A candidate found during the history (the detector can place a step one run early
        # while fewer than four runs follow it) is re-run and rejected by the product itself;
        # it is left out here, once settled. Anything else before the measured run is an error.
        poll(f"{machine.name}'s earlier candidates to settle",
             lambda: not [a for a in self.alerts(machine) if a["status"] == "confirming"])  # fmt: skip
        before = self.alerts(machine)
        if found := [a for a in before if a["resolution"] not in REJECTED]:
            raise RuntimeError(f"{machine.name} has alerts before the measured run: {found}")
        earlier = {a["id"] for a in before}
        seen: dict[str, Any] = {"fired": time.time(), "earlier_rejected": len(earlier)}
        schedule = self.fire(machine, version)
        deadline = seen["fired"] + TIMEOUT
        job = confirm = alert = None
        seen["polls"] = 0
        while time.time() < deadline:
            now = time.time()
            seen["polls"] += 1
            if (
                "t0_polled" not in seen
                and (job := self.job_of(schedule)) is not None
                and job["status"] == "succeeded"
            ):
                seen["t0_polled"], seen["job"] = now, job
            for alert in self.alerts(machine):
                if alert["id"] in earlier:
                    continue
                if alert["status"] == "confirming":
                    seen.setdefault("t1", now)
                if "t2" not in seen and alert["confirmation"]:
                    confirm = self.get(f"/jobs/{alert['confirmation']['job_id']}")
                    if confirm["status"] != "queued":
                        seen["t2"] = now
                if settled(alert):
                    seen["t3"], seen["alert"] = now, alert
            if "t3" in seen and "t0_polled" in seen:
                seen["poll_period_s"] = round((time.time() - seen["fired"]) / seen["polls"], 3)
                return seen
            time.sleep(POLL)
        raise RuntimeError(f"gave up after {TIMEOUT:.0f} s: saw {sorted(seen)}, job {job}, "
                           f"alert {alert}, confirmation job {confirm}")  # fmt: skip

    def finish(self, seen: dict[str, Any]) -> dict[str, Any]:
        """The confirmation job done (the daemon completes it after the verdict); the record."""
        alert = seen["alert"]
        conf_id = alert["confirmation"]["job_id"]
        poll(f"confirmation job {conf_id} to succeed",
             lambda: self.get(f"/jobs/{conf_id}")["status"] == "succeeded", timeout=60)  # fmt: skip
        alert = self.get(f"/alerts/{alert['id']}")
        conf, confirm_job = alert["confirmation"], self.get(f"/jobs/{conf_id}")
        t0 = epoch(seen["job"]["finished_at"])
        assert t0 is not None
        times = {"t0": t0, "t1": seen.get("t1"), "t2": seen.get("t2"), "t3": seen["t3"]}
        return {
            "alert_id": alert["id"],
            "status": alert["status"],
            "resolution": alert["resolution"],
            "incident_id": alert["incident_id"],
            "verdict": conf["verdict"],
            "mode": conf["mode"],
            "rounds": conf["rounds"],
            "runs": len(conf["runs"]),
            "candidate_median": conf["candidate_median"],
            "baseline_median": conf["baseline_median"],
            "change_pct": conf["change_pct"],
            "ci": conf["ci"],
            "confirm_job": {"id": conf_id, "status": confirm_job["status"]},
            "change_run_job": seen["job"]["id"],
            "times": times,
            "intervals_s": intervals(times),
            # One look (GET the job, the alerts, the confirmation job) and the pause: the
            # resolution of t1..t3; states that came within one look share a time (t1_t2 = 0).
            "poll_period_s": seen["poll_period_s"],
            # The server's own timestamps, for comparison with the polled ones.
            "server_s": {
                "t0_to_alert_created": since(t0, epoch(alert["created_at"])),
                # Started: its first progress report or round, just after the claim.
                "t0_to_confirm_job_started": since(t0, epoch(confirm_job["started_at"])),
                "t0_to_alert_settled": since(t0, epoch(alert["status_changed_at"])),
                "t0_to_confirm_job_finished": since(t0, epoch(confirm_job["finished_at"])),
                "t0_polled_lag": since(t0, seen["t0_polled"]),
                "fired_to_t0": since(seen["fired"], t0),
            },
        }

    def regression(self, number: int) -> dict[str, Any]:
        old, new = versions(number)
        machine = self.machine(f"reg-{number}", new, number)
        try:
            self.history(machine, [old] * HISTORY)
            self.history(machine, [new] * (MIN_SIDE - 1))
            self.detection_idle()
            seen = self.measure(machine, new, lambda a: a["status"] == "open"
                                and (a["confirmation"] or {}).get("verdict") == "different")  # fmt: skip
            record = self.finish(seen)
        finally:
            machine.stop()
        record["agent"] = machine.name
        at = poll(f"the notification of alert {record['alert_id']}",
                  lambda: notified(record["alert_id"]), timeout=NOTIFY_DELAY + 120)  # fmt: skip
        record["times"]["t4"] = at
        record["intervals_s"] = intervals(record["times"])
        return record

    def one_off(self, number: int) -> dict[str, Any]:
        old, new = versions(number)
        machine = self.machine(f"once-{number}", new, number)
        try:
            self.history(machine, [old] * HISTORY)
            # The next MIN_SIDE runs are slow, the last of them the measured one.
            machine.marker.write_text(str(MIN_SIDE * REPETITIONS))
            self.history(machine, [old] * (MIN_SIDE - 1))
            self.detection_idle()
            seen = self.measure(machine, old, lambda a: a["status"] == "resolved")
            record = self.finish(seen)
            record["marker_left"] = machine.marker.read_text().strip()
        finally:
            machine.stop()
        record["agent"] = machine.name
        return record


def run_cases(base: str, admin: str, hook: str, workdir: Path) -> dict[str, Any]:
    regression: list[dict[str, Any]] = []
    one_off: list[dict[str, Any]] = []
    errors: list[str] = []
    headers = {"Authorization": f"Bearer {admin}"}
    with httpx.Client(base_url=base, timeout=30, headers=headers) as api:
        channel = {"name": "bench-confirm", "kind": "webhook", "target": hook}
        api.post("/api/v1/channels", json=channel).raise_for_status()
        bench = Bench(api, base, workdir)
        for number in range(1, REPEATS + 1):
            for name, case, into in (("regression", bench.regression, regression),
                                     ("one_off", bench.one_off, one_off)):  # fmt: skip
                print(f"{name} {number}/{REPEATS}", flush=True)
                try:
                    into.append(case(number))
                    print(f"  {json.dumps(into[-1]['intervals_s'])}", flush=True)
                except Exception as exc:  # recorded; the next case goes on
                    errors.append(f"{name} {number}: {type(exc).__name__}: {exc}")
                    print(f"  failed: {errors[-1]}", flush=True)
        # A one-off's notification would come NOTIFY_DELAY after it was (wrongly) opened.
        last = max((r["times"]["t3"] for r in one_off), default=time.time())
        time.sleep(max(0.0, last + NOTIFY_DELAY + 10 - time.time()))
    return {"regression": regression, "one_off": one_off, "errors": errors}


def main() -> int:
    load_before, started_at = os.getloadavg(), dt.datetime.now(dt.UTC)
    tag = f"{os.getpid()}-{int(time.time())}"
    queue = f"perfatlas-bench-confirm-{tag}"
    with psycopg.connect(admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB}"')
    workdir = Path(tempfile.mkdtemp(prefix="bench-confirm-"))
    env = perfatlas_env(DB, free_port(), PERFATLAS_BROKER_URL=REDIS_URL, PERFATLAS_QUEUE=queue,
                        PERFATLAS_DATA_DIR=str(workdir))  # fmt: skip
    subprocess.run([*PERFATLAS, "migrate"], env=env, check=True, capture_output=True)
    admin = create_token(env, "admin")
    receiver = serve_webhook()
    server, base = start_server(env, workers=1)
    try:
        worker = start_worker(env, workdir / "worker.log")
        try:
            hook = f"http://127.0.0.1:{receiver.server_port}/hook"
            found = run_cases(base, admin, hook, workdir)
        finally:
            stop_process(worker)
    finally:
        stop_process(server)
        receiver.shutdown()
        drop_queues(queue)
    regression, one_off, errors = found["regression"], found["one_off"], found["errors"]
    for record in [*regression, *one_off]:
        record["notifications"] = events(record["alert_id"])
    ok = checks(regression, one_off, errors, REPEATS)
    reg, once = summarize(regression), summarize(one_off)

    report = {
        "benchmark": "confirm",
        "setup": {
            "database": DB,
            "api_workers": 1,
            "worker": "perfatlas worker (beat, Redis queue of its own)",
            "repeats": REPEATS,
            "history_points_old_version": HISTORY,
            "new_version_points_before_measured": MIN_SIDE - 1,
            "repetitions_per_run": REPETITIONS,
            "levels": {"old": LEVEL, "new": SLOW_LEVEL, "noise": "x (1 +- 1 %), seeded"},
            "seed": f"{SEED} + the repeat's number",
            "poll_interval_s": POLL,
            "claim_wait_s": CLAIM_WAIT or "daemon default",
            "rounds_max": ROUNDS_MAX,
            # A fixed wait inside t3 -> t4: the worker holds an opened incident's notification
            # this long so that the alerts of one cause go out together.
            "notify_delay_seconds": NOTIFY_DELAY,
        },
        "clock": "time.time() on this machine: t0 is the measured job's finished_at (server); "
        "t1..t3 the first poll that saw the state; t4 the receiver's arrival time",
        "regression": {"summary": reg, "cases": regression},
        "one_off": {
            "summary": once,
            "cases": one_off,
            "notifications_naming_them": sum(len(r["notifications"]) for r in one_off),
        },
        "notifications_received": len(Receiver.received),
        "errors": errors,
        "checks": ok,
        "figures": {
            "candidate_to_confirmed_alert_s": median(reg, "t0_t3"),
            "candidate_to_notification_s": median(reg, "t0_t4"),
            "candidate_to_notification_minus_notify_delay_s": (
                round(median(reg, "t0_t4") - NOTIFY_DELAY, 3) if median(reg, "t0_t4") else None
            ),
            "regression_rounds_median": median(reg, "rounds"),
            "one_off_to_not_confirmed_s": median(once, "t0_t3"),
            "one_off_rounds_median": median(once, "rounds"),
            "one_off_notifications": sum(len(r["notifications"]) for r in one_off),
        },
        "full_size": REPEATS >= 3,
        "started_at": started_at.isoformat(timespec="seconds"),
        "finished_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "loadavg_before": load_before,
            "loadavg_after": os.getloadavg(),
        },
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("figures", "checks", "errors")}, indent=2))
    print(f"written to {OUT}")
    if all(ok.values()):
        shutil.rmtree(workdir)  # kept, with the worker's and daemons' logs, when a check fails
        return 0
    print(f"checks failed; logs in {workdir}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
