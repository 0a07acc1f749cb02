"""perfatlas_agent.daemon.stopping.Stop: what the daemon and the first-run helper stop on, set
from their SIGTERM handlers (threading.Event.set, which takes a lock, hung the helper when a
second SIGTERM landed inside the first handler's set)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

from perfatlas_agent.daemon.stopping import POLL_S, Stop


def test_wait_times_out_unset_and_returns_at_once_once_set() -> None:
    stop = Stop()
    started = time.monotonic()
    assert stop.wait(0.2) is False
    assert time.monotonic() - started >= 0.2
    assert not stop.is_set()
    stop.set()
    started = time.monotonic()
    assert stop.wait(30) is True and stop.wait() is True
    # Far under the 30 s it would wait unset, however busy the machine.
    assert time.monotonic() - started < 10
    assert stop.is_set()


def test_a_set_from_another_thread_wakes_a_wait_within_a_poll() -> None:
    stop = Stop()
    timer = threading.Timer(0.3, stop.set)
    started = time.monotonic()
    timer.start()
    assert stop.wait(30) is True
    waited = time.monotonic() - started
    timer.join()
    # Woken by the set, not by the 30 s running out: a busy machine may start the timer's
    # thread late, so the upper bound is far from POLL_S and far from 30 s.
    assert 0.3 <= waited < 10, (waited, POLL_S)


def test_signal_handlers_that_set_it_while_it_is_waited_on_return() -> None:
    """In a process of its own: SIGTERMs, each from a handler that sends the next before it sets
    the stop (so handlers nest, as two SIGTERMs at once make them), land while the main thread
    waits on it; the wait returns True and the process exits."""
    script = textwrap.dedent(
        """
        import os, signal, threading, time
        from perfatlas_agent.daemon.stopping import Stop

        stop, calls = Stop(), []

        def handler(signum, frame):
            calls.append(signum)
            if len(calls) < 5:
                os.kill(os.getpid(), signal.SIGTERM)
            stop.set()

        signal.signal(signal.SIGTERM, handler)
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM)).start()
        print(stop.wait(30), len(calls), flush=True)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "5"]
