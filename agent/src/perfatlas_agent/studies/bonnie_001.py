"""bonnie-001 (seed 001, Coda vs NFS bonnie): bonnie-style sequential output, rewrite,
sequential input and random seeks on a file smaller and a file larger than the page cache
(30 MB and 300 MB beside 256 MB of RAM there), then extracting a source tarball."""

from __future__ import annotations

from typing import Any

from perfatlas_agent.studies.model import Options, Part, Study, Variant, size_text

BLOCK = "8k"  # bonnie's chunk


def file_sizes(o: Options) -> tuple[int, int]:
    """Either side of the page cache: about an eighth of RAM (rounded down to a power of two)
    and twice RAM (bonnie++'s advice, rounded up to whole GiB), so that machines with about
    the same memory make the same sizes, and so the same series."""
    if o.quick:
        return 8 << 20, 64 << 20
    small = 1 << max((o.ram_bytes // 8).bit_length() - 1, 25)
    return small, -(-2 * o.ram_bytes // (1 << 30)) << 30


def build(o: Options) -> list[Part]:
    small, large = file_sizes(o)
    # Three repetitions, quick or not: compare gives a verdict from three on.
    reps = {"repetitions": 3, "warmup": not o.quick, "min_seconds": 0}
    params = {
        "filesize": [size_text(small), size_text(large)], "blocksize": BLOCK,
        "seeks": 500 if o.quick else 4000,
        # bonnie's per-character putc/getc, a byte at a time through a stdio-sized buffer:
        # Python pays an interpreter call per byte, so a bounded part of the file.
        "perchar": True, "perchar_size": "1M" if o.quick else "8M"}  # fmt: skip
    # cache=cold said (it is what a run without it does), so that the report's tables can
    # filter cold runs from warm ones.
    seqio = Part(
        {"workload": "seqio", **reps, "params": {**params, "cache": "cold"}},
        # tmpfs is the page cache itself: only the file that fits in memory.
        memory_params={"filesize": size_text(small)},
    )
    # The warm variant reads as bonnie does, what the writes left in the page cache: a file
    # that fits reads at memory speed, one larger than the cache from the disk (the seed's
    # 30 MB vs 300 MB beside 256 MB of RAM). The full sizes are RAM/8 and 2 x RAM, so the
    # effect shows between the two sizes; the quick ones both fit (8M, 64M), so there it shows
    # between warm and cold (cold: the cache dropped, what a file beyond the cache gets).
    # Not on tmpfs, where cold and warm are the same memory.
    warm = Part({"workload": "seqio", **reps, "params": {**params, "cache": "warm"}},
                memory_params=None)  # fmt: skip
    source: dict[str, Any]
    if o.archive:
        source = {"archive": o.archive}
    else:  # a generated tree of small files, about a 1998 kernel's worth in the full study,
        # gzipped as the kernel's tarballs were
        source = {"files": 500 if o.quick else 5000, "size": "4k", "compression": "gz"}
    # GNU tar (the seed's `tar xzf`; its runs store no threads) and the agent's extractor.
    extract = Part({"workload": "extract", **reps, "params": {
        **source, "extractor": ["tar", "threads"], "threads": 4, "fsync": "none"}})  # fmt: skip
    return [seqio, warm, extract]


def image_bytes(o: Options) -> int:
    return (1 << 30) if o.quick else max(8 << 30, int(file_sizes(o)[1] * 1.2) + (2 << 30))


STUDY = Study(
    name="bonnie-001",
    seed="001",
    title="Coda vs NFS: bonnie at two file sizes, untarring a kernel",
    measures="putc, block write, rewrite, getc, block read, seeks at a file below and above "
    "RAM, read cold (cache dropped) and warm (cache=warm, as bonnie reads); extracting a "
    "gzipped source tarball with tar and with threads",
    variants=(Variant("default"),),
    build=build,
    estimate=("~30 s", "~2 h (a file of 2 x RAM written 3+1 times, read cold and warm)"),
    image_bytes=image_bytes,
)
