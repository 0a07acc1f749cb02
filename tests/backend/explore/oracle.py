"""A plain-Python explore: what every point should say, computed from the uploaded bodies.

Independent of the server's code: percentiles from numpy (linear interpolation), dimension
values read straight from the bodies (and, for what the server derives at ingest — the
environment's hash, memory-backed media, the cache mode's words, the series — from the run
as the API returns it)."""

from __future__ import annotations

import datetime as dt
import math
import random
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

METRIC = "read.mb_per_s"
AGENTS = ("lab-1", "lab-2", "lab-3")
TARGETS = ("/mnt/a", "/mnt/b")
FILESYSTEMS = ("ext4", "xfs", "tmpfs", "btrfs")
KERNELS = ("6.1.0-18-amd64", "6.5.0-1-amd64")
DEVICES = ("/dev/nvme0n1", "/dev/sda")
MOUNT_OPTIONS = ("rw,relatime", "rw,noatime,nobarrier")
T0 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def make_runs(seed: int, count: int) -> list[dict[str, Any]]:
    """Runs that vary along every dimension, with 1 to 6 repetitions and some trust flags."""
    rng = random.Random(seed)
    runs = []
    for i in range(count):
        agent = rng.choice(AGENTS)
        fs = rng.choice(FILESYSTEMS)
        environment: dict[str, Any] = {
            "kernel": rng.choice(KERNELS),
            "os": rng.choice(("Debian GNU/Linux 12", "Ubuntu 24.04")),
            "cpu_model": rng.choice(("EPYC 7302", "Xeon E-2288G")),
            "cores": 4,
            "fs_type": fs,
            "device": rng.choice(DEVICES),
            "device_model": rng.choice(("Samsung 980", "WD Red")),
            "mount_options": rng.choice(MOUNT_OPTIONS),
        }
        if rng.random() < 0.7:  # else host falls back to the agent's name
            environment["hostname"] = f"{agent}.lab"
        if rng.random() < 0.8:  # else env.scheduler is not set
            environment["scheduler"] = rng.choice(("mq-deadline", "none", "bfq"))
        parameters: dict[str, Any] = {
            "size": rng.choice(("4k", "1M")),
            "fsync": rng.choice((True, False)),
        }
        if rng.random() < 0.85:
            parameters["k"] = rng.choice((1, 3, 10))
        labels = {"version": rng.choice(("1.0", "2.0"))}
        if rng.random() < 0.6:
            labels["mode"] = rng.choice(("connected", "disconnected"))
        reps = rng.choice((1, 2, 3, 5, 6))
        base = {"ext4": 500.0, "xfs": 560.0, "tmpfs": 2000.0, "btrfs": 430.0}[fs]
        base *= 1 + 0.1 * AGENTS.index(agent) + 0.05 * parameters.get("k", 2)
        samples = [round(base * (1 + 0.2 * rng.random()), 3) for _ in range(reps)]
        result: dict[str, Any] = {"metric": METRIC, "unit": "MB/s", "samples": samples}
        if rng.random() < 0.1:  # a value the uploader chose, not the samples' median
            result["value"] = round(samples[0], 3)
        meta: dict[str, Any] = {}
        if rng.random() < 0.15:
            meta["short_phases"] = ["read"]
        if rng.random() < 0.1:
            meta["reps"] = [{"before": {"loadavg_1m": 9.5}, "after": {"loadavg_1m": 1.0}}]
        started = T0 + dt.timedelta(hours=i, minutes=rng.randrange(60))
        runs.append(
            {
                "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                "workload": "partialread",
                "agent": agent,
                "target": rng.choice(TARGETS),
                "parameters": parameters,
                "labels": labels,
                "started_at": started.isoformat(),
                "status": rng.choice(("ok", "ok", "partial")),
                "fsync_policy": rng.choice(("none", "file", "end")),
                "o_direct": rng.choice((True, False, None)),
                "sync_mount": rng.choice((True, False)),
                "write_cache": rng.choice(("write back", "enabled", "write through", None)),
                "cold_method": rng.choice(("drop_caches", "fresh_files")),
                # Left out, the server derives them from tmpfs (runs/durability.py).
                "flush_to_device": None if fs == "tmpfs" else rng.choice((True, False, None)),
                "memory_backed": None if fs == "tmpfs" else rng.choice((False, None)),
                "environment": environment,
                "meta": meta,
                "results": [
                    result,
                    # Another metric of the same runs: must never leak into the points.
                    {"metric": "read.seconds", "unit": "s", "samples": [1e6]},
                ],
            }
        )
    return runs


