"""Valid upload bodies for tests, with overrides."""

from __future__ import annotations

import copy
import datetime as dt
import uuid
from typing import Any

# Far enough in the past that a history of a few months stays before now: the server refuses a
# run that starts more than a day in the future.
BASE_TIME = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)


def result(metric: str, samples: list[float], unit: str = "ops/s", **extra: Any) -> dict[str, Any]:
    return {"metric": metric, "unit": unit, "samples": samples, **extra}


def run_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "uuid": str(uuid.uuid4()),
        "workload": "smallfile",
        "agent": "host-a",
        "agent_version": "0.1.0",
        "target": "/mnt/ext4",
        "parameters": {"nfiles": 1000, "size": "30B", "fsync": False, "threads": 1},
        "labels": {"fs_version": "6.1", "mode": "connected"},
        "started_at": BASE_TIME.isoformat(),
        "finished_at": (BASE_TIME + dt.timedelta(seconds=30)).isoformat(),
        "status": "ok",
        "fsync_policy": "none",
        "o_direct": False,
        "sync_mount": False,
        "write_cache": "enabled",
        "cold_method": "drop_caches",
        "environment": {
            "hostname": "host-a",
            "kernel": "6.1.0-18-amd64",
            "os": "Debian GNU/Linux 12",
            "cpu_model": "Test CPU",
            "cores": 2,
            "ram_bytes": 24 * 2**30,
            "fs_type": "ext4",
            "mount_options": "rw,relatime",
            "device": "/dev/loop0",
            "rotational": False,
        },
        "results": [
            result("create.ops_per_s", [1000.0, 1100.0, 1050.0]),
            result("create.seconds", [1.0, 0.91, 0.95], unit="s"),
            result("read_cold.ops_per_s", [400.0, 410.0, 390.0]),
        ],
    }
    if "started_at" in overrides and "finished_at" not in overrides:
        started = dt.datetime.fromisoformat(overrides["started_at"])
        body["finished_at"] = (started + dt.timedelta(seconds=30)).isoformat()
    body.update(copy.deepcopy(overrides))
    return body
