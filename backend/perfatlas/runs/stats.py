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
    if len(samples) == 1:
        v = samples[0]
        return Summary(n=1, mean=v, stdev=0.0, min=v, max=v, p5=v, p50=v, p95=v, p99=v)
    values = sorted(samples)
    n = len(values)
    mean = math.fsum(values) / n
    stdev = math.sqrt(sum([(v - mean) ** 2 for v in values]) / (n - 1)) if n > 1 else 0.0
    return Summary(
        n=n,
        mean=mean,
        stdev=stdev,
        min=values[0],
        max=values[-1],
        p5=quantile(values, 0.05),
        p50=quantile(values, 0.5),
        p95=quantile(values, 0.95),
        p99=quantile(values, 0.99),
    )
