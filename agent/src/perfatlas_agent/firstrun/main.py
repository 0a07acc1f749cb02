"""`perfatlas-agent first-run`: what `make up` starts beside the server (through `perfatlas
serve --first-run`). Once per database it enrolls a local agent (label firstrun=true), makes
the targets this machine allows and creates a "now" schedule per quick study spec and target;
then it runs `perfatlas-agent daemon` for that agent until the first run's jobs are all final,
so every measurement goes through jobs, the daemon and the upload path and the Jobs page shows
it live. On SIGTERM/SIGINT, or when done, the daemon stops and the mounts are undone. A later
start with jobs still queued (make up stopped half-way) picks them up again; with none, it
exits at once. A database that has measured runs without having had a first run (one from
before this feature, or runs uploaded first) gets none: it is not an empty page. Reference
runs (published figures) do not count."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import httpx

from perfatlas_agent.config import AgentConfig, load_config, save_config
from perfatlas_agent.daemon.protocol import JobClient
from perfatlas_agent.daemon.protocol import enroll as enroll_agent
from perfatlas_agent.daemon.stopping import Stop
from perfatlas_agent.errors import AgentError, Revoked
from perfatlas_agent.firstrun.plan import LABEL, PREFIX, parse_studies, schedules, variants
from perfatlas_agent.firstrun.targets import Target, parse_filesystems, planned, prepare
from perfatlas_agent.studies import Options

Say = Callable[[str], None]
ACTIVE = ("queued", "leased", "running")


class Api:
    """The server's API with the first run's admin token."""

    def __init__(self, server: str, token: str) -> None:
        self.http = httpx.Client(base_url=server.rstrip("/") + "/api/v1", timeout=30,
                                 headers={"Authorization": f"Bearer {token}"})  # fmt: skip

    def get(self, path: str, **params: Any) -> Any:
        response = self.http.get(path, params=params)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        response = self.http.post(path, json=body)
        if response.status_code >= 400:
            raise AgentError(f"POST {path}: {response.status_code} {response.text[:300]}")
        return response.json() if response.content else None

    def jobs(self, agent: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page = self.get(
                "/jobs", agent=agent, limit=500, **({"cursor": cursor} if cursor else {})
            )
            items += page["items"]
            cursor = page.get("next_cursor")
            if not cursor:
                return items


def wait_for_server(server: str, stop: Stop, timeout: float = 300) -> bool:
    deadline = time.monotonic() + timeout
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            if httpx.get(server.rstrip("/") + "/api/v1/health", timeout=2).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        stop.wait(0.5)
    return False


def ensure_agent(api: Api, server: str, config_dir: Path, say: Say) -> AgentConfig:
    """The first run's agent: the one enrolled before if the server still takes its token,
    else a new one named after the host (with -firstrun when that name is taken)."""
    config = load_config(config_dir)
    if config is not None and config.server == server.rstrip("/"):
        client = JobClient(config.server, config.token, timeout_s=10)
        try:
            client.heartbeat()
            return config
        except Revoked:
            say(f"first run: the server no longer takes agent {config.name}'s token; enrolling")
        finally:
            client.close()
    host = socket.gethostname() or "localhost"
    for name in (host, f"{host}-firstrun", f"{host}-firstrun-{os.getpid()}"):
        token = api.post("/agents/enrollment-tokens", {"labels": LABEL, "expires_in_hours": 1})
        try:
            answer = enroll_agent(server, enrollment_token=token["token"], name=name, labels=LABEL)
        except AgentError as exc:
            say(f"first run: cannot enroll as {name} ({exc})")
            continue
        config = AgentConfig(server=server.rstrip("/"), name=str(answer["name"]),
                             token=str(answer["token"]), labels=dict(answer.get("labels") or {}))  # fmt: skip
        save_config(config_dir, config)
        say(f"first run: enrolled agent {config.name} (label firstrun=true)")
        return config
    raise AgentError("first run: could not enroll an agent")


class FirstRun:
    def __init__(self, server: str, token: str, root: Path, studies: list[str],
                 filesystems: list[str], say: Say) -> None:  # fmt: skip
        self.server, self.root, self.say = server, root, say
        self.studies, self.filesystems = studies, filesystems
        self.options = Options.here(quick=True)
        self.api = Api(server, token)
        self.stop = Stop()
        self.daemon: subprocess.Popen[bytes] | None = None

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.stop.set()  # no lock: perfatlas_agent/daemon/stopping.py

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "first-run.pid").write_text(f"{os.getpid()}\n")
        try:
            return self._run()
        finally:
            (self.root / "first-run.pid").unlink(missing_ok=True)

    def _run(self) -> int:
        if not wait_for_server(self.server, self.stop):
            self.say("first run: the server did not answer; nothing done")
            return 1
        made = [s for s in self.api.get("/schedules")["items"] if s["name"].startswith(PREFIX)]
        if not made and self._measured_before():
            self.say("first run: skipped, this database has runs already")
            return 0
        config = ensure_agent(self.api, self.server, self.root / "agent", self.say)
        if made and not [j for j in self.api.jobs(config.name) if j["status"] in ACTIVE]:
            self.say(f"first run: done before ({len(made)} schedules); nothing to do")
            return 0
        targets = planned(self.root / "mounts", self.filesystems, is_root=os.geteuid() == 0,
                          say=self.say, variants=variants(self.studies, self.options))  # fmt: skip
        mounts, ready = prepare(self.root / "mounts", targets, self.say)
        try:
            if made:
                self._cancel_unreachable(config.name, ready)
            else:
                self._schedule(config.name, ready)
            if self.stop.is_set():
                return 0
            self._run_daemon(config.name)
        finally:
            self._stop_daemon()
            mounts.close()
            self.say("first run: daemon stopped, mounts undone")
        return 0

    def _measured_before(self) -> bool:
        """Whether the database has a measured run (reference runs, the published figures
        `perfatlas report defaults` stores, are not measurements of anything here)."""
        cursor: str | None = None
        while True:
            page = self.api.get("/runs", limit=500, **({"cursor": cursor} if cursor else {}))
            if any(not run.get("reference") for run in page["items"]):
                return True
            cursor = page.get("next_cursor")
            if not cursor:
                return False

    def _schedule(self, agent: str, ready: list[Target]) -> None:
        plan = schedules(self.studies, ready, self.options)
        for item in plan:
            self.api.post("/schedules", {"name": item.name, "spec": item.spec,
                                         "agents": [agent, "firstrun=true"], "when": "now"})  # fmt: skip
        fs = ", ".join(t.key for t in ready) or "nothing"
        self.say(f"first run: {len(plan)} jobs queued for agent {agent}: studies "
                 f"{', '.join(self.studies)} on {fs}")  # fmt: skip

    def _cancel_unreachable(self, agent: str, ready: list[Target]) -> None:
        """Jobs left from an earlier start whose filesystem could not be made now: cancelled,
        never run in the bare folder (their runs would say a filesystem they did not use)."""
        folders = {str(t.folder) for t in ready}
        for job in self.api.jobs(agent):
            targets = set(job["spec"]["targets"])
            # A held one too: its daemon is gone, and when its lease lapses it is cancelled
            # rather than queued again.
            if job["status"] in ACTIVE and not targets <= folders:
                self.api.post(f"/jobs/{job['id']}/cancel")
                self.say(f"first run: cancelled job {job['id']}: its filesystem is not there now")

    def _run_daemon(self, agent: str) -> None:
        log = (self.root / "daemon.log").open("ab")
        self.daemon = subprocess.Popen(
            [sys.executable, "-m", "perfatlas_agent", "daemon", "--config-dir",
             str(self.root / "agent"), "--spool", str(self.root / "spool"), "--claim-wait", "5"],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=die_with_parent,
        )  # fmt: skip
        log.close()
        (self.root / "daemon.pid").write_text(f"{self.daemon.pid}\n")
        self.say(f"first run: daemon started (pid {self.daemon.pid}); its log: "
                 f"{self.root / 'daemon.log'}")  # fmt: skip
        while not self.stop.wait(2):
            if self.daemon.poll() is not None:
                self.say(f"first run: the daemon exited ({self.daemon.returncode})")
                return
            try:
                jobs = self.api.jobs(agent)
            except httpx.HTTPError:
                continue  # the server restarting: ask again
            if jobs and not [j for j in jobs if j["status"] in ACTIVE]:
                done = sum(j["status"] == "succeeded" for j in jobs)
                self.say(f"first run: done, {done} of {len(jobs)} jobs succeeded")
                return

    def _stop_daemon(self) -> None:
        if self.daemon is None:
            return
        if self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
            try:
                self.daemon.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.daemon.kill()
                self.daemon.wait()
        (self.root / "daemon.pid").unlink(missing_ok=True)


def die_with_parent() -> None:
    """In a child: SIGTERM when its parent goes, however it goes."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


def first_run(server: str, token: str, root: Path, studies: str, filesystems: str) -> int:
    from perfatlas_agent.daemon.loop import log_line

    return FirstRun(server, token, root, parse_studies(studies), parse_filesystems(filesystems),
                    log_line).run()  # fmt: skip