def _text(value: Any) -> str | None:
    """A dimension value as the server names it: JSON's words for booleans."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass
class Run:
    uuid: str
    started_at: dt.datetime
    samples: list[float]
    value: float
    flags: set[str]
    series_id: int
    dims: dict[str, str | None] = field(default_factory=dict)

    def uuid_obj(self) -> uuid.UUID:
        return uuid.UUID(self.uuid)


def stored_runs(bodies: list[dict[str, Any]], details: dict[str, dict[str, Any]]) -> list[Run]:
    runs = []
    for body in bodies:
        detail = details[body["uuid"]]
        (result,) = [r for r in body["results"] if r["metric"] == METRIC]
        samples = result["samples"]
        value = result.get("value", float(np.median(samples)))
        flags = set()
        if len(samples) < 3:
            flags.add("few_repetitions")
        if "read" in body["meta"].get("short_phases", []):
            flags.add("short_phase")
        if any(r["before"]["loadavg_1m"] > 1.5 * 4 for r in body["meta"].get("reps", [])):
            flags.add("busy")
        env = body["environment"]
        dims = {
            "agent": body["agent"],
            "host": env.get("hostname", body["agent"]),
            "workload": body["workload"],
            "target": body["target"],
            "status": body["status"],
            "environment": detail["environment"]["hash"],
            "fsync_policy": body["fsync_policy"],
            "o_direct": _text(body["o_direct"]),
            "sync_mount": _text(body["sync_mount"]),
            "cold_method": body["cold_method"],
            # Derived at ingest (runs/durability.py): what the server stored.
            "write_cache": detail["write_cache"],
            "flush_to_device": _text(detail["flush_to_device"]),
            "memory_backed": _text(detail["memory_backed"]),
        }
        for key in ("fs_type", "kernel", "os", "cpu_model", "device", "device_model"):
            dims[key] = env.get(key)
        dims["mount_options"] = env["mount_options"]
        for key, v in body["parameters"].items():
            dims[key] = dims[f"param.{key}"] = _text(v)
        for key, v in body["labels"].items():
            dims[key] = dims[f"label.{key}"] = v
        for key, v in env.items():
            dims[f"env.{key}"] = _text(v)
        (stored,) = [r for r in detail["results"] if r["metric"] == METRIC]
        runs.append(
            Run(
                uuid=body["uuid"], started_at=dt.datetime.fromisoformat(body["started_at"]),
                samples=samples, value=value, flags=flags, series_id=stored["series_id"],
                dims=dims,
            )
        )  # fmt: skip
    return runs


def _between(values: list[float], q: float) -> tuple[float, float]:
    """The two order statistics a q-th quantile interpolates between (runs/stats.py)."""
    ordered = sorted(values)
    low = math.floor(q * (len(ordered) - 1))
    return ordered[low], ordered[min(low + 1, len(ordered) - 1)]


def point(runs: list[Run], tentative: set[int]) -> dict[str, Any]:
    """What one point must say about these runs (README.md, Explore aggregates)."""
    pooled = [s for r in runs for s in r.samples]
    p5s = [float(np.percentile(r.samples, 5)) for r in runs]
    p95s = [float(np.percentile(r.samples, 95)) for r in runs]
    flags = set().union(*(r.flags for r in runs))
    if any(r.series_id in tentative for r in runs):
        flags.add("tentative_alert")
    return {
        "n": len(runs),
        "repetitions": len(pooled),
        "median": float(np.median([r.value for r in runs])),
        "mean": sum(pooled) / len(pooled),
        "min": min(pooled),
        "max": max(pooled),
        "p5": float(np.percentile(p5s, 5)),
        "p95": float(np.percentile(p95s, 95)),
        # What a sketched median, p5 or p95 is within ALPHA of (core/sketch.py): a value
        # between these order statistics.
        "between": {
            "median": _between([r.value for r in runs], 0.5),
            "p5": _between(p5s, 0.05),
            "p95": _between(p95s, 0.95),
        },
        "flags": sorted(flags),
        # The runs a point lists: the newest (start times are distinct here), newest first.
        "newest": [r.uuid for r in sorted(runs, key=lambda r: r.started_at, reverse=True)][:20],
    }


def expected(
    runs: list[Run],
    *,
    x: str,
    group: str | None,
    filters: dict[str, list[str]],
    tentative: set[int],
) -> dict[tuple[str | None, str | None], dict[str, Any]]:
    """{(group value, x value): point}; x = time gives one point per run (x = its uuid)."""
    cells: dict[tuple[str | None, str | None], list[Run]] = defaultdict(list)
    for run in runs:
        if not all(run.dims.get(name) in wanted for name, wanted in filters.items()):
            continue
        g = run.dims.get(group) if group else None
        cells[(g, run.uuid if x == "time" else run.dims.get(x))].append(run)
    return {key: point(members, tentative) for key, members in cells.items()}
