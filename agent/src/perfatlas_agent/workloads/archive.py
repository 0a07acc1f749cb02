"""Archives for extract: a deterministic generated tar (compressed or not), compression found
by its magic bytes, and the agent's threaded extractor, which reads and decompresses the
archive itself (its clock starts where tar's does: before the archive is opened)."""

from __future__ import annotations

import bz2
import gzip
import importlib
import io
import lzma
import os
import queue
import shutil
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from perfatlas_agent.errors import WorkloadError

COMPRESSIONS = ("none", "gz", "xz", "zst")
SUFFIX = {"none": ".tar", "gz": ".tar.gz", "xz": ".tar.xz", "zst": ".tar.zst"}
_MAGIC = ((b"\x1f\x8b", "gz"), (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zst"))
_MAGIC_BZ2 = b"BZh"
STREAM_BUFSIZE = 1 << 16  # bytes read from the (de)compressed stream at a time
QUEUE_PER_THREAD = 64  # files read ahead per writer thread: bounds the memory used


def zstd_module() -> Any | None:
    try:
        return importlib.import_module("zstandard")
    except ImportError:
        return None


def zstd_support() -> str | None:
    """How zst archives are read here (the zstandard module, or the zstd program), or None."""
    if zstd_module() is not None:
        return "zstandard module"
    if shutil.which("zstd") is not None:
        return "zstd program"
    return None


NO_ZSTD = (
    "zst needs the zstandard Python module (pip install zstandard) or the zstd program "
    "(Debian: apt install zstd); neither is installed here"
)


def detect_compression(path: Path) -> str:
    """none, gz, xz, zst or bz2, from the archive's first bytes."""
    with open(path, "rb") as f:
        head = f.read(8)
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    return "bz2" if head.startswith(_MAGIC_BZ2) else "none"


def make_archive(
    path: Path, *, files: int, size: int, per_dir: int = 100, compression: str = "none"
) -> None:
    """A deterministic tar: same names, bytes, modes and times on every machine; compressed
    with fixed settings (gzip level 6 without a timestamp, xz preset 6, zstd level 3)."""
    raw = io.BytesIO() if compression != "none" else None
    with tarfile.open(path if raw is None else None, "w", fileobj=raw,
                      format=tarfile.GNU_FORMAT) as tar:  # fmt: skip
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
    if raw is not None:
        compress(raw.getvalue(), path, compression)


def compress(data: bytes, path: Path, compression: str) -> None:
    if compression == "gz":
        path.write_bytes(gzip.compress(data, compresslevel=6, mtime=0))
    elif compression == "xz":
        path.write_bytes(lzma.compress(data, preset=6))
    elif compression == "zst":
        module = zstd_module()
        if module is not None:
            path.write_bytes(module.ZstdCompressor(level=3).compress(data))
        elif shutil.which("zstd") is not None:
            subprocess.run(["zstd", "-q", "-3", "-f", "-o", str(path)], input=data, check=True)
        else:
            raise WorkloadError(NO_ZSTD)
    else:
        raise WorkloadError(f"unknown compression {compression!r}")


@contextmanager
def open_tar(path: Path) -> Iterator[tarfile.TarFile]:
    """The archive as a stream of members, decompressed on the way (gz, xz, bz2 by Python's
    own modules; zst by the zstandard module or a `zstd -dc` pipe)."""
    kind = detect_compression(path)
    if kind != "zst":
        # Python's own decompressing readers: tarfile's "r|gz"/"r|xz" streams are many times
        # slower (2.4 s against 0.07 s for an 8 MB .tar.xz here).
        openers: dict[str, Any] = {"gz": gzip.open, "xz": lzma.open, "bz2": bz2.open}
        opener = openers.get(kind, open)
        with (
            opener(path, "rb") as stream,
            tarfile.open(fileobj=stream, mode="r|", bufsize=STREAM_BUFSIZE) as tar,
        ):
            yield tar
        return
    module = zstd_module()
    if module is not None:
        with (
            open(path, "rb") as raw,
            module.ZstdDecompressor().stream_reader(raw) as zstream,
            tarfile.open(fileobj=zstream, mode="r|", bufsize=STREAM_BUFSIZE) as tar,
        ):
            yield tar
        return
    if shutil.which("zstd") is None:
        raise WorkloadError(f"{path.name}: {NO_ZSTD}")
    proc = subprocess.Popen(["zstd", "-dc", "--", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    assert proc.stdout is not None
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|", bufsize=STREAM_BUFSIZE) as tar:
            yield tar
    finally:
        proc.stdout.close()
        err = proc.stderr.read() if proc.stderr else b""
        if proc.wait() not in (0, -13):  # -13: we stopped reading (SIGPIPE)
            raise WorkloadError(f"zstd failed: {err.decode(errors='replace')[:300]}")


def _safe(name: str) -> str:
    norm = os.path.normpath(name)
    if norm.startswith(("/", "..")) or norm == ".":
        raise WorkloadError(f"archive member {name!r} escapes the target")
    return norm


@dataclass
class Counts:
    files: int = 0
    bytes: int = 0


def scan(path: Path) -> Counts:
    """Regular files and their bytes in the archive (untimed: before the repetitions)."""
    counts = Counts()
    with open_tar(path) as tar:
        for member in tar:
            _safe(member.name)
            if member.isreg():
                counts.files += 1
                counts.bytes += member.size
    return counts


def _write(fd_path: str, data: bytes, mode: int, do_fsync: bool) -> None:
    fd = os.open(fd_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if do_fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


Item = tuple[str, bytes, int]


def extract_threaded(path: Path, dest: Path, threads: int, *, do_fsync: bool) -> Counts:
    """Read (and decompress) the archive in this thread and write its files with `threads`
    writer threads (threads=1: no writer thread, this one writes). Directories and symbolic
    links are made in archive order by the reader, hard links once every file is written."""
    root = str(dest)
    counts = Counts()
    made: set[str] = {""}
    links: list[tuple[str, str]] = []
    errors: list[BaseException] = []
    stop = threading.Event()
    q: queue.Queue[Item | None] = queue.Queue(maxsize=QUEUE_PER_THREAD * threads)

    def writer() -> None:
        while True:
            item = q.get()
            if item is None:
                return
            if stop.is_set():
                continue  # drain, so the reader never blocks on a full queue
            try:
                _write(f"{root}/{item[0]}", item[1], item[2], do_fsync)
            except BaseException as exc:
                errors.append(exc)
                stop.set()

    workers = [threading.Thread(target=writer, daemon=True) for _ in range(threads)]
    if threads > 1:
        for w in workers:
            w.start()

    def parent(name: str) -> None:
        d = os.path.dirname(name)
        if d not in made:
            os.makedirs(f"{root}/{d}", exist_ok=True)
            made.add(d)

    try:
        with open_tar(path) as tar:
            for member in tar:
                if stop.is_set():
                    break
                name = _safe(member.name)
                if member.isdir():
                    if name not in made:
                        os.makedirs(f"{root}/{name}", exist_ok=True)
                        made.add(name)
                elif member.isreg():
                    f: IO[bytes] | None = tar.extractfile(member)
                    data = f.read() if f is not None else b""
                    parent(name)
                    counts.files += 1
                    counts.bytes += len(data)
                    item = (name, data, member.mode & 0o7777 or 0o644)
                    if threads > 1:
                        q.put(item)
                    else:
                        _write(f"{root}/{name}", item[1], item[2], do_fsync)
                elif member.issym():
                    parent(name)
                    os.symlink(member.linkname, f"{root}/{name}")
                elif member.islnk():
                    links.append((_safe(member.linkname), name))
    except BaseException:
        stop.set()
        raise
    finally:
        if threads > 1:
            for _ in workers:
                q.put(None)
            for w in workers:
                w.join()
    if errors:
        raise errors[0]
    for target, name in links:
        parent(name)
        os.link(f"{root}/{target}", f"{root}/{name}")
    return counts
