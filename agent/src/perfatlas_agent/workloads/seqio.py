"""seqio (seed 001): bonnie-style block write (+fsync), rewrite, block read and random seeks."""

from __future__ import annotations

import mmap
import os
import random
import time
from pathlib import Path
from typing import Any

from perfatlas_agent._exceptions import ParameterError
from perfatlas_agent.calibrate import Knob, Room
from perfatlas_agent.measure import Metric, new_latency_array
from perfatlas_agent.params import ParamSpec, ParamValue
from perfatlas_agent.stats import latency_percentiles_us
from perfatlas_agent.workloads.base import RunContext, Workload

MB = 1_000_000


class SeqIO(Workload):
    name = "seqio"
    description = "one file of size F in blocks of B: write+fsync, rewrite, read (cold), seeks"
    params = (
        ParamSpec("filesize", "size", 64 << 20, "file size"),
        ParamSpec("blocksize", "size", 1 << 20, "block size of every read and write"),
        ParamSpec("direct", "bool", False, "O_DIRECT (bypass the page cache)"),
        ParamSpec("seeks", "int", 2000, "random reads of one block in the seeks phase"),
    )

    def check(self, params: dict[str, ParamValue]) -> None:
        fs, bs = int(params["filesize"]), int(params["blocksize"])
        if bs <= 0 or fs < bs:
            raise ParameterError("seqio needs 0 < blocksize <= filesize")
        if params["direct"] and bs % 4096:
            raise ParameterError("direct=true needs a blocksize that is a multiple of 4096")

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        return {"fsync_policy": "end", "o_direct": bool(params.get("direct"))}

    def knobs(self, params: dict[str, ParamValue]) -> tuple[Knob, ...]:
        return (Knob("filesize", ("write", "rewrite", "read")), Knob("seeks", ("seeks",)))

    def limits(self, params: dict[str, ParamValue], room: Room) -> dict[str, int]:
        return {"filesize": min(room.bytes_budget, 64 << 30), "seeks": 1 << 20}

    def prepare(self, ctx: RunContext) -> None:
        fs, bs = int(ctx.params["filesize"]), int(ctx.params["blocksize"])
        ctx.params["filesize"] = (fs // bs) * bs
        ctx.meta["write_includes_fsync"] = True

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        bs = int(ctx.params["blocksize"])
        nblocks = int(ctx.params["filesize"]) // bs
        direct = bool(ctx.params["direct"])
        extra = os.O_DIRECT if direct else 0
        path = str(rep_dir / "seqio.dat")
        buf = mmap.mmap(-1, bs)  # page aligned, as O_DIRECT needs
        buf.write(bytes(range(256)) * (bs // 256) + bytes(bs % 256))
        view = memoryview(buf)
        metrics: dict[str, Metric] = {}
        total = nblocks * bs
        clock = time.perf_counter_ns

        ctx.phase("write")
        fd = _open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | extra)
        try:
            wr = os.write
            t0 = clock()
            for _ in range(nblocks):
                wr(fd, view)
            os.fsync(fd)
            secs = (clock() - t0) / 1e9
        finally:
            os.close(fd)
        metrics.update(_mb("write", total, secs))

        ctx.phase("rewrite")
        fd = _open(path, os.O_RDWR | extra)
        try:
            rd_into, pw = os.preadv, os.pwrite
            t0 = clock()
            off = 0
            for _ in range(nblocks):
                rd_into(fd, [view], off)
                pw(fd, view, off)
                off += bs
            os.fsync(fd)
            secs = (clock() - t0) / 1e9
        finally:
            os.close(fd)
        metrics.update(_mb("rewrite", total, secs))

        ctx.phase("read")
        if not direct:
            ctx.make_cold(rep_dir, lambda: [path])
        fd = _open(path, os.O_RDONLY | extra)
        try:
            rdv = os.readv
            t0 = clock()
            got = 0
            while True:
                n = rdv(fd, [view])
                if n <= 0:
                    break
                got += n
            secs = (clock() - t0) / 1e9
        finally:
            os.close(fd)
        metrics.update(_mb("read", got, secs))

        ctx.phase("seeks")
        nseeks = int(ctx.params["seeks"])
        if not direct:
            ctx.make_cold(rep_dir, lambda: [path])
        rng = random.Random(0x5EE)
        offsets = [rng.randrange(nblocks) * bs for _ in range(nseeks)]
        lat = new_latency_array(nseeks)
        fd = _open(path, os.O_RDONLY | extra)
        try:
            prv = os.preadv
            start = clock()
            for k, off in enumerate(offsets):
                t0 = clock()
                prv(fd, [view], off)
                lat[k] = clock() - t0
            secs = (clock() - start) / 1e9
        finally:
            os.close(fd)
        metrics["seeks.per_s"] = Metric(nseeks / secs if secs > 0 else 0.0, "seeks/s")
        metrics["seeks.seconds"] = Metric(secs, "s")
        pct = latency_percentiles_us(lat)
        for key in ("p50", "p99"):
            metrics[f"seeks.lat_{key}"] = Metric(pct[key], "us")
        view.release()
        buf.close()
        os.unlink(path)
        return metrics


def _open(path: str, flags: int) -> int:
    try:
        return os.open(path, flags, 0o644)
    except OSError as exc:
        if flags & getattr(os, "O_DIRECT", 0):
            raise ParameterError(f"O_DIRECT is not supported here ({exc})") from exc
        raise


def _mb(phase: str, nbytes: int, secs: float) -> dict[str, Metric]:
    return {
        f"{phase}.mb_per_s": Metric(nbytes / MB / secs if secs > 0 else 0.0, "MB/s"),
        f"{phase}.seconds": Metric(secs, "s"),
    }
