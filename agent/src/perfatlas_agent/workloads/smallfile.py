"""smallfile (seed 000): create, read cold, read warm, stat and delete N files of size S."""

from __future__ import annotations

import math
import os
import time
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import ParameterError
from perfatlas_agent.measure.attachments import AttachmentFile, LatencyLog
from perfatlas_agent.measure.calibrate import Knob, Room
from perfatlas_agent.measure.metrics import (
    Metric,
    ThreadResult,
    new_latency_array,
    run_threads,
    syncfs,
    threaded_rate_metrics,
)
from perfatlas_agent.measure.params import ParamSpec, ParamValue
from perfatlas_agent.workloads.base import RunContext, Workload

MAX_FILES = 4_000_000
MAX_PASSES = 4096
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


def _layout(nfiles: int, per_dir: int, threads: int) -> list[list[tuple[str, int]]]:
    """Per thread: (directory, count) chunks; every thread owns whole directories or slices."""
    ndirs = max(1, math.ceil(nfiles / per_dir))
    ndirs = max(ndirs, threads)
    base, extra = divmod(nfiles, ndirs)
    chunks = [base + (1 if d < extra else 0) for d in range(ndirs)]
    per_thread: list[list[tuple[str, int]]] = [[] for _ in range(threads)]
    for d, count in enumerate(chunks):
        per_thread[d % threads].append((f"d{d:05d}", count))
    return per_thread


