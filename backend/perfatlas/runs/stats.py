"""Summary statistics of a result's samples (percentiles interpolate linearly, like
PostgreSQL's percentile_cont, so the database and Python agree)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple


def quantile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        raise ValueError("quantile of no values")
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac


class Summary(NamedTuple):
    n: int
    mean: float
    stdev: float
    min: float
    max: float
    p5: float
    p50: float
    p95: float
    p99: float


def summarize(samples: Sequence[float]) -> Summary:
    """Runs once per stored result, thousands of times per batch: kept to plain arithmetic."""
    n = len(samples)
    if n == 1:
        v = samples[0]
        return Summary(1, v, 0.0, v, v, v, v, v, v)
    values = sorted(samples)
    mean = math.fsum(values) / n
    stdev = math.sqrt(math.fsum([(v - mean) ** 2 for v in values]) / (n - 1))
    last = n - 1

    def q(p: float) -> float:
        pos = p * last
        lo = int(pos)
        if lo >= last:
            return values[last]
        return values[lo] + (values[lo + 1] - values[lo]) * (pos - lo)

    return Summary(n, mean, stdev, values[0], values[last], q(0.05), q(0.5), q(0.95), q(0.99))
