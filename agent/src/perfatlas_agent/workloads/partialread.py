"""partialread (seed 003): reads of R bytes at random offsets fetched in segments; alacrity.

Each read is cold by default (cold=per_read): the file's pages are dropped with
posix_fadvise(POSIX_FADV_DONTNEED) before it, outside its timing (the file was fsynced when
written, so its pages are clean and can be dropped). cold=per_repetition makes the file cold
once before the reads (drop_caches as root, else fadvise): later reads of a segment read
before hit the cache. cold=none drops nothing."""

from __future__ import annotations

import os
import random
import time
from array import array
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import ParameterError
from perfatlas_agent.measure.attachments import AttachmentFile, LatencyLog
from perfatlas_agent.measure.calibrate import Knob, Room
from perfatlas_agent.measure.metrics import Metric, new_latency_array
from perfatlas_agent.measure.params import ParamSpec, ParamValue
from perfatlas_agent.measure.stats import latency_percentiles_us, percentile
from perfatlas_agent.workloads.base import RunContext, Workload

MB = 1_000_000
ALACRITY_PROBES = 5
COLD_MODES = ("per_read", "per_repetition", "none")


def drop_pages(fd: int) -> None:
    """The file's clean pages out of the page cache."""
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)


def random_reads(
    path: str, offsets: list[int], rsize: int, seg: int, *, drop_each: bool
) -> tuple[array[int], int]:
    """Read rsize bytes at each offset, fetching the whole segments of seg bytes that hold
    them; with drop_each, the file's pages are dropped before each read (untimed). The
    latency of each read (ns) and the bytes fetched."""
    lat = new_latency_array(len(offsets))
    buf = bytearray(seg)
    clock = time.perf_counter_ns
    fetched = 0
    fd = os.open(path, os.O_RDONLY)
    try:
        prv = os.preadv
        for k, off in enumerate(offsets):
            if drop_each:
                drop_pages(fd)
            t0 = clock()
            s = (off // seg) * seg
            end = off + rsize
            while s < end:
                fetched += prv(fd, [buf], s)
                s += seg
            lat[k] = clock() - t0
    finally:
        os.close(fd)
    return lat, fetched


class PartialRead(Workload):
    name = "partialread"
    description = "random reads of R bytes (each cold), fetched in segments of S; alacrity"
    params = (
        ParamSpec("filesize", "size", 64 << 20, "size of the file read from"),
        ParamSpec("readsize", "size", 4096, "bytes asked for by each read"),
        ParamSpec("segsize", "size", 128 << 10, "read granularity: whole segments are fetched"),
        ParamSpec("reads", "int", 200, "random reads per repetition"),
        ParamSpec(
            "cold", "choice", "per_read",
            "per_read (fadvise DONTNEED before each read), per_repetition, or none",
            COLD_MODES,
        ),
    )  # fmt: skip

    def check(self, params: dict[str, ParamValue]) -> None:
        fs, rs, ss = (int(params[k]) for k in ("filesize", "readsize", "segsize"))
        if not (0 < rs <= fs and 0 < ss <= fs):
            raise ParameterError("partialread needs 0 < readsize, segsize <= filesize")

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        return {"o_direct": False}

    def knobs(self, params: dict[str, ParamValue]) -> tuple[Knob, ...]:
        # The file grows with the reads: the share of it read (and so of cache hits) stays.
        return (Knob("reads", ("read",), coupled=("filesize",)),)

    def limits(self, params: dict[str, ParamValue], room: Room) -> dict[str, int]:
        fsize, reads = int(params["filesize"]), int(params["reads"])
        times = max(room.bytes_budget // max(fsize, 1), 1)
        return {"reads": min(reads * times, 1 << 20)}

    def prepare(self, ctx: RunContext) -> None:
        path = ctx.workdir / "partialread.dat"
        size = int(ctx.params["filesize"])
        block = random.Random(3).randbytes(1 << 20)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            left = size
            while left > 0:
                left -= os.write(fd, block[: min(left, len(block))])
            os.fsync(fd)
        finally:
            os.close(fd)
        ctx.scratch["path"] = str(path)
        ctx.meta["cold"] = {
            "per_read": "posix_fadvise(DONTNEED) on the file before each read, untimed; "
            "read.seconds is the sum of the reads' own times",
            "per_repetition": "the file made cold once before the reads (and before each "
            "alacrity probe)",
            "none": "nothing dropped",
        }[str(ctx.params.get("cold", "per_read"))]

    def _cold_method(self, ctx: RunContext) -> str:
        """What cold=per_read records: fadvise, or none where pages cannot be dropped."""
        return "none" if ctx.cold.method == "none" else "fadvise"

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        path: str = ctx.scratch["path"]
        fsize, rsize, seg = (int(ctx.params[k]) for k in ("filesize", "readsize", "segsize"))
        nreads = int(ctx.params["reads"])
        mode = str(ctx.params.get("cold", "per_read"))
        rng = random.Random()
        buf = bytearray(seg)
        clock = time.perf_counter_ns
        m: dict[str, Metric] = {}

        ctx.phase("alacrity")
        probes: list[int] = []
        for _ in range(ALACRITY_PROBES):
            if mode == "per_read":
                fd = os.open(path, os.O_RDONLY)
                drop_pages(fd)
                os.close(fd)
                ctx.cold_methods.add(self._cold_method(ctx))
            elif mode == "per_repetition":
                ctx.make_cold(ctx.workdir, lambda: [path])
            off = rng.randrange(fsize)
            t0 = clock()
            fd = os.open(path, os.O_RDONLY)
            os.preadv(fd, [buf], (off // seg) * seg)
            os.close(fd)
            probes.append(clock() - t0)
        m["alacrity.latency"] = Metric(percentile(sorted(probes), 50) / 1000.0, "us")

        ctx.phase("random reads")
        if mode == "per_repetition":
            ctx.make_cold(ctx.workdir, lambda: [path])
        else:
            ctx.cold_methods.add(self._cold_method(ctx) if mode == "per_read" else "none")
        offsets = [rng.randrange(fsize - rsize + 1) for _ in range(nreads)]
        lat, fetched = random_reads(path, offsets, rsize, seg, drop_each=mode == "per_read")
        # The reads' own time: the untimed page drops between them are left out.
        secs = sum(lat) / 1e9
        rep = _rep_index(rep_dir)
        if rep >= 0:  # after the timed loop; not --min-seconds' calibration repetitions
            _log(ctx).add(rep, offsets, rsize, lat)
        pct = latency_percentiles_us(lat)
        for key in ("p50", "p95", "p99"):
            m[f"read.lat_{key}"] = Metric(pct[key], "us")
        m["read.seconds"] = Metric(secs, "s")
        m["read.mb_per_s"] = Metric(nreads * rsize / MB / secs if secs else 0.0, "MB/s")
        m["read.fetched_mb_per_s"] = Metric(fetched / MB / secs if secs else 0.0, "MB/s")
        m["read.amplification"] = Metric(fetched / (nreads * rsize), "x", "lower")
        return m

    def attachments(self, ctx: RunContext) -> list[AttachmentFile]:
        log: LatencyLog | None = ctx.scratch.get("latencies")
        made = log.file() if log is not None else None
        return [made] if made is not None else []

    def cleanup(self, ctx: RunContext) -> None:
        path = ctx.scratch.pop("path", None)
        if path and os.path.exists(path):
            os.unlink(path)


def _log(ctx: RunContext) -> LatencyLog:
    log: LatencyLog = ctx.scratch.setdefault("latencies", LatencyLog("latencies.csv"))
    return log


def _rep_index(rep_dir: Path) -> int:
    """The sweep's repetition number (rep0 is the warm-up when there is one: meta.reps);
    -1 for a calibration repetition of --min-seconds."""
    name = rep_dir.name
    return int(name[3:]) if name.startswith("rep") and name[3:].isdigit() else -1
