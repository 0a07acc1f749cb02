"""Measurement helpers that stay close to the system calls: clocks, caches, threads, metrics."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import threading
import time
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from perfatlas_agent.measure.stats import latency_percentiles_us

Direction = Literal["higher", "lower"]

SHORT_PHASE_S = 0.5
MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "devtmpfs", "hugetlbfs"})

_libc: ctypes.CDLL | None = None


def _get_libc() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    return _libc


def syncfs(path: str | Path) -> None:
    """syncfs(2) on the filesystem holding path (falls back to sync(2))."""
    fd = os.open(path, os.O_RDONLY)
    try:
        rc = _get_libc().syncfs(fd)
        if rc != 0:
            os.sync()
    finally:
        os.close(fd)


@dataclass
class Metric:
    value: float
    unit: str
    direction: Direction | None = None


def new_latency_array(n: int) -> array[int]:
    """A preallocated array of n signed 64-bit nanosecond latencies."""
    return array("q", bytes(8 * max(n, 0)))


def rate_metrics(
    phase: str,
    ops: int,
    seconds: float,
    *,
    rate_unit: str = "ops/s",
    rate_name: str = "ops_per_s",
    latencies: Iterable[int] | None = None,
) -> dict[str, Metric]:
    out = {
        f"{phase}.seconds": Metric(seconds, "s"),
        f"{phase}.{rate_name}": Metric(ops / seconds if seconds > 0 else 0.0, rate_unit),
    }
    if latencies is not None:
        lat = latency_percentiles_us(list(latencies))
        for key in ("p50", "p95", "p99"):
            if key in lat:
                out[f"{phase}.lat_{key}"] = Metric(lat[key], "us")
    return out


@dataclass
class ThreadResult:
    start_ns: int
    end_ns: int
    ops: int
    latencies: array[int]


def run_threads(n: int, work: Callable[[int], ThreadResult]) -> list[ThreadResult]:
    """Run work(i) in n threads released together; n == 1 runs inline (no thread overhead)."""
    if n == 1:
        return [work(0)]
    results: list[ThreadResult | None] = [None] * n
    errors: list[BaseException] = []
    barrier = threading.Barrier(n)

    def body(i: int) -> None:
        try:
            barrier.wait()
            results[i] = work(i)
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    except KeyboardInterrupt:
        # Let the workers finish their phase so the cleanup does not race with them.
        for t in threads:
            t.join()
        raise
    real_errors = [e for e in errors if not isinstance(e, threading.BrokenBarrierError)]
    if real_errors:
        raise real_errors[0]
    if errors:
        raise errors[0]
    return [r for r in results if r is not None]


def first_done_ops(results: list[ThreadResult]) -> tuple[int, float]:
    """Ops completed by all threads when the first thread finished, and that elapsed time.

    Completion times come from each thread's running sum of latencies, so the loop itself
    records nothing more than the latencies.
    """
    start = min(r.start_ns for r in results)
    first_end = min(r.end_ns for r in results)
    total = 0
    for r in results:
        t = r.start_ns
        done = 0
        for lat in r.latencies[: r.ops]:
            t += lat
            if t > first_end:
                break
            done += 1
        total += done
    return total, (first_end - start) / 1e9


def threaded_rate_metrics(
    phase: str, results: list[ThreadResult], *, rate_unit: str = "ops/s"
) -> dict[str, Metric]:
    """Last-done rate (all ops / wall time), latency percentiles and, with threads, first-done."""
    start = min(r.start_ns for r in results)
    end = max(r.end_ns for r in results)
    ops = sum(r.ops for r in results)
    lat: list[int] = []
    for r in results:
        lat.extend(r.latencies[: r.ops])
    out = rate_metrics(phase, ops, (end - start) / 1e9, rate_unit=rate_unit, latencies=lat)
    if len(results) > 1:
        done, secs = first_done_ops(results)
        if secs > 0:
            out[f"{phase}.ops_per_s_first_done"] = Metric(done / secs, rate_unit)
    return out


def is_root() -> bool:
    return os.geteuid() == 0


def drop_caches_allowed() -> bool:
    return is_root() and os.access("/proc/sys/vm/drop_caches", os.W_OK)


@dataclass
class CacheDropper:
    """Makes files cold: drop_caches after syncfs where allowed, else fadvise(DONTNEED)."""

    fs_type: str
    allow_drop_caches: bool = field(default_factory=drop_caches_allowed)

    @property
    def method(self) -> str:
        if self.fs_type in MEMORY_FILESYSTEMS:
            return "none"
        return "drop_caches" if self.allow_drop_caches else "fadvise"

    def make_cold(
        self, root: str | Path, files: Callable[[], Iterable[str | bytes]] | None = None
    ) -> str:
        """Drop the cached data of `files` (or of everything when drop_caches is allowed)."""
        method = self.method
        if method == "none":
            return method
        syncfs(root)
        if method == "drop_caches":
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("3\n")
            return method
        if files is not None:
            for path in files():
                try:
                    fd = os.open(path, os.O_RDONLY)
                except OSError:
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(fd)
        return method


def pressure_snapshot() -> dict[str, object]:
    """CPU time, load and I/O pressure now, to record around each repetition."""
    snap: dict[str, object] = {}
    t = os.times()
    snap["cpu_user_s"] = round(t.user, 4)
    snap["cpu_system_s"] = round(t.system, 4)
    with contextlib.suppress(OSError):
        snap["loadavg_1m"] = os.getloadavg()[0]
    for kind in ("io", "cpu", "memory"):
        try:
            with open(f"/proc/pressure/{kind}") as f:
                first = f.readline().split()
            snap[f"pressure_{kind}_some_avg10"] = float(first[1].split("=")[1])
        except (OSError, IndexError, ValueError):
            pass
    snap["monotonic_s"] = time.monotonic()
    return snap
