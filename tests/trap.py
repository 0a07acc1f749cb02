"""Data built to trap a group compare that pools unlike series (issue 40).

Two ZFS-like nightly machines over 2.1.9, 2.1.10, 2.2.1 and 2.2.2, each with fsync=file and
fsync=none series whose levels differ sevenfold; 2.2.2 drops 19 % under fsync=file only. A
third machine ran the same workload on ext4 and tmpfs (first-run runs: firstrun=true, study
and fs labels), and a reference column (no firstrun label, another agent and target) stands
for the seed's XFS of the same study."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from typing import Any

from tests.factories import BASE_TIME, result, run_body, within

VERSIONS = ("2.1.9", "2.1.10", "2.2.1", "2.2.2")
ZFS_AGENTS = ("zfs-night-1", "zfs-night-2")
LEVELS = {("zfs-night-1", "file"): 3000.0, ("zfs-night-1", "none"): 21000.0,
          ("zfs-night-2", "file"): 2600.0, ("zfs-night-2", "none"): 23000.0}  # fmt: skip
DROP = 0.81  # 2.2.2 under fsync=file
FS_LEVELS = {("ext4", "file"): 250.0, ("ext4", "none"): 9000.0,
             ("tmpfs", "file"): 22000.0, ("tmpfs", "none"): 22500.0}  # fmt: skip
STUDY = "trap-000"
RUNS_PER_CELL = 2


def _env(fs: str, host: str) -> dict[str, Any]:
    return {"hostname": host, "kernel": "6.1.0-18-amd64", "fs_type": fs, "cores": 2}


def trap_runs(workload: str = "trap_smallfile", seed: int = 40) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    runs: list[dict[str, Any]] = []

    def add(**body: Any) -> None:
        started = BASE_TIME + dt.timedelta(minutes=len(runs))
        runs.append(run_body(uuid=str(uuid.uuid4()), workload=workload,
                             started_at=started.isoformat(), **body))  # fmt: skip

    for version in VERSIONS:
        for (agent, fsync), level in LEVELS.items():
            ops = level * (DROP if version == "2.2.2" and fsync == "file" else 1.0)
            for _ in range(RUNS_PER_CELL):
                add(agent=agent, target="/tank/bench", fsync_policy=fsync,
                    parameters={"nfiles": 1000, "fsync": fsync},
                    labels={"fs_version": version}, memory_backed=False, flush_to_device=True,
                    environment=_env("zfs", agent),
                    results=[result("create.ops_per_s", within(rng, ops, digits=3)),
                             result("create.seconds", within(rng, 1000 / ops, digits=3), unit="s")])  # fmt: skip
    for (fs, fsync), level in FS_LEVELS.items():
        for _ in range(RUNS_PER_CELL):
            add(agent="lab-fs", target=f"/mnt/{fs}", fsync_policy=fsync,
                parameters={"nfiles": 1000, "fsync": fsync},
                labels={"study": STUDY, "firstrun": "true", "fs": fs, "mount": "default"},
                # tmpfs says nothing: memory-backed is known from its fs_type (runs/durability.py)
                memory_backed=None if fs == "tmpfs" else False,
                environment=_env(fs, "lab-fs"),
                results=[result("create.ops_per_s", within(rng, level, digits=3)),
                         result("create.seconds", within(rng, 1000 / level, digits=3), unit="s")])  # fmt: skip
    add(agent="reference", target="xfs", fsync_policy="none",
        parameters={"nfiles": 1000, "fsync": "none"},
        labels={"study": STUDY, "fs": "xfs-seed", "mount": "default"}, environment={},
        results=[result("create.ops_per_s", [12000.0]),
                 result("create.seconds", [1000 / 12000], unit="s")])  # fmt: skip
    return runs
