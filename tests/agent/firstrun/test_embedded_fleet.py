"""The embedded defaults end to end, as `make up` runs them: `perfatlas serve --with-worker` on a
SQLite file under a temporary PERFATLAS_DATA_DIR, no broker URL (the worker's broker is kept in
a SQLite file too), and a real enrolled `perfatlas-agent daemon`. A schedule made over the API
("now", then a one-off fired by the embedded beat) becomes a job the daemon runs, and the job's
runs are stored with the values the command printed."""

from __future__ import annotations

import datetime as dt
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from perfatlas.core.db import get_engine, session_factory
from perfatlas.schedules.models import Schedule
from tests.agent.daemon_helpers import (
    DaemonProcess,
    RestartableServer,
    command_spec,
    enroll,
    wait_for,
)
from tests.conftest import _free_port

FINAL = ("succeeded", "failed", "cancelled", "expired")


class EmbeddedServer(RestartableServer):
    """What `make up` does: migrate, an admin token, `perfatlas serve --no-migrate --with-worker`,
    with nothing set but the data folder (and the port). Without --first-run: the first
    run (its own test: test_first_run.py) stays off here."""

    SERVE_FLAGS: tuple[str, ...] = ("--no-migrate", "--with-worker")

    def __init__(self, root: Path) -> None:  # no PostgreSQL database: not the parent's
        self.root = root
        self.data_dir = root / "data"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
        self.env["PERFATLAS_DATA_DIR"] = str(self.data_dir)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database_url = f"sqlite:///{(self.data_dir / 'perfatlas.db').resolve()}"
        self.log_dir = root
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._cli("migrate")
        self.admin_token = self.read_token = self._cli(
            "token", "create", "--scope", "admin", "--name", "make-up", "--replace", "--quiet"
        ).strip()

    def _cli(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "perfatlas", *args], env=self.env, cwd=self.root,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    @property
    def worker_log(self) -> Path:
        return self.data_dir / "worker.log"

    def start(self, *, wait: bool = True) -> None:
        """`wait`: until the server answers and its worker is ready (the first-run helper it
        starts does not wait for the worker)."""
        env = {**self.env, "PERFATLAS_HOST": "127.0.0.1", "PERFATLAS_PORT": str(self.port)}
        self.starts += 1
        with (self.root / f"serve-{self.starts}.log").open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "perfatlas", "serve", *self.SERVE_FLAGS],
                env=env, cwd=self.root, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        if not wait:
            return

        def up() -> bool:
            assert self.proc is not None and self.proc.poll() is None, "serve exited"
            try:
                answered = httpx.get(f"{self.url}/api/v1/health", timeout=5).status_code == 200
            except httpx.TransportError:
                return False
            log = self.worker_log.read_text(errors="replace") if self.worker_log.exists() else ""
            return answered and "ready." in log

        wait_for("the server and its worker to start", up, timeout=300)

    def close(self) -> None:
        self.stop()


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[EmbeddedServer]:
    server = EmbeddedServer(tmp_path)
    server.start()
    yield server
    server.close()


def counting_command(counters: Path) -> str:
    """Prints {"v": 100·k + n} where n counts this point's executions (1, 2, …): a value the
    test knows in advance for every sample."""
    count = f"{counters}/count-{{k}}"
    return (
        f"n=$(( $(cat {count} 2>/dev/null || echo 0) + 1 )); echo $n > {count}; "
        'echo "{\\"v\\": $((100 * {k} + n))}"'
    )


def settled(server: EmbeddedServer, job_id: int) -> Any:
    def probe() -> dict[str, Any] | None:
        job = server.job(job_id)
        return job if job["status"] in FINAL else None

    return probe


