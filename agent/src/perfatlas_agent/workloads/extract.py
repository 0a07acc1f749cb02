"""extract (seeds 001, 004): unpack an archive of many small files, with GNU tar (single
threaded) or with the agent's extractor in T threads; both clocks start before the archive is
opened, so reading and decompressing it is timed in both."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import ParameterError, WorkloadError
from perfatlas_agent.measure.calibrate import Knob, Room
from perfatlas_agent.measure.metrics import Metric, syncfs
from perfatlas_agent.measure.params import ParamSpec, ParamValue
from perfatlas_agent.workloads.archive import (
    COMPRESSIONS,
    NO_ZSTD,
    SUFFIX,
    detect_compression,
    extract_threaded,
    make_archive,
    scan,
    zstd_support,
)
from perfatlas_agent.workloads.base import RunContext, Workload

MB = 1_000_000
TAR_CANNOT = "GNU tar cannot fsync each file (extractor=tar with fsync=file is left out)"


def _warm(path: Path) -> None:
    """Read the archive once, so both extractors start from the same state: in the cache."""
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


class Extract(Workload):
    name = "extract"
    description = "unpack many small files: GNU tar, or T threads; gz/xz/zst; fsync none/file/end"
    params = (
        ParamSpec("files", "int", 1000, "files in the generated archive"),
        ParamSpec("size", "size", 4096, "bytes per generated file"),
        ParamSpec(
            "compression", "choice", "none", "of the generated archive", COMPRESSIONS
        ),
        ParamSpec(
            "extractor", "choice", None, "tar (GNU tar, single threaded) or threads",
            ("tar", "threads"), default_sweep=("tar", "threads"),
        ),
        ParamSpec("threads", "int", 4, "threads of the agent's extractor (extractor=threads)"),
        ParamSpec(
            "fsync",
            "choice",
            "none",
            "none, file (each file) or end (syncfs)",
            ("none", "file", "end"),
        ),
        ParamSpec(
            "archive", "str", None, "use this archive (tar, .gz, .xz, .bz2, .zst)",
            sweepable=False,
        ),
    )  # fmt: skip

    def unused(self, params: dict[str, ParamValue]) -> set[str]:
        out = {"threads"} if params.get("extractor") == "tar" else set()
        if params.get("archive") is not None:
            out |= {"files", "size", "compression"}  # the archive is what it is
        return out

    def skip(self, params: dict[str, ParamValue]) -> str | None:
        if params.get("extractor") == "tar" and params.get("fsync") == "file":
            return TAR_CANNOT
        return None

    def check(self, params: dict[str, ParamValue]) -> None:
        if params.get("extractor") == "tar" and shutil.which("tar") is None:
            raise WorkloadError("extractor=tar needs GNU tar")
        if int(params.get("threads", 1)) < 1:
            raise ParameterError("threads must be at least 1")
        archive = params.get("archive")
        kind = str(params.get("compression", "none"))
        if archive is not None:
            if not Path(str(archive)).is_file():
                raise ParameterError(f"archive {archive} is not a file")
            kind = detect_compression(Path(str(archive)))
        if kind == "zst":
            if params.get("extractor") == "tar" and shutil.which("zstd") is None:
                raise ParameterError(f"compression zst with extractor=tar: {NO_ZSTD}")
            if zstd_support() is None:
                raise ParameterError(f"compression zst: {NO_ZSTD}")

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        return {"fsync_policy": str(params.get("fsync", "none")), "o_direct": False}

    def _phase(self, params: dict[str, ParamValue]) -> str:
        return "tar" if params.get("extractor") == "tar" else "extract"

    def knobs(self, params: dict[str, ParamValue]) -> tuple[Knob, ...]:
        if params.get("archive") is not None:
            return ()  # a given archive is what it is
        return (Knob("files", (self._phase(params),)),)

    def limits(self, params: dict[str, ParamValue], room: Room) -> dict[str, int]:
        # The archive (512-byte blocks) and the files extracted from it.
        size = int(params["size"])
        per_file = 512 + 512 * -(-size // 512) + 4096 * -(-size // 4096) + 1024
        files = room.bytes_budget // per_file
        if room.inode_budget is not None:
            files = min(files, room.inode_budget)
        return {"files": min(files, 4_000_000)}

    def prepare(self, ctx: RunContext) -> None:
        archive = ctx.params.get("archive")
        if archive is None:
            kind = str(ctx.params["compression"])
            path = ctx.workdir / f"input{SUFFIX[kind]}"
            files, size = int(ctx.params["files"]), int(ctx.params["size"])
            make_archive(path, files=files, size=size, compression=kind)
            counts_files, counts_bytes = files, files * size
        else:
            path = Path(str(archive)).resolve()
            counts = scan(path)
            counts_files, counts_bytes = counts.files, counts.bytes
        ctx.scratch.update(archive=path, files=counts_files, bytes=counts_bytes)
        ctx.meta.update(
            archive_files=counts_files,
            archive_bytes=counts_bytes,
            archive_compressed_bytes=path.stat().st_size,
            archive_compression=detect_compression(path),
            archive_cache="read once before each timed phase (both extractors start cached)",
            clock="starts before the archive is opened: reading and decompressing are timed",
        )
        if ctx.params.get("extractor") == "tar":
            ctx.meta["tar"] = "timed `tar -xf ARCHIVE -C DEST` (+ syncfs when fsync=end)"
        else:
            ctx.meta["extractor"] = (
                "one thread reads and decompresses the archive, makes directories and links; "
                "T threads write the files (T=1: the reading thread writes them)"
            )
            if detect_compression(path) == "zst":
                ctx.meta["zstd"] = zstd_support()

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        policy = str(ctx.params["fsync"])
        archive: Path = ctx.scratch["archive"]
        nfiles, nbytes = int(ctx.scratch["files"]), int(ctx.scratch["bytes"])
        dest = rep_dir / "out"
        dest.mkdir()
        _warm(archive)
        if ctx.params.get("extractor") == "tar":
            ctx.phase("tar -xf")
            t0 = time.perf_counter_ns()
            proc = subprocess.run(
                ["tar", "-xf", str(archive), "-C", str(dest)], capture_output=True, check=False
            )
            if policy == "end":
                syncfs(dest)
            secs = (time.perf_counter_ns() - t0) / 1e9
            if proc.returncode != 0:
                raise WorkloadError(f"tar failed: {proc.stderr.decode(errors='replace')[:300]}")
        else:
            threads = int(ctx.params["threads"])
            ctx.phase(f"extract ({threads} threads)")
            t0 = time.perf_counter_ns()
            got = extract_threaded(archive, dest, threads, do_fsync=policy == "file")
            if policy == "end":
                syncfs(dest)
            secs = (time.perf_counter_ns() - t0) / 1e9
            if (got.files, got.bytes) != (nfiles, nbytes):
                raise WorkloadError(
                    f"extracted {got.files} files ({got.bytes} bytes), the archive holds "
                    f"{nfiles} ({nbytes} bytes)"
                )
        phase = self._phase(ctx.params)
        m = {
            f"{phase}.seconds": Metric(secs, "s"),
            f"{phase}.files_per_s": Metric(nfiles / secs if secs else 0.0, "files/s"),
            f"{phase}.mb_per_s": Metric(nbytes / MB / secs if secs else 0.0, "MB/s"),
        }
        shutil.rmtree(dest)
        return m

    def cleanup(self, ctx: RunContext) -> None:
        ctx.scratch.clear()
