"""seqio (seed 001): bonnie's phases: per-character write (putc), block write (+fsync), rewrite,
per-character read (getc), block read and random seeks."""

from __future__ import annotations

import mmap
import os
import random
import time
from itertools import repeat
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import ParameterError
from perfatlas_agent.measure.calibrate import Knob, Room
from perfatlas_agent.measure.metrics import Metric, new_latency_array
from perfatlas_agent.measure.params import ParamSpec, ParamValue
from perfatlas_agent.measure.stats import latency_percentiles_us
from perfatlas_agent.workloads.base import RunContext, Workload

MB = 1_000_000
# bonnie's putc/getc go through stdio, whose buffer is BUFSIZ (8192 on glibc).
STDIO_BUFSIZ = 8192
# Per-character I/O in Python costs an interpreter call per byte (putc ~10-20 MB/s, getc
# ~20-40 MB/s on this project's 2-core test machine): 8 MiB keeps putc near 0.5-1 s.
PERCHAR_DEFAULT = 8 << 20


def putc_phase(path: str, nbytes: int) -> float:
    """bonnie's per-character write: nbytes 1-byte writes through a buffered writer of stdio's
    size, then flush and fsync (as the block write ends); the seconds it took."""
    one = b"x"
    clock = time.perf_counter_ns
    with open(path, "wb", buffering=STDIO_BUFSIZ) as f:
        wr = f.write
        t0 = clock()
        for _ in repeat(None, nbytes):
            wr(one)
        f.flush()
        os.fsync(f.fileno())
        return (clock() - t0) / 1e9


def getc_phase(path: str, nbytes: int) -> tuple[int, float]:
    """bonnie's per-character read: nbytes 1-byte reads through a buffered reader of stdio's
    size; the bytes read (the position reached) and the seconds it took."""
    clock = time.perf_counter_ns
    with open(path, "rb", buffering=STDIO_BUFSIZ) as f:
        rd = f.read
        t0 = clock()
        for _ in repeat(None, nbytes):
            rd(1)
        secs = (clock() - t0) / 1e9
        return f.tell(), secs


class SeqIO(Workload):
    name = "seqio"
    description = "bonnie: putc, block write+fsync, rewrite, getc, block read, seeks; cold or warm"
    params = (
        ParamSpec("filesize", "size", 64 << 20, "file size"),
        ParamSpec("blocksize", "size", 1 << 20, "block size of every read and write"),
        ParamSpec("direct", "bool", False, "O_DIRECT (bypass the page cache)"),
        ParamSpec("seeks", "int", 2000, "random reads of one block in the seeks phase"),
        ParamSpec("perchar", "bool", True, "bonnie's per-character write and read (putc, getc)"),
        ParamSpec("perchar_size", "size", PERCHAR_DEFAULT, "bytes written and read one at a time"),
        ParamSpec(
            "cache",
            "choice",
            None,
            "cold (what runs without it do): the page cache dropped before getc, read and seeks; "
            "warm: read what the writes left in the cache, as bonnie does (file size vs cache)",
            ("cold", "warm"),
        ),
    )

    def check(self, params: dict[str, ParamValue]) -> None:
        fs, bs = int(params["filesize"]), int(params["blocksize"])
        if bs <= 0 or fs < bs:
            raise ParameterError("seqio needs 0 < blocksize <= filesize")
        if params["direct"] and bs % 4096:
            raise ParameterError("direct=true needs a blocksize that is a multiple of 4096")
        if params.get("perchar") and int(params["perchar_size"]) <= 0:
            raise ParameterError("perchar_size must be at least 1 byte")

    def unused(self, params: dict[str, ParamValue]) -> set[str]:
        # O_DIRECT cannot go through a buffered writer of 1-byte calls: no per-char phases.
        if params.get("direct"):
            return {"perchar", "perchar_size", "cache"}
        return set() if params.get("perchar") else {"perchar_size"}

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        facts: dict[str, Any] = {"fsync_policy": "end", "o_direct": bool(params.get("direct"))}
        if warm(params):
            facts["cold_method"] = "none"  # nothing made cold: the reads find the cache
        return facts

    def knobs(self, params: dict[str, ParamValue]) -> tuple[Knob, ...]:
        knobs = [Knob("filesize", ("write", "rewrite", "read")), Knob("seeks", ("seeks",))]
        if params.get("perchar"):
            knobs.append(Knob("perchar_size", ("putc", "getc")))
        return tuple(knobs)

    def limits(self, params: dict[str, ParamValue], room: Room) -> dict[str, int]:
        # The per-char file sits beside the block file.
        left = room.bytes_budget - int(params["filesize"])
        return {
            "filesize": min(room.bytes_budget, 64 << 30),
            "seeks": 1 << 20,
            "perchar_size": max(min(left, 4 << 30), 0),
        }

    def prepare(self, ctx: RunContext) -> None:
        fs, bs = int(ctx.params["filesize"]), int(ctx.params["blocksize"])
        ctx.params["filesize"] = (fs // bs) * bs
        ctx.meta["write_includes_fsync"] = True
        if warm(ctx.params):
            ctx.meta["cache"] = (
                "warm: getc, read and seeks read the files as the writes left them in the page "
                "cache (no drop); a file larger than the cache can hold reads partly from disk"
            )
        if ctx.params.get("perchar"):
            ctx.meta["perchar"] = (
                f"putc/getc: 1-byte calls through a {STDIO_BUFSIZ}-byte buffered writer/reader "
                "on a file of its own (perchar_size); putc ends with flush + fsync, getc starts "
                "cold. In Python each call costs the interpreter: it measures the per-call path"
            )

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        bs = int(ctx.params["blocksize"])
        nblocks = int(ctx.params["filesize"]) // bs
        direct = bool(ctx.params["direct"])
        cold = not direct and not warm(ctx.params)
        extra = os.O_DIRECT if direct else 0
        path = str(rep_dir / "seqio.dat")
        buf = mmap.mmap(-1, bs)  # page aligned, as O_DIRECT needs
        buf.write(bytes(range(256)) * (bs // 256) + bytes(bs % 256))
        view = memoryview(buf)
        metrics: dict[str, Metric] = {}
        total = nblocks * bs
        clock = time.perf_counter_ns

        perchar = bool(ctx.params.get("perchar")) and not direct
        chr_path = str(rep_dir / "seqio.chr")
        if perchar:
            ctx.phase("putc")
            nchars = int(ctx.params["perchar_size"])
            metrics.update(_mb("putc", nchars, putc_phase(chr_path, nchars)))

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

        if perchar:
            ctx.phase("getc")
            if cold:
                ctx.make_cold(rep_dir, lambda: [chr_path])
            got, secs = getc_phase(chr_path, nchars)
            metrics.update(_mb("getc", got, secs))
            os.unlink(chr_path)

        ctx.phase("read")
        if cold:
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
        if cold:
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


def warm(params: dict[str, ParamValue]) -> bool:
    """cache=warm (O_DIRECT reads bypass the cache: no warm or cold there)."""
    return params.get("cache") == "warm" and not params.get("direct")


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
