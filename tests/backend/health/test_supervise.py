"""`perfatlas serve --with-worker` (what `make up` runs) supervises its worker: killed with -9,
it is restarted, nothing is left behind (no zombie, no orphaned beat), and /ready says 503
while it is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tests.conftest import _free_port, patient

# Kills and restarts worker processes.
pytestmark = pytest.mark.slow


def _get(url: str) -> httpx.Response | None:
    try:
        return httpx.get(url, timeout=5)
    except httpx.TransportError:
        return None


def _worker_of(serve: psutil.Process) -> psutil.Process | None:
    for child in serve.children():
        if "worker" in child.cmdline() and child.status() != psutil.STATUS_ZOMBIE:
            return child
    return None


def _wait(what: str, check: Callable[[], Any], logs: list[Path], seconds: float = 90) -> Any:
    seconds = patient(seconds)
    deadline = time.monotonic() + seconds
    while not (found := check()):
        if time.monotonic() > deadline:
            tails = "\n".join(f"--- {p}\n{p.read_text()[-2000:]}" for p in logs if p.exists())
            pytest.fail(f"{what}: not within {seconds} s\n{tails}")
        time.sleep(0.2)
    return found


def test_a_killed_worker_is_restarted_and_ready_says_so_meanwhile(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    port = _free_port()
    env |= {"PERFATLAS_DATA_DIR": str(tmp_path / "data"), "PERFATLAS_PORT": str(port)}
    serve_log = tmp_path / "serve.log"
    logs = [serve_log, tmp_path / "data" / "worker.log"]
    with serve_log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "perfatlas", "serve", "--with-worker"], env=env,
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    serve = psutil.Process(proc.pid)
    ready = f"http://127.0.0.1:{port}/api/v1/ready"
    try:
        _wait("ready", lambda: (r := _get(ready)) is not None and r.status_code == 200, logs)
        first = _wait("the worker process", lambda: _worker_of(serve), logs)
        group = [p.pid for p in psutil.process_iter() if _pgid(p.pid) == first.pid]
        assert len(group) >= 2, "the worker and the beat it forked share a process group"

        first.send_signal(signal.SIGKILL)

        def down() -> dict[str, Any] | None:
            answer = _get(ready)
            if answer is None or answer.status_code != 503:
                return None
            (worker,) = [p for p in answer.json()["parts"] if p["name"] == "worker"]
            return worker if "signal 9" in worker["detail"] else None

        worker = _wait("/ready 503 naming the killed worker", down, logs)
        assert not worker["ok"] and worker["since"]
        second = _wait(
            "a new worker", lambda: (w := _worker_of(serve)) is not None and w.pid != first.pid
            and w, logs,
        )  # fmt: skip
        _wait("ready again", lambda: (r := _get(ready)) is not None and r.status_code == 200, logs)
        assert second.is_running()
        # Nothing of the killed worker is left: not a zombie, not its beat as an orphan.
        assert not psutil.pid_exists(first.pid) or (
            psutil.Process(first.pid).status() != psutil.STATUS_ZOMBIE
            and psutil.Process(first.pid).ppid() != proc.pid
        )
        assert [pid for pid in group if psutil.pid_exists(pid) and _pgid(pid) == first.pid] == []
        assert "restarting it in" in serve_log.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    # The worker follows the server out.
    _wait("the worker to stop with the server", lambda: not second.is_running(), logs, 30)


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None
