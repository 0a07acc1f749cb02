"""A simulated erasure-coded download, for partial-003's `command` example (seed 003: Tahoe-LAFS
download time against k and the segment size, one line per version).

The file (FILESIZE bytes) is cut into segments of SEGSIZE; each segment into k blocks, block i
of every segment going to share file i (the k shares a download needs; decoding costs no I/O
and is left out). The shares are written in the current folder, flushed and dropped from the
page cache (posix_fadvise DONTNEED), then downloaded: every block of every segment is read
back from its share. How it is read is the "version" (the run's `version` label):

  1.0  one read per block, segment after segment (many small reads, as the downloader whose
       download time grows with k: k=60 and 128 KiB segments make 2 KiB blocks)
  1.1  one read per share per window of segments (the readv() fix the seed proposes)

Prints the metrics as JSON for the agent's `command` workload. Standard library only.

    python -m perfatlas_agent.studies.erasure --version 1.1 --k 30 --segsize 128k --filesize 1M
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

WINDOW_BYTES = 1 << 20  # 1.1 reads this much of a share at once (whole segments' blocks)
VERSIONS = ("1.0", "1.1")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def size(text: str) -> int:
    t = text.strip().lower().removesuffix("b").removesuffix("i")
    unit = t[-1] if t and t[-1] in "kmg" else ""
    return int(float(t[: len(t) - len(unit)]) * _UNITS[unit])


def write_shares(k: int, nseg: int, block: int) -> list[str]:
    payload = os.urandom(block * min(nseg, 256))
    names = []
    for i in range(k):
        name = f"share{i:03d}"
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            left = nseg * block
            while left > 0:
                left -= os.write(fd, payload[: min(left, len(payload))])
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        names.append(name)
    return names


def download(names: list[str], nseg: int, block: int, version: str) -> tuple[int, int]:
    """Reads every block; returns (bytes read, read calls)."""
    fds = [os.open(n, os.O_RDONLY) for n in names]
    got = calls = 0
    try:
        if version == "1.0":
            buf = bytearray(block)
            for seg in range(nseg):
                for fd in fds:
                    got += os.preadv(fd, [buf], seg * block)
                    calls += 1
        else:
            per = max(1, WINDOW_BYTES // block)
            buf = bytearray(per * block)
            for first in range(0, nseg, per):
                view = memoryview(buf)[: min(per, nseg - first) * block]
                for fd in fds:
                    got += os.preadv(fd, [view], first * block)
                    calls += 1
    finally:
        for fd in fds:
            os.close(fd)
    return got, calls


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--version", required=True, help=f"one of {', '.join(VERSIONS)}")
    ap.add_argument("--k", type=int, required=True, help="shares needed to download")
    ap.add_argument("--segsize", type=size, required=True)
    ap.add_argument("--filesize", type=size, required=True)
    args = ap.parse_args(argv)
    if args.version not in VERSIONS:
        print(f"unknown version {args.version!r}; known: {', '.join(VERSIONS)}", file=sys.stderr)
        return 2
    if not 1 <= args.k <= 256 or args.segsize < args.k or args.filesize < 1:
        print("need 1 <= k <= 256, segsize >= k and filesize >= 1", file=sys.stderr)
        return 2
    block = -(-args.segsize // args.k)
    nseg = -(-args.filesize // args.segsize)
    names = write_shares(args.k, nseg, block)
    t0 = time.perf_counter_ns()
    got, calls = download(names, nseg, block, args.version)
    secs = (time.perf_counter_ns() - t0) / 1e9
    for name in names:
        os.unlink(name)
    if got != args.k * nseg * block:
        print(f"read {got} bytes, expected {args.k * nseg * block}", file=sys.stderr)
        return 1
    metrics = {
        "download.seconds": {"value": secs, "unit": "s"},
        "download.mb_per_s": {"value": args.filesize / 1e6 / secs, "unit": "MB/s"},
        "download.reads": {"value": calls, "unit": "count", "direction": "lower"},
    }
    print(json.dumps(metrics))
    return 0


if __name__ == "__main__":
    sys.exit(main())
