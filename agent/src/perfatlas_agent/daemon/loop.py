"""`perfatlas-agent daemon`: the enrolled agent's loop. A heartbeat every 15 s (a thread);
long-poll claims; each job run by job.JobExecution. Connection errors and 5xx (a server
restarting) are retried with backoff; a refused token (revoked) ends the daemon (exit 4);
SIGTERM (or SIGINT) abandons the job under way, releases it, uploads its runs and exits 0."""

from __future__ import annotations

import datetime as dt
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from perfatlas_agent import __version__
from perfatlas_agent.config import AgentConfig
from perfatlas_agent.daemon.job import JobExecution
from perfatlas_agent.daemon.progress import STOPPING, Interrupter
from perfatlas_agent.daemon.protocol import JobClient, retrying
from perfatlas_agent.daemon.stopping import Stop
from perfatlas_agent.errors import Refused, Revoked, Stopped, Transient
from perfatlas_agent.send.client import Client, flush
from perfatlas_agent.send.spool import Spool, default_spool_dir

HEARTBEAT_EVERY = 15.0
CLAIM_WAIT = 25.0
REFUSED_WAIT = 30.0
EXIT_REVOKED = 4


def default_daemon_spool() -> Path:
    """Beside `run`'s spool, apart from it: the daemon's spool holds its own runs only."""
    return default_spool_dir().parent / "daemon-spool"


def log_line(text: str) -> None:
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(f"{now} {text}", file=sys.stderr, flush=True)


class Heartbeat(threading.Thread):
    def __init__(self, daemon: Daemon) -> None:
        super().__init__(name="heartbeat", daemon=True)
        self.owner = daemon
        self.failures = 0

    def run(self) -> None:
        client = JobClient(self.owner.config.server, self.owner.config.token, timeout_s=10)
        try:
            while not self.owner.stop.is_set():
                try:
                    client.heartbeat()
                    if self.failures:
                        self.owner.say("heartbeat: the server answers again")
                    self.failures = 0
                except Revoked as exc:
                    self.owner.revoke(exc)
                    return
                except Exception as exc:  # Transient, or a server without the route yet
                    self.failures += 1
                    if self.failures in (1, 10) or self.failures % 100 == 0:
                        self.owner.say(f"heartbeat failed ({exc}); retrying")
                if self.owner.stop.wait(self.owner.heartbeat_every):
                    return
        finally:
            client.close()


class Daemon:
    def __init__(
        self, config: AgentConfig, spool: Spool, *, say: Callable[[str], None] = log_line,
        heartbeat_every: float = HEARTBEAT_EVERY, claim_wait: float = CLAIM_WAIT,
    ) -> None:  # fmt: skip
        self.config = config
        self.spool = spool
        self.say = say
        self.heartbeat_every = heartbeat_every
        self.claim_wait = claim_wait
        self.stop = Stop()
        self.revoked: Revoked | None = None
        self.interrupter = Interrupter()

    def revoke(self, exc: Revoked) -> None:
        if self.revoked is None:
            self.revoked = exc
        self.stop.set()
        self.interrupter.request(STOPPING)

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        if not self.stop.is_set():
            self.say(f"{signal.Signals(signum).name}: stopping")
        self.stop.set()
        self.interrupter.request(STOPPING)

    def run(self) -> int:
        self.interrupter.install()
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        self.say(
            f"perfatlas-agent {__version__} daemon: agent {self.config.name} on "
            f"{self.config.server}, spool {self.spool.root}"
        )
        heartbeat = Heartbeat(self)
        heartbeat.start()
        client = JobClient(self.config.server, self.config.token)
        try:
            self._flush_leftovers()
            self._loop(client)
        finally:
            client.close()
            self.stop.set()
            heartbeat.join(timeout=15)
        if self.revoked is not None:
            self.say(f"error: {self.revoked}")
            return EXIT_REVOKED
        self.say("stopped")
        return 0

    def _loop(self, client: JobClient) -> None:
        while not self.stop.is_set():
            self.interrupter.reset()
            try:
                job = self._claim(client)
            except Stopped:
                return
            except Revoked as exc:
                self.revoke(exc)
                return
            except Refused as exc:  # a server without the job routes, or a bug: wait, retry
                self.say(f"claim refused ({exc}); trying again in {REFUSED_WAIT:.0f}s")
                self.stop.wait(REFUSED_WAIT)
                continue
            if job is None:
                continue
            outcome = JobExecution(
                job, config=self.config, spool=self.spool, interrupter=self.interrupter,
                say=self.say,
            ).execute()  # fmt: skip
            if outcome.revoked is not None:
                self.revoke(outcome.revoked)

    def _claim(self, client: JobClient) -> dict[str, object] | None:
        """A job, or None; a SIGTERM while waiting ends the long poll at once (Stopped)."""
        self.interrupter.arm()
        try:
            return retrying(
                lambda: client.claim(self.claim_wait), stop=self.stop, first_delay=1.0,
                on_retry=lambda p, w: self.say(f"claim failed ({p}); retrying in {w:.0f}s"),
            )  # fmt: skip
        except KeyboardInterrupt as exc:  # the Abandon of a SIGTERM during the long poll
            raise Stopped("stopping") from exc
        finally:
            self.interrupter.disarm()

    def _flush_leftovers(self) -> None:
        """Runs a previous daemon measured but could not deliver (best effort)."""
        if not self.spool.pending() and not self.spool.attachments_waiting():
            return
        try:
            with Client(self.config.server, self.config.token, deadline_s=10.0) as http:
                report = flush(self.spool, http, on_message=self.say)
        except Transient as exc:
            self.say(f"leftover runs not uploaded yet ({exc})")
            return
        if report.delivered or report.remaining:
            self.say(
                f"leftover runs: {report.delivered} uploaded, {report.remaining} still spooled"
            )
