"""Handing memory back to the system after a request that read a lot.

A request that reads tens of megabytes of records (explore's exact path at 10 M results)
frees them in pieces the C allocator keeps, scattered between live ones; the next such request
then needs its own tens of megabytes on top, and the process's resident size creeps up from
one request to the next. glibc's malloc_trim returns the free pages inside the heap too."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from typing import Any

# Below this many bytes read, what a request freed is left to the allocator.
RELEASE_AFTER = 4 * 2**20


def _malloc_trim() -> Callable[[int], Any] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to call
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def release_after(bytes_read: int) -> None:
    """After a request read `bytes_read` bytes and dropped them: free pages back to the system."""
    if _TRIM is not None and bytes_read >= RELEASE_AFTER:
        _TRIM(0)