def check_runs(server: EmbeddedServer, job: dict[str, Any], ks: list[int], reps: int) -> None:
    """The job's runs, read back through GET /runs and GET /runs/{uuid}: one per k, each with
    the samples the command printed (100·k + 1 … 100·k + reps) and their median as its value."""
    listed = [r for r in server.runs_of(job["leased_by"]) if r["job_id"] == job["id"]]
    assert sorted(r["uuid"] for r in listed) == sorted(job["runs"])
    seen = {}
    for summary in listed:
        run = server.get(f"/runs/{summary['uuid']}")
        (result,) = [r for r in run["results"] if r["metric"] == "v"]
        seen[run["parameters"]["k"]] = (result["samples"], result["value"])
    expected = {}
    for k in ks:
        samples = [float(100 * k + n) for n in range(1, reps + 1)]
        expected[k] = (samples, statistics.median(samples))
    assert seen == expected


def test_schedule_to_job_to_runs_on_the_embedded_defaults(
    embedded: EmbeddedServer, tmp_path: Path
) -> None:
    machine = tmp_path / "machine"
    enroll(embedded, machine / "config", "lab-embedded", "disk=nvme")
    daemon = DaemonProcess(machine / "config", machine / "spool", tmp_path / "daemon.log",
                           claim_wait=10)  # fmt: skip
    try:
        wait_for("the agent's heartbeat",
                 lambda: [a for a in embedded.get("/agents") if a["online"]])  # fmt: skip
        # "now": the job exists when the answer comes; the daemon runs it.
        counters = tmp_path / "counters-now"
        counters.mkdir()
        spec = command_spec(machine / "target", counting_command(counters), params={"k": [1, 2, 3]},
                            repetitions=2)  # fmt: skip
        made = embedded.post(
            "/schedules", {"name": "now", "spec": spec, "agents": ["disk=nvme"], "when": "now"}
        )
        assert made.status_code == 201, made.text
        (job,) = embedded.get("/jobs", schedule=made.json()["id"])["items"]
        assert job["agent"] == "lab-embedded" and job["points"] == 3
        job = wait_for("the job to settle", settled(embedded, job["id"]), timeout=300)
        assert job["status"] == "succeeded", (job, daemon.log())
        check_runs(embedded, job, [1, 2, 3], reps=2)

        # A one-off ahead: nothing until it is due and the embedded beat fires it. Made an hour
        # ahead, then made due by its stored time: a time a few seconds ahead could pass before
        # a busy machine had answered the request and the check that nothing fired yet.
        counters = tmp_path / "counters-once"
        counters.mkdir()
        later = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).replace(microsecond=0)
        spec = command_spec(machine / "target", counting_command(counters), params={"k": [4]},
                            repetitions=3)  # fmt: skip
        made = embedded.post(
            "/schedules",
            {"name": "once", "spec": spec, "agents": ["disk=nvme"], "when": later.isoformat()},
        )
        assert made.status_code == 201, made.text
        schedule = made.json()
        assert dt.datetime.fromisoformat(schedule["next_fire_at"]) == later
        assert embedded.get("/jobs", schedule=schedule["id"])["items"] == []
        at = (dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)).replace(microsecond=0)
        with session_factory(get_engine(embedded.database_url))() as session:
            session.execute(
                update(Schedule).where(Schedule.id == schedule["id"]).values(next_fire_at=at)
            )
            session.commit()
        (job,) = wait_for(
            "the beat to fire the one-off",
            lambda: embedded.get("/jobs", schedule=schedule["id"])["items"], timeout=300,
        )  # fmt: skip
        assert dt.datetime.fromisoformat(job["fire_at"]) == at
        assert dt.datetime.fromisoformat(job["created_at"]) >= at
        job = wait_for("the one-off's job to settle", settled(embedded, job["id"]), timeout=300)
        assert job["status"] == "succeeded", (job, daemon.log())
        check_runs(embedded, job, [4], reps=3)
        fired = embedded.get(f"/schedules/{schedule['id']}")
        assert fired["next_fire_at"] is None
        assert dt.datetime.fromisoformat(fired["last_fired_at"]) == at
    finally:
        daemon.stop()
    worker_log = embedded.worker_log.read_text(errors="replace")
    assert "Connected to sqla+sqlite:" in worker_log  # the database broker, no Redis
    assert "perfatlas.fire_schedules" in worker_log
    assert list(embedded.data_dir.glob("perfatlas.db")) and list(
        embedded.data_dir.glob("broker.db")
    )
