"""Valid upload bodies for tests, with overrides, and the samples and histories that tests
build them from (one copy here, not one per test file)."""

from __future__ import annotations

import copy
import datetime as dt
import random
import uuid
from collections.abc import Iterable
from typing import Any

# Far enough in the past that a history of a few months stays before now: the server refuses a
# run that starts more than a day in the future.
BASE_TIME = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)


# A series that steps 20 % down after 15 days: detection's plainest regression.
STEP = (1000.0,) * 15 + (800.0,) * 10


def at(*, days: float = 0, hours: float = 0, minutes: float = 0) -> str:
    """BASE_TIME plus an offset, as an upload's ISO time."""
    return (BASE_TIME + dt.timedelta(days=days, hours=hours, minutes=minutes)).isoformat()


def noisy(rng: random.Random, level: float, n: int = 3, sd: float = 0.01) -> list[float]:
    """n samples of level × N(1, sd), drawn from rng in turn."""
    return [level * rng.gauss(1, sd) for _ in range(n)]


def within(
    rng: random.Random, level: float, spread: float = 0.01, n: int = 3, digits: int | None = None
) -> list[float]:
    """n samples of level × (1 ± spread), uniform, drawn from rng in turn; rounded to `digits`."""
    drawn = (level * (1 + rng.uniform(-spread, spread)) for _ in range(n))
    return [v if digits is None else round(v, digits) for v in drawn]


def daily_runs(
    levels: Iterable[float], rng: random.Random, *, metrics: Iterable[str] = ("create.ops_per_s",),
    first_day: int = 0, **overrides: Any,
) -> list[dict[str, Any]]:  # fmt: skip
    """One run a day from BASE_TIME + first_day, one per level, each metric's samples
    noisy(rng, level), drawn run by run and metric by metric."""
    names = tuple(metrics)
    return [
        run_body(started_at=at(days=first_day + i),
                 results=[result(m, noisy(rng, level)) for m in names], **overrides)
        for i, level in enumerate(levels)
    ]  # fmt: skip


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
