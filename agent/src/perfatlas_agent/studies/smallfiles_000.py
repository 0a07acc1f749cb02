"""smallfiles-000 (seed 000, Coda vs NFS vs XFS): 1000 small files created, read for the
first time (cold) and again (warm), stat'ed and deleted, across filesystems and fsync modes.
Coda's "connected" mode commits every operation synchronously: its counterpart here is the
filesystem mounted `-o sync`; "write-disconnected" (a local log) is the default mount."""

from __future__ import annotations

from perfatlas_agent.studies.model import DEFAULT, Options, Part, Study, Variant


def build(o: Options) -> list[Part]:
    # The sizes as given, no --min-seconds growth: every machine and filesystem runs the same
    # work, so their runs share series.
    common = {"workload": "smallfile", "min_seconds": 0, "repetitions": 3 if o.quick else 5,
              "warmup": not o.quick}  # fmt: skip
    # 1000 files of 29 bytes (250 quick): make.php writes "<? /* some test comment */ ?>" in
    # each. The warm reads and stats go over them 10 times in the full study (the seed averages
    # subsequent runs), long enough to time on a fast filesystem.
    files = {"nfiles": 250 if o.quick else 1000, "size": "29B", "threads": 1,
             **({} if o.quick else {"passes": 10})}  # fmt: skip
    return [
        Part({**common, "params": {**files, "fsync": ["none", "file", "end"]}}),
        Part({**common, "params": {**files, "fsync": "none"}}, variants=("sync",),
             memory_params=None),
    ]  # fmt: skip


STUDY = Study(
    name="smallfiles-000",
    seed="000",
    title="Coda vs NFS vs XFS: 1000 small files",
    measures="create, read cold, read warm, stat, delete of 1000 files; fsync none/file/end; "
    "default vs sync mount (connected mode)",
    variants=(Variant(DEFAULT), Variant("sync", mount="sync")),
    build=build,
    estimate=("~15 s", "~2 min"),
)
