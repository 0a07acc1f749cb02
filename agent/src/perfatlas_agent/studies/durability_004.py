"""durability-004 (seed 004, NFS on ZFS): extracting many 1 KiB files with GNU tar (single
threaded, as the seed's `tar xf`) and with the agent's extractor in T threads, under fsync policies (none, each file, at the end), on a default and a
`-o sync` mount, with the disk's write cache honoured (write back: flushes reach the device)
or not (write through set over the loop device's cache: the kernel drops every flush, the
"unsafe" service). Each run is labelled with mount and write_cache."""

from __future__ import annotations

from perfatlas_agent.studies.model import DEFAULT, Options, Part, Study, Variant

VARIANTS = (
    Variant(DEFAULT),
    Variant("write-through", write_cache="write through"),
    Variant("sync", mount="sync"),
    Variant("sync-write-through", mount="sync", write_cache="write through"),
)


def build(o: Options) -> list[Part]:
    reps = {"repetitions": 3 if o.quick else 5, "warmup": not o.quick, "min_seconds": 0}
    source = {"archive": o.archive} if o.archive else {"files": 300 if o.quick else 1000,
                                                       "size": "1k"}  # fmt: skip
    # GNU tar single threaded (the seed's `tar xf`; tar cannot fsync each file, and its runs
    # store no threads) and the agent's extractor in T threads.
    tar = {**source, "extractor": "tar", "fsync": ["none", "end"]}
    params = {**source, "extractor": "threads", "threads": [1, 8] if o.quick else [1, 4, 16, 64],
              "fsync": ["none", "file", "end"]}  # fmt: skip
    # A sync mount writes every file synchronously whatever the fsync policy (about 10 ms a
    # file on a disk here): the sync variants run with fsync none only.
    cached = (DEFAULT, "write-through")
    synced = ("sync",) if o.quick else ("sync", "sync-write-through")
    parts = [
        Part({"workload": "extract", **reps, "params": tar}, variants=cached),
        Part({"workload": "extract", **reps, "params": params}, variants=cached),
        Part({"workload": "extract", **reps, "params": {**tar, "fsync": "none"}},
             variants=synced),
    ]  # fmt: skip
    # Threads on a sync mount: the full study's. Quick, it would be half of make up's first
    # run on ext4 (every file a journal commit) for a table no default report shows.
    if not o.quick:
        parts.append(Part({"workload": "extract", **reps, "params": {**params, "fsync": "none"}},
                          variants=synced))  # fmt: skip
    return parts


STUDY = Study(
    name="durability-004",
    seed="004",
    title="NFS and ZFS: tar xf of small files, COMMIT semantics, write cache",
    measures="single vs multi-threaded extraction; fsync none/file/end; default vs sync "
    "mount; write cache honoured (write back) vs not (write through)",
    variants=VARIANTS,
    build=build,
    estimate=("~1 min", "~6 min"),
    label_write_cache=True,
)
