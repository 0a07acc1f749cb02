"""treewalk-002 (seed 002, Gluster cluster-ls/cluster-rm): walking and deleting a tree
serially (find, rm -rf, one thread) and in parallel, over trees that grow, with the thread
count as a setting (100 in the seed, and `auto`: the wish to tune it from inodes per second),
four tests each for the run-to-run spread."""

from __future__ import annotations

from perfatlas_agent.studies.model import Options, Part, Study, Variant


def build(o: Options) -> list[Part]:
    # The tree size (inodes, root included) is the swept parameter, as the seed's 49 GB to
    # 1.1 TB trees: seconds and inodes/s against it. threads=auto stays "auto" in the key.
    if o.quick:
        shape = {"inodes": [300, 1200], "fanout": 4, "files": 10}
        threads: list[int | str] = [8, "auto"]
    else:
        shape = {"inodes": [10_000, 40_000, 160_000], "fanout": 8, "files": 20}
        threads = [4, 16, 100, "auto"]
    spec = {"workload": "treeops", "repetitions": 3 if o.quick else 4, "warmup": not o.quick,
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
    # Three trees of up to 160k inodes at once: 32 GiB gives ext4 2M inodes (one per 16 KiB).
    image_bytes=lambda o: (1 << 30) if o.quick else (32 << 30),
)
