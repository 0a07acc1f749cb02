"""Handing memory back to the system after a request that read a lot.

A request that reads tens of megabytes of records (explore's exact path at 10 M results)
frees them in pieces the C allocator keeps, scattered between live ones; the next such request
then needs its own tens of megabytes on top, and the process's resident size creeps up from
one request to the next. glibc's malloc_trim returns the free pages inside the heap too."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache
from typing import Any

# Below this many bytes read, what a request freed is left to the allocator.
RELEASE_AFTER = 4 * 2**20


@cache
def _malloc_trim() -> Callable[[int], Any] | None:
    """glibc's malloc_trim, looked up on first use (not at import: every process imports this);
    None elsewhere (musl, macOS)."""
    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_after(bytes_read: int) -> None:
    """After a request read `bytes_read` bytes and dropped them: free pages back to the system."""
    if bytes_read >= RELEASE_AFTER and (trim := _malloc_trim()) is not None:
        trim(0)
