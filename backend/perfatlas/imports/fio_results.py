"""The results of one fio job: bandwidth, IOPS and latency per direction, and the values that
are there but are not numbers (reported, never silently dropped)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from perfatlas.core.measurement import ResultCreate
from perfatlas.imports.common import Skipped, shown

DIRECTIONS = ("read", "write", "trim")
# fio's default percentile_list prints these keys; a job with its own list may lack some.
PERCENTILE_KEYS = {"p50": "50.000000", "p95": "95.000000", "p99": "99.000000"}


def number(raw: object) -> float | None:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    value = float(raw)
    return value if math.isfinite(value) else None


def _latency(stats: Mapping[str, Any], name: str) -> tuple[Mapping[str, Any], float] | None:
    """fio's latency block and its units per microsecond (fio 3 gives ns, fio 2 gave us)."""
    block = stats.get(f"{name}_ns")
    if isinstance(block, dict):
        return block, 1000.0
    block = stats.get(name)
    if isinstance(block, dict):
        return block, 1.0
    return None


class Values:
    """Reads a job's numbers; one that is there but is not a number is reported, not dropped."""

    def __init__(self, job: str, skipped: list[Skipped]) -> None:
        self.job = job
        self.skipped = skipped

    def number(self, block: Mapping[str, Any], key: str, field: str) -> float | None:
        if key not in block:
            return None  # not every fio version writes every value
        value = number(block[key])
        if value is None:
            self.skipped.append(Skipped(job=self.job, field=field, value=shown(block[key])))
        return value


def _latency_results(
    prefix: str, stats: Mapping[str, Any], name: str, values: Values
) -> list[ResultCreate]:
    found = _latency(stats, name)
    if found is None:
        return []
    block, per_us = found
    if number(block.get("N")) == 0:
        return []
    path = f"{prefix}.{name}{'_ns' if per_us == 1000.0 else ''}"
    results = []
    mean = values.number(block, "mean", f"{path}.mean")
    if mean is not None:
        results.append(ResultCreate(metric=f"{prefix}.{name}_mean", unit="us", value=mean / per_us))
    percentiles = block.get("percentile")
    if isinstance(percentiles, dict):
        for label, key in PERCENTILE_KEYS.items():
            value = values.number(percentiles, key, f"{path}.percentile.{key}")
            if value is not None:
                results.append(
                    ResultCreate(metric=f"{prefix}.{name}_{label}", unit="us", value=value / per_us)
                )
    return results


def job_results(job: Mapping[str, Any], values: Values) -> list[ResultCreate]:
    results: list[ResultCreate] = []
    for direction in DIRECTIONS:
        stats = job.get(direction)
        # A direction the job did not use still appears, with zeros: not a measurement.
        if not isinstance(stats, dict) or not values.number(
            stats, "io_bytes", f"{direction}.io_bytes"
        ):
            continue
        bw = values.number(stats, "bw", f"{direction}.bw")
        if bw is not None:
            results.append(ResultCreate(metric=f"{direction}.bw", unit="KiB/s", value=bw))
        iops = values.number(stats, "iops", f"{direction}.iops")
        if iops is not None:
            results.append(ResultCreate(metric=f"{direction}.iops", unit="iops", value=iops))
        results += _latency_results(direction, stats, "clat", values)
        results += _latency_results(direction, stats, "lat", values)
    sync = job.get("sync")
    # fsync/fdatasync calls have their own latency block; they are the cost of durability.
    if isinstance(sync, dict) and number(sync.get("total_ios")):
        results += _latency_results("sync", sync, "lat", values)
    return results
