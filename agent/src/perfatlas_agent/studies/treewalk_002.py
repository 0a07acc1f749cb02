"""treewalk-002 (seed 002, Gluster cluster-ls/cluster-rm): walking and deleting a tree
serially (find, rm -rf, one thread) and in parallel, over trees that grow, with the thread
count as a setting (100 in the seed, and `auto`: the wish to tune it from inodes per second),
four tests each for the run-to-run spread."""

from __future__ import annotations

from perfatlas_agent.studies.model import Options, Part, Study, Variant


def build(o: Options) -> list[Part]:
    if o.quick:
        shape = {"depth": 2, "fanout": 4, "files": [10, 40]}
        threads: list[int | str] = [8, "auto"]
    else:
        shape = {"depth": 3, "fanout": 8, "files": [20, 80, 320]}
        threads = [4, 16, 100, "auto"]
    spec = {"workload": "treeops", "repetitions": 2 if o.quick else 4, "warmup": not o.quick,
            "min_seconds": 0, "params": {**shape, "size": 0, "threads": threads}}  # fmt: skip
    return [Part(spec)]


STUDY = Study(
    name="treewalk-002",
    seed="002",
    title="Gluster: serial find/rm -rf vs threaded ls/rm",
    measures="tree walk and delete, serial vs T threads (and auto) vs find / rm -rf, "
    "growing trees, 4 repetitions",
    variants=(Variant("default"),),
    build=build,
    estimate=("~15 s", "~20 min"),
    # Three trees of up to 188k inodes at once: 32 GiB gives ext4 2M inodes (one per 16 KiB).
    image_bytes=lambda o: (1 << 30) if o.quick else (32 << 30),
)
