"""extract (seeds 001, 004): unpack an archive of many small files with tar and with T threads."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import time
from pathlib import Path
from typing import Any

from perfatlas_agent._exceptions import ParameterError, WorkloadError
from perfatlas_agent.calibrate import Knob, Room
from perfatlas_agent.measure import Metric, ThreadResult, new_latency_array, run_threads, syncfs
from perfatlas_agent.params import ParamSpec, ParamValue
from perfatlas_agent.workloads.base import RunContext, Workload

MB = 1_000_000
MAX_ARCHIVE_BYTES = 2 << 30


def make_archive(path: Path, *, files: int, size: int, per_dir: int = 100) -> None:
    """A deterministic tar: same names, bytes, modes and times on every machine."""
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
        ndirs = max(1, -(-files // per_dir))
        for d in range(ndirs):
            info = tarfile.TarInfo(f"d{d:04d}")
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 1_000_000_000
            tar.addfile(info)
        for i in range(files):
            data = (f"{i:08d}".encode() * (size // 8 + 1))[:size]
            info = tarfile.TarInfo(f"d{i // per_dir:04d}/f{i:06d}")
            info.size, info.mode, info.mtime = size, 0o644, 1_000_000_000
            tar.addfile(info, io.BytesIO(data))


def parse_archive(path: Path) -> tuple[list[str], list[tuple[str, bytes, int]]]:
    """Directories and (name, data, mode) of regular files, read before any timed phase."""
    dirs: list[str] = []
    files: list[tuple[str, bytes, int]] = []
    total = 0
    with tarfile.open(path, "r:*") as tar:
        for member in tar:
            name = os.path.normpath(member.name)
            if name.startswith(("/", "..")):
                raise WorkloadError(f"archive member {member.name!r} escapes the target")
            if member.isdir():
                dirs.append(name)
            elif member.isreg():
                f = tar.extractfile(member)
                data = f.read() if f else b""
                total += len(data)
                if total > MAX_ARCHIVE_BYTES:
                    raise WorkloadError("archive too large to stage in memory (> 2 GiB)")
                parent = os.path.dirname(name)
                if parent:
                    dirs.append(parent)
                files.append((name, data, member.mode & 0o7777 or 0o644))
    return sorted(set(dirs), key=lambda d: (d.count("/"), d)), files


class Extract(Workload):
    name = "extract"
    description = "extract many small files: GNU tar vs T threads; fsync none, per file or at end"
    params = (
        ParamSpec("files", "int", 1000, "files in the generated archive"),
        ParamSpec("size", "size", 4096, "bytes per generated file"),
        ParamSpec("threads", "int", 4, "threads of the agent's extractor"),
        ParamSpec(
            "fsync",
            "choice",
            "none",
            "none, file (each file) or end (syncfs)",
            ("none", "file", "end"),
        ),
        ParamSpec(
            "archive", "str", None, "use this tar instead of a generated one", sweepable=False
        ),
    )

    def check(self, params: dict[str, ParamValue]) -> None:
        if shutil.which("tar") is None:
            raise WorkloadError("extract needs GNU tar for its baseline")
        archive = params.get("archive")
        if archive is not None and not Path(str(archive)).is_file():
            raise ParameterError(f"archive {archive} is not a file")

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        return {"fsync_policy": str(params.get("fsync", "none")), "o_direct": False}

    def knobs(self, params: dict[str, ParamValue]) -> tuple[Knob, ...]:
        if params.get("archive") is not None:
            return ()  # a given archive is what it is
        return (Knob("files", ("tar", "extract")),)

    def limits(self, params: dict[str, ParamValue], room: Room) -> dict[str, int]:
        # The archive (512-byte blocks), its copy in memory, and the files extracted from it.
        size = int(params["size"])
        per_file = 512 + 512 * -(-size // 512) + size + 4096 * -(-size // 4096) + 1024
        files = room.bytes_budget // per_file
        if size:
            files = min(files, (MAX_ARCHIVE_BYTES // 2) // size)
        if room.inode_budget is not None:
            files = min(files, room.inode_budget)
        return {"files": min(files, 4_000_000)}

    def prepare(self, ctx: RunContext) -> None:
        archive = ctx.params.get("archive")
        if archive is None:
            path = ctx.workdir / "input.tar"
            make_archive(path, files=int(ctx.params["files"]), size=int(ctx.params["size"]))
        else:
            path = Path(str(archive)).resolve()
        dirs, files = parse_archive(path)
        ctx.scratch.update(archive=path, dirs=dirs, files=files)
        ctx.params["files"] = len(files)
        ctx.params["bytes"] = sum(len(d) for _, d, _ in files)
        ctx.meta["threaded_extract"] = "archive parsed into memory before the timed phase"
        ctx.meta["tar_baseline"] = (
            "skipped: GNU tar cannot fsync each file"
            if ctx.params["fsync"] == "file"
            else "timed `tar -xf` (+ syncfs when fsync=end)"
        )

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        policy = str(ctx.params["fsync"])
        threads = int(ctx.params["threads"])
        dirs: list[str] = ctx.scratch["dirs"]
        files: list[tuple[str, bytes, int]] = ctx.scratch["files"]
        nbytes = int(ctx.params["bytes"])
        m: dict[str, Metric] = {}

        def rates(phase: str, secs: float) -> None:
            m[f"{phase}.seconds"] = Metric(secs, "s")
            m[f"{phase}.files_per_s"] = Metric(len(files) / secs if secs else 0.0, "files/s")
            m[f"{phase}.mb_per_s"] = Metric(nbytes / MB / secs if secs else 0.0, "MB/s")

        if policy != "file":
            ctx.phase("tar -xf")
            dest = rep_dir / "tar"
            dest.mkdir()
            t0 = time.perf_counter_ns()
            proc = subprocess.run(
                ["tar", "-xf", str(ctx.scratch["archive"]), "-C", str(dest)],
                capture_output=True,
                check=False,
            )
            if policy == "end":
                syncfs(dest)
            secs = (time.perf_counter_ns() - t0) / 1e9
            if proc.returncode != 0:
                raise WorkloadError(f"tar failed: {proc.stderr.decode(errors='replace')[:300]}")
            rates("tar", secs)
            shutil.rmtree(dest)
            syncfs(rep_dir)

        ctx.phase(f"extract ({threads} threads)")
        dest = rep_dir / "threads"
        dest.mkdir()
        root = str(dest)
        do_fsync = policy == "file"
        chunks = [files[i::threads] for i in range(threads)]
        t0 = time.perf_counter_ns()
        for d in dirs:
            os.makedirs(f"{root}/{d}", exist_ok=True)
        run_threads(threads, lambda t: _write_files(root, chunks[t], do_fsync))
        if policy == "end":
            syncfs(dest)
        secs = (time.perf_counter_ns() - t0) / 1e9
        rates("extract", secs)
        if "tar.seconds" in m:
            m["extract.speedup_vs_tar"] = Metric(m["tar.seconds"].value / secs, "x", "higher")
        shutil.rmtree(dest)
        return m

    def cleanup(self, ctx: RunContext) -> None:
        ctx.scratch.clear()


def _write_files(root: str, chunk: list[tuple[str, bytes, int]], do_fsync: bool) -> ThreadResult:
    lat = new_latency_array(0)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    op, wr, cl, fs = os.open, os.write, os.close, os.fsync
    start = time.perf_counter_ns()
    for name, data, mode in chunk:
        fd = op(f"{root}/{name}", flags, mode)
        view = memoryview(data)
        while view:
            view = view[wr(fd, view) :]
        if do_fsync:
            fs(fd)
        cl(fd)
    return ThreadResult(start, time.perf_counter_ns(), 0, lat)
