"""`perfatlas serve --with-worker`'s worker: a child process, restarted with backoff when it
dies, its death told to /ready at once (health.service.mark_worker_down)."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from perfatlas.core.config import Settings

log = logging.getLogger("perfatlas.supervisor")

FIRST_BACKOFF_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 60.0
# A worker that ran this long before it died starts the backoff over.
STEADY_SECONDS = 60.0
STOP_SECONDS = 15.0


class WorkerSupervisor:
    def __init__(
        self, settings: Settings, log_path: Path, echo: Callable[[str], None],
        preexec: Callable[[], None] | None = None,
    ) -> None:  # fmt: skip
        self.settings = settings
        self.log_path = log_path
        self.echo = echo
        self.preexec = preexec
        self.argv = [sys.executable, "-m", "perfatlas", "worker", "--beat"]
        self.child: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-supervisor", daemon=True)

    def start(self) -> None:
        self._spawn()
        self._thread.start()

    def _spawn(self) -> None:
        with self.log_path.open("ab") as out:
            # A group of its own: when it dies, the beat process it forked goes with it
            # (killpg below), instead of living on as an orphan beside the next worker's beat.
            self.child = subprocess.Popen(
                self.argv, stdout=out, stderr=subprocess.STDOUT, preexec_fn=self.preexec,
                process_group=0,
            )  # fmt: skip

    def _run(self) -> None:
        backoff = FIRST_BACKOFF_SECONDS
        while True:
            child = self.child
            assert child is not None
            started = time.monotonic()
            code = child.wait()  # reaps it: no zombie
            _kill_group(child.pid)
            if self._stopping.is_set():
                return
            if time.monotonic() - started > STEADY_SECONDS:
                backoff = FIRST_BACKOFF_SECONDS
            how = f"signal {-code}" if code < 0 else f"exit code {code}"
            message = (
                f"background worker (pid {child.pid}) stopped ({how}); restarting it in "
                f"{backoff:.0f} s (log: {self.log_path})"
            )
            log.warning(message)
            self.echo(message)
            self._tell_down(f"the worker process stopped ({how}); restarting")
            if self._stopping.wait(backoff):
                return
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
            self._spawn()
            self.restarts += 1
            self.echo(f"background worker restarted (pid {self.child.pid})")  # type: ignore[union-attr]

    def _tell_down(self, detail: str) -> None:
        from perfatlas.core.db import get_engine, session_factory
        from perfatlas.health.service import mark_worker_down

        try:
            engine = get_engine(self.settings.effective_database_url)
            with session_factory(engine)() as session:
                mark_worker_down(session, queue=self.settings.queue, detail=detail)
        except Exception as exc:  # the database may be what killed it: /ready's age says so
            log.warning("could not record the worker's stop: %s", type(exc).__name__)

    def stop(self) -> None:
        self._stopping.set()
        child = self.child
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            _kill_group(child.pid)
        self._thread.join(timeout=STOP_SECONDS)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
