"""Runs built to trap an aggregate that pools unlike series: two agents, ext4, xfs and tmpfs
targets, fsync=file and fsync=none, versions 2.1.9 < 2.1.10 < 2.2.1 < 2.2.2, and a 19 % drop in
2.2.2 under fsync=file only. Pooled over fsync, each version's point hides the drop."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from typing import Any

WORKLOAD = "create"
METRIC = "create.ops_per_s"
AGENTS = ("agent-a", "agent-b")
FILESYSTEMS = ("ext4", "xfs", "tmpfs")
FSYNC = ("file", "none")
VERSIONS = ("2.1.9", "2.1.10", "2.2.1", "2.2.2")
RUNS_PER_CELL = 2
DROP = 0.81  # 2.2.2 under fsync=file
T0 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def centre(agent: str, fs: str, fsync: str, version: str) -> float:
    """What a run measures, before its noise: fsync=file is slow on disk, not on memory."""
    if fsync == "file":
        base = {"ext4": 3000.0, "xfs": 3400.0, "tmpfs": 21000.0}[fs]
    else:
        base = {"ext4": 20000.0, "xfs": 21500.0, "tmpfs": 23000.0}[fs]
    base *= 1.0 if agent == AGENTS[0] else 1.05
    if fsync == "file" and version == "2.2.2" and fs != "tmpfs":
        base *= DROP
    return base


def make_runs(seed: int = 40) -> list[dict[str, Any]]:
    """Every combination, RUNS_PER_CELL runs of 3 repetitions each (±2 % noise)."""
    rng = random.Random(seed)
    runs = []
    i = 0
    for version in VERSIONS:
        for agent in AGENTS:
            for fs in FILESYSTEMS:
                for fsync in FSYNC:
                    for rep in range(RUNS_PER_CELL):
                        mid = centre(agent, fs, fsync, version)
                        samples = [round(mid * (1 + rng.uniform(-0.02, 0.02)), 3) for _ in range(3)]
                        memory = fs == "tmpfs"
                        runs.append({
                            "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                            "workload": WORKLOAD, "agent": agent, "target": f"/mnt/{fs}",
                            "parameters": {"fsync": fsync, "files": 1000},
                            "labels": {"fs_version": version, "study": "ab"[rep % 2]},
                            "started_at": (T0 + dt.timedelta(minutes=7 * i)).isoformat(),
                            "status": "ok", "fsync_policy": fsync, "o_direct": False,
                            "sync_mount": False, "write_cache": "write back",
                            "cold_method": "drop_caches",
                            # tmpfs: the server derives memory-backed, no flush.
                            "flush_to_device": None if memory else True,
                            "memory_backed": None if memory else False,
                            "environment": {"hostname": f"{agent}.lab", "fs_type": fs,
                                            "kernel": "6.1.0-18-amd64", "cores": 2},
                            "meta": {},
                            "results": [{"metric": METRIC, "unit": "ops/s", "samples": samples}],
                        })  # fmt: skip
                        i += 1
    return runs


def dims_of(body: dict[str, Any]) -> dict[str, str]:
    """A run's values of the dimensions the trap varies, as explore names them."""
    fs = body["environment"]["fs_type"]
    return {
        "agent": body["agent"], "target": body["target"], "fs_type": fs,
        "param.fsync": body["parameters"]["fsync"], "fsync_policy": body["fsync_policy"],
        "memory_backed": "true" if fs == "tmpfs" else "false",
        "flush_to_device": "false" if fs == "tmpfs" else "true",
        "label.fs_version": body["labels"]["fs_version"], "label.study": body["labels"]["study"],
    }  # fmt: skip
