"""Runs for the browser tests, uploaded through the real API: an atlasperf-style sweep (seed 003),
a tar extraction on a safe and an unsafe NFS server (seed 004) and a nightly history."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.factories import run_body, within

SWEEP = "tahoe_download"
VERSIONS = ("1.7.1", "1.8.2", "trunk")
KS = (1, 2, 3, 4, 6)
SEGSIZES = (65536, 131072)
TAR = "tar_extract"
NIGHTLY = "nightly_smallfile"
NIGHTS = 20
T0 = dt.datetime(2026, 10, 1, 8, 0, tzinfo=dt.UTC)


@dataclass
class Seeded:
    sweep_runs: int = 0
    safe_run: str = ""
    unsafe_run: str = ""
    nightly_runs: list[str] = field(default_factory=list)


def _samples(rng: random.Random, centre: float, spread: float = 0.04, n: int = 5) -> list[float]:
    return within(rng, centre, spread, n, digits=3)


def _env(fs: str) -> dict[str, Any]:
    return {"hostname": "lab-1", "kernel": "6.1.0-18-amd64", "fs_type": fs, "cores": 2}


def sweep_runs(rng: random.Random) -> list[dict[str, Any]]:
    speed = {"1.7.1": 1.0, "1.8.2": 1.35, "trunk": 1.5}
    runs = []
    for vi, version in enumerate(VERSIONS):
        for k in KS:
            for segsize in SEGSIZES:
                mbps = (
                    42.0 * speed[version] / (1 + 0.18 * (k - 1)) * (1.2 if segsize == 131072 else 1)
                )
                started = T0 + dt.timedelta(days=7 * vi, minutes=len(runs))
                runs.append(
                    run_body(
                        uuid=str(uuid.uuid4()),
                        workload=SWEEP,
                        agent="lab-1",
                        target="/mnt/tahoe",
                        parameters={"k": k, "n": 10, "segsize": segsize},
                        labels={"version": version, "grid": "testgrid"},
                        started_at=started.isoformat(),
                        fsync_policy="none",
                        cold_method="fresh_files",
                        environment=_env("fuse.tahoe"),
                        results=[
                            {
                                "metric": "read.mb_per_s",
                                "unit": "MB/s",
                                "samples": _samples(rng, mbps),
                            },
                            {
                                "metric": "read.seconds",
                                "unit": "s",
                                "samples": _samples(rng, 100 / mbps),
                            },
                        ],
                    )
                )
    return runs


def tar_runs(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    common = {
        "workload": TAR, "agent": "nfs-client", "target": "/mnt/nfs",
        "parameters": {"archive": "linux-2.6.tar", "threads": 1}, "o_direct": False,
        "sync_mount": False, "cold_method": "drop_caches",
    }  # fmt: skip
    safe = run_body(
        uuid=str(uuid.uuid4()), **common, labels={"server": "zfs-safe"},
        started_at=(T0 + dt.timedelta(days=30)).isoformat(), fsync_policy="file",
        write_cache="disabled", environment=_env("nfs"),
        results=[
            {"metric": "extract.seconds", "unit": "s", "samples": _samples(rng, 192.0)},
            {"metric": "extract.files_per_s", "unit": "files/s", "samples": _samples(rng, 120.0)},
        ],
    )  # fmt: skip
    unsafe = run_body(
        uuid=str(uuid.uuid4()), **common, labels={"server": "zfs-zil-disabled"},
        started_at=(T0 + dt.timedelta(days=30, hours=1)).isoformat(), fsync_policy="none",
        write_cache="enabled", environment=_env("nfs"),
        results=[
            {"metric": "extract.seconds", "unit": "s", "samples": _samples(rng, 21.0)},
            {"metric": "extract.files_per_s", "unit": "files/s", "samples": _samples(rng, 1100.0)},
        ],
    )  # fmt: skip
    return safe, unsafe


def nightly_runs(rng: random.Random) -> list[dict[str, Any]]:
    runs = []
    for night in range(NIGHTS):
        level = 1000.0 if night < 12 else 820.0  # a regression lands on night 12
        runs.append(
            run_body(
                uuid=str(uuid.uuid4()),
                workload=NIGHTLY,
                agent="ci-1",
                target="/mnt/ext4",
                labels={"fs_version": f"6.{night // 4}"},
                started_at=(T0 + dt.timedelta(days=night)).isoformat(),
                results=[
                    {"metric": "create.ops_per_s", "unit": "ops/s", "samples": _samples(rng, level)}
                ],
            )
        )
    return runs


def seed(base_url: str, upload_token: str) -> Seeded:
    rng = random.Random(4)
    sweep = sweep_runs(rng)
    safe, unsafe = tar_runs(rng)
    nightly = nightly_runs(rng)
    response = httpx.post(
        f"{base_url}/api/v1/runs/batch",
        json={"runs": [*sweep, safe, unsafe, *nightly]},
        headers={"Authorization": f"Bearer {upload_token}"},
        timeout=60,
    )
    response.raise_for_status()
    return Seeded(
        sweep_runs=len(sweep), safe_run=safe["uuid"], unsafe_run=unsafe["uuid"],
        nightly_runs=[r["uuid"] for r in nightly],
    )  # fmt: skip
