"""A stop request that a signal handler can make safely.

threading.Event.set takes the event's lock. A signal handler runs on the main thread between
two bytecodes, so it can run while that thread already holds the lock: inside Event.wait, or
inside the set() of a first handler when a second signal follows at once (a SIGTERM from the
parent and another from prctl's parent-death signal, say). The handler then waits for itself
for ever; the first-run helper hung that way in CI. Stop keeps a plain attribute, which a
handler sets without a lock, and its wait polls it."""

from __future__ import annotations

import time

POLL_S = 0.05


class Stop:
    """set/is_set/wait as threading.Event has them; wait wakes within POLL_S of set()."""

    def __init__(self) -> None:
        self._requested = False

    def set(self) -> None:
        self._requested = True

    def is_set(self) -> bool:
        return self._requested

    def wait(self, timeout: float | None = None) -> bool:
        """True as soon as a stop is requested; False once `timeout` seconds pass without one."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._requested:
            left = POLL_S if deadline is None else min(POLL_S, deadline - time.monotonic())
            if left <= 0:
                return False
            time.sleep(left)
        return True