class SmallFile(Workload):
    name = "smallfile"
    description = "N small files: create (fsync optional), read cold, read warm, stat, delete"
    params = (
        ParamSpec("nfiles", "int", 1000, "number of files"),
        ParamSpec("size", "size", 30, "bytes per file (30B, 4k, 1M)"),
        ParamSpec(
            "fsync",
            "choice",
            "none",
            "none, file (fsync each file) or end (one syncfs after the last file, timed)",
            ("none", "file", "end"),
            aliases=tuple((t, "file") for t in ("true", "yes", "on", "1"))
            + tuple((f, "none") for f in ("false", "no", "off", "0")),
        ),
        ParamSpec("threads", "int", 1, "threads, each on its own directories"),
        ParamSpec("files_per_dir", "int", 1000, "files per directory"),
        ParamSpec(
            "passes",
            "int",
            None,
            "passes of read_warm and stat over the files (1); their seconds are per pass",
        ),
    )

    def knobs(self, params: dict[str, ParamValue]) -> tuple[Knob, ...]:
        every = ("create", "read_cold", "read_warm", "stat", "delete")
        return (Knob("nfiles", every), Knob("passes", ("read_warm", "stat")))

    def limits(self, params: dict[str, ParamValue], room: Room) -> dict[str, int]:
        # A data block (or page) per file, and about 1 KiB of inode and directory entry.
        size = int(params["size"])
        per_file = 4096 * -(-size // 4096) + 1024
        nfiles = room.bytes_budget // per_file
        if room.inode_budget is not None:
            nfiles = min(nfiles, room.inode_budget)
        return {"nfiles": min(nfiles, MAX_FILES), "passes": MAX_PASSES}

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        return {"fsync_policy": str(params.get("fsync", "none")), "o_direct": False}

    def prepare(self, ctx: RunContext) -> None:
        p = ctx.params
        nfiles, threads = int(p["nfiles"]), int(p["threads"])
        layout = _layout(nfiles, int(p["files_per_dir"]), threads)
        p["dirs"] = sum(len(t) for t in layout)
        if int(p.get("passes", 1)) < 1:
            raise ParameterError("passes must be at least 1")
        ctx.meta["timing"] = (
            "os.open/os.write/os.close per file; paths built before the timed loop; "
            "one perf_counter_ns completion stamp per operation"
        )
        if p["fsync"] == "end":
            ctx.meta["create_includes_syncfs"] = True
        ctx.meta["per_pass"] = (
            "read_warm.seconds and stat.seconds are one pass over the files (the timed total / "
            "passes), as read_cold.seconds is; *.seconds_total: the timed total over the passes"
        )

    def attachments(self, ctx: RunContext) -> list[AttachmentFile]:
        log: LatencyLog | None = ctx.scratch.get("latencies")
        made = log.file() if log is not None else None
        return [made] if made is not None else []

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        p = ctx.params
        nfiles, size, threads = int(p["nfiles"]), int(p["size"]), int(p["threads"])
        policy = str(p["fsync"])
        do_fsync = policy == "file"
        layout = _layout(nfiles, int(p["files_per_dir"]), threads)
        payload = b"x" * size
        for chunks in layout:
            for d, _ in chunks:
                os.mkdir(rep_dir / d)
        root = str(rep_dir)
        names = [_names(root, chunks) for chunks in layout]
        metrics: dict[str, Metric] = {}

        def paths() -> Iterator[bytes]:
            for per_thread in names:
                yield from per_thread

        ctx.phase("create")
        res = run_threads(threads, lambda t: _create(names[t], payload, do_fsync))
        if policy == "end":
            # One flush of everything created, inside the create phase (not in per-file latencies).
            syncfs(root)
            last = max(res, key=lambda r: r.end_ns)
            last.end_ns = time.perf_counter_ns()
        metrics.update(threaded_rate_metrics("create", res))
        _log(ctx, rep_dir, "create", res, size)

        ctx.phase("read_cold")
        ctx.make_cold(rep_dir, paths)
        res = run_threads(threads, lambda t: _read(names[t], size))
        metrics.update(threaded_rate_metrics("read_cold", res))
        _log(ctx, rep_dir, "read_cold", res, size)

        # Warm phases can repeat over the same files (--min-seconds grows `passes`).
        passes = int(p.get("passes", 1))
        warm = names if passes == 1 else [n * passes for n in names]
        ctx.phase("read_warm")
        res = run_threads(threads, lambda t: _read(warm[t], size))
        metrics.update(per_pass_metrics("read_warm", res, passes))
        _log(ctx, rep_dir, "read_warm", res, size)

        ctx.phase("stat")
        res = run_threads(threads, lambda t: _stat(warm[t]))
        metrics.update(per_pass_metrics("stat", res, passes))
        _log(ctx, rep_dir, "stat", res, 0)

        ctx.phase("delete")
        res = run_threads(threads, lambda t: _delete(names[t]))
        metrics.update(threaded_rate_metrics("delete", res))
        _log(ctx, rep_dir, "delete", res, 0)
        for chunks in layout:
            for d, _ in chunks:
                os.rmdir(f"{root}/{d}")
        return metrics


def per_pass_metrics(phase: str, res: list[ThreadResult], passes: int) -> dict[str, Metric]:
    """A warm phase's metrics per pass over the files, as read_cold's one pass is: `seconds` is
    one pass (the timed total / passes), so cold and warm rows compare like for like; ops/s and
    latencies are per operation, the same whatever the passes. With passes > 1 the timed total
    is `seconds_total` (what --min-seconds and the short-phase check look at)."""
    out = threaded_rate_metrics(phase, res)
    if passes > 1:
        total = out[f"{phase}.seconds"].value
        out[f"{phase}.seconds"] = Metric(total / passes, "s")
        out[f"{phase}.seconds_total"] = Metric(total, "s")
    return out


LATENCY_HEADER = "repetition,phase,thread,op,bytes,seconds"


def _log(ctx: RunContext, rep_dir: Path, phase: str, res: list[ThreadResult], nbytes: int) -> None:
    """Every operation's latency into latencies.csv, after the phase (not --min-seconds'
    calibration repetitions)."""
    name = rep_dir.name
    if not (name.startswith("rep") and name[3:].isdigit()):
        return
    log: LatencyLog = ctx.scratch.setdefault(
        "latencies", LatencyLog("latencies.csv", header=LATENCY_HEADER)
    )
    rep = int(name[3:])
    for thread, one in enumerate(res):
        log.add_rows(one.ops, _row_maker(f"{rep},{phase},{thread},", nbytes, one.latencies))


def _row_maker(prefix: str, nbytes: int, lat: array[int]) -> Callable[[int], str]:
    return lambda op: f"{prefix}{op},{nbytes},{lat[op] / 1e9:.9f}"


def _names(root: str, chunks: list[tuple[str, int]]) -> list[bytes]:
    """Every path a thread works on, built before the timed loops (bytes skip re-encoding)."""
    return [f"{root}/{d}/f{i}".encode() for d, count in chunks for i in range(count)]


def _finish(start: int, stamps: array[int], ops: int) -> ThreadResult:
    """Turn completion timestamps into per-operation latencies (after the timed loop)."""
    end = stamps[ops - 1] if ops else start
    for k in range(ops - 1, 0, -1):
        stamps[k] -= stamps[k - 1]
    if ops:
        stamps[0] -= start
    return ThreadResult(start, end, ops, stamps)


# The timed loops take one clock reading per operation (its completion time): the latency of
# operation k is stamp[k] - stamp[k-1]. Half the clock calls of a start/stop pair per op.


def _create(names: list[bytes], payload: bytes, do_fsync: bool) -> ThreadResult:
    stamps = new_latency_array(len(names))
    clock = time.perf_counter_ns
    op, wr, cl, fs = os.open, os.write, os.close, os.fsync
    flags = _CREATE_FLAGS
    k = -1
    start = clock()
    if do_fsync:
        for k, name in enumerate(names):
            fd = op(name, flags, 0o644)
            if payload:
                wr(fd, payload)
            fs(fd)
            cl(fd)
            stamps[k] = clock()
    elif payload:
        for k, name in enumerate(names):
            fd = op(name, flags, 0o644)
            wr(fd, payload)
            cl(fd)
            stamps[k] = clock()
    else:
        for k, name in enumerate(names):
            cl(op(name, flags, 0o644))
            stamps[k] = clock()
    return _finish(start, stamps, k + 1)


def _read(names: list[bytes], size: int) -> ThreadResult:
    stamps = new_latency_array(len(names))
    clock = time.perf_counter_ns
    op, rd, cl = os.open, os.read, os.close
    flags = _READ_FLAGS
    want = max(size, 1)
    k = -1
    start = clock()
    for k, name in enumerate(names):
        fd = op(name, flags)
        rd(fd, want)
        cl(fd)
        stamps[k] = clock()
    return _finish(start, stamps, k + 1)


def _stat(names: list[bytes]) -> ThreadResult:
    stamps = new_latency_array(len(names))
    clock = time.perf_counter_ns
    st = os.stat
    k = -1
    start = clock()
    for k, name in enumerate(names):
        st(name)
        stamps[k] = clock()
    return _finish(start, stamps, k + 1)


def _delete(names: list[bytes]) -> ThreadResult:
    stamps = new_latency_array(len(names))
    clock = time.perf_counter_ns
    ul = os.unlink
    k = -1
    start = clock()
    for k, name in enumerate(names):
        ul(name)
        stamps[k] = clock()
    return _finish(start, stamps, k + 1)
