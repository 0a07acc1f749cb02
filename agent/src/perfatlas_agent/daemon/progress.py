"""A job's progress: the reporter the sweep talks to (it keeps the phase, the point, the counts
and the new log lines), and the thread that sends them to the server every `every` seconds,
whatever the sweep is doing (a long repetition included). The answer may say cancel; a lost
lease or a refused token also stops the job: each one goes to the Interrupter."""

from __future__ import annotations

import signal
import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from perfatlas_agent.daemon.protocol import JobClient
from perfatlas_agent.errors import Abandon, LeaseLost, Refused, Revoked, Transient
from perfatlas_agent.measure.progress import PlainReporter

MAX_LINES_PER_CALL = 200
MAX_LINE = 2000
MAX_PENDING_LINES = 5000

CANCELLED = "cancelled"
LEASE_LOST = "lease lost"
REVOKED = "revoked"
STOPPING = "stopping"


class Interrupter:
    """Stops the sweep in the main thread at once, as Ctrl-C does: a request from any thread
    sends SIGUSR1 to the main thread, whose handler raises Abandon there, but only inside
    `armed()` (while the sweep runs) and once per job, so that cleanup is never cut short."""

    def __init__(self) -> None:
        # Re-entrant: the signal handler may run while the main thread holds it.
        self._lock = threading.RLock()
        self.reason: str | None = None
        self._armed = False
        self._raised = False
        self._main = threading.main_thread().ident

    def install(self) -> None:
        signal.signal(signal.SIGUSR1, lambda _s, _f: self.maybe_raise())

    def reset(self) -> None:
        with self._lock:
            self.reason = None
            self._raised = False

    def request(self, reason: str) -> None:
        with self._lock:
            if self.reason is None:
                self.reason = reason
        if threading.get_ident() == self._main:
            self.maybe_raise()
        elif self._main is not None:
            signal.pthread_kill(self._main, signal.SIGUSR1)

    def maybe_raise(self) -> None:
        with self._lock:
            if not self._armed or self._raised or self.reason is None:
                return
            self._raised = True
            reason = self.reason
        raise Abandon(reason)

    def arm(self) -> None:
        with self._lock:
            self._armed = True
        self.maybe_raise()  # a request that came before

    def disarm(self) -> None:
        with self._lock:
            self._armed = False


def _short(value: Any) -> Any:
    return value.replace("\x00", "")[:256] if isinstance(value, str) else value


class JobReporter(PlainReporter):
    """Plain lines on stderr (the daemon's log) that are also queued for the server."""

    def __init__(
        self,
        *,
        total_runs: int,
        reps_per_run: int,
        stream: TextIO | None = None,
        shown: frozenset[str] | None = None,
    ):
        super().__init__(stream)
        # The parameters the spec names (the point of the sweep as the user wrote it); the
        # workload's defaults (a command's timeout) are left out of the progress line.
        self.shown = shown
        self._lock = threading.Lock()
        self._pending: deque[str] = deque(maxlen=MAX_PENDING_LINES)
        self.total_runs = total_runs
        self.reps_per_run = reps_per_run
        self.runs_done = 0
        self.reps_done = 0
        self.phase_name = "starting"
        self.point: dict[str, Any] = {}

    def _line(self, text: str) -> None:
        super()._line(text)
        with self._lock:
            self._pending.append(text.strip().replace("\x00", "")[:MAX_LINE])

    def run_started(self, index: int, total: int, workload: str, params: Mapping[str, Any]) -> None:
        with self._lock:
            self.point = {
                k: _short(v)
                for k, v in list(params.items())[:100]
                if k != "cmd" and (self.shown is None or k in self.shown or k == "target")
            }
        super().run_started(index, total, workload, params)

    def phase(self, name: str) -> None:
        with self._lock:
            self.phase_name = name
        super().phase(name)

    def rep_finished(self) -> None:
        with self._lock:
            self.reps_done += 1

    def run_finished(self, run: Mapping[str, Any]) -> None:
        with self._lock:
            self.runs_done += 1
            self.reps_done = self.runs_done * self.reps_per_run
        super().run_finished(run)

    def take_lines(self, limit: int = MAX_LINES_PER_CALL) -> list[str]:
        with self._lock:
            return [self._pending.popleft() for _ in range(min(limit, len(self._pending)))]

    def give_back(self, lines: list[str]) -> None:
        with self._lock:
            self._pending.extendleft(reversed(lines))

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            total = max(1, self.total_runs * self.reps_per_run)
            percent = min(100.0, 100.0 * self.reps_done / total)
            return {
                "phase": self.phase_name[:64],
                "percent": round(percent, 2),
                "point": dict(self.point),
                "done": self.runs_done,
                "total": self.total_runs,
            }


class ProgressThread(threading.Thread):
    def __init__(
        self, *, client_factory: Callable[[], JobClient], job_id: int, attempt: int,
        reporter: JobReporter, interrupter: Interrupter, every: float,
        say: Callable[[str], None],
    ) -> None:  # fmt: skip
        super().__init__(name=f"progress-{job_id}", daemon=True)
        self.client_factory = client_factory
        self.job_id = job_id
        self.attempt = attempt
        self.reporter = reporter
        self.interrupter = interrupter
        self.every = every
        self.say = say
        self._done = threading.Event()
        self.revoked: Revoked | None = None
        self.failures = 0

    def stop(self) -> None:
        """Ends the reports after a last one (the counts at the end, the last lines)."""
        self._done.set()
        self.join()

    def run(self) -> None:
        client = self.client_factory()
        try:
            while True:
                if not self._send(client):
                    return
                if self._done.wait(self.every):
                    self._send(client)
                    return
        finally:
            client.close()

    def _send(self, client: JobClient) -> bool:
        """One report; False when the job is no longer this agent's (stop reporting)."""
        lines = self.reporter.take_lines()
        body = {"attempt": self.attempt, **self.reporter.snapshot(), "log": lines}
        try:
            answer = client.progress(self.job_id, body)
        except Transient as exc:
            self.reporter.give_back(lines)
            self.failures += 1
            if self.failures in (1, 10) or self.failures % 100 == 0:
                self.say(f"job {self.job_id}: progress not delivered ({exc}); retrying")
            return True
        except LeaseLost as exc:
            self.say(f"job {self.job_id}: the lease is lost ({exc}); abandoning the job")
            self.interrupter.request(LEASE_LOST)
            return False
        except Revoked as exc:
            self.revoked = exc
            self.interrupter.request(REVOKED)
            return False
        except Refused as exc:  # a server that does not take our report: keep working
            self.say(f"job {self.job_id}: progress refused ({exc})")
            return True
        self.failures = 0
        if answer.get("cancel") and self.interrupter.reason is None:
            self.say(f"job {self.job_id}: cancelled by the server; stopping")
            self.interrupter.request(CANCELLED)
        return True
