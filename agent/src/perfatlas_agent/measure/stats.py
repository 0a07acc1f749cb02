"""Summaries of samples: median, min/max, p5/p95 and spread (linear-interpolation percentiles)."""

from __future__ import annotations

import math
from collections.abc import Sequence

PERCENTILE_METHOD = "linear interpolation between closest ranks (numpy 'linear')"


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Percentile q (0-100) of already sorted values."""
    if not sorted_values:
        raise ValueError("no values")
    if len(sorted_values) == 1:
        return float(sorted_values[0])
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return float(sorted_values[lo]) + (float(sorted_values[hi]) - float(sorted_values[lo])) * frac


def summarize(samples: Sequence[float]) -> dict[str, float]:
    """The summary of N repetitions: the median is the value, the rest describes the spread."""
    values = sorted(float(v) for v in samples)
    n = len(values)
    median = percentile(values, 50)
    mean = sum(values) / n
    stdev = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    spread = (values[-1] - values[0]) / abs(median) if median else 0.0
    return {
        "n": float(n),
        "median": median,
        "min": values[0],
        "max": values[-1],
        "p5": percentile(values, 5),
        "p95": percentile(values, 95),
        "mean": mean,
        "stdev": stdev,
        "spread": spread,
    }


def latency_percentiles_us(latencies_ns: Sequence[int]) -> dict[str, float]:
    """p50/p95/p99/max of per-operation latencies, converted from ns to us."""
    values = sorted(latencies_ns)
    if not values:
        return {}
    return {
        "p50": percentile(values, 50) / 1000.0,
        "p95": percentile(values, 95) / 1000.0,
        "p99": percentile(values, 99) / 1000.0,
        "max": values[-1] / 1000.0,
    }
