"""Summary statistics of a result's samples (percentiles interpolate linearly, like
PostgreSQL's percentile_cont, so the database and Python agree)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain, repeat
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray


def quantile(sorted_values: Sequence[float] | NDArray[Any], q: float) -> float:
    """The q-th quantile, interpolating linearly between the values at floor(q * (n - 1)) and
    the next; only those two positions are read, so they may be the only ones in order."""
    if len(sorted_values) == 0:
        raise ValueError("quantile of no values")
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return float(sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac)


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


SUMMARY_QUANTILES = {"p5": 0.05, "p50": 0.5, "p95": 0.95, "p99": 0.99}


def summarize_columns(all_samples: Sequence[Sequence[float]]) -> dict[str, list[Any]]:
    """summarize() of many results at once, as one list per Summary field, with the same
    numbers bit for bit: numpy sorts and interpolates (the same float operations, in the same
    order), while the sums stay math.fsum and the squares Python's `** 2` (libm's pow, which
    differs from numpy's x * x in the last bit now and then)."""
    count = len(all_samples)
    columns: dict[str, NDArray[Any]] = {
        name: np.zeros(count, np.int64 if name == "n" else np.float64) for name in Summary._fields
    }
    by_size: dict[int, list[int]] = {}
    for i, samples in enumerate(all_samples):
        by_size.setdefault(len(samples), []).append(i)
    for n, where in by_size.items():
        whole = len(where) == count
        index = slice(None) if whole else np.array(where)
        columns["n"][index] = n
        rows = all_samples if whole else [all_samples[i] for i in where]
        flat = np.fromiter(chain.from_iterable(rows), np.float64, len(rows) * n)
        values: NDArray[np.float64] = flat.reshape(-1, n)
        if n == 1:
            for name in ("mean", "min", "max", *SUMMARY_QUANTILES):
                columns[name][index] = values[:, 0]
            continue  # stdev 0
        values.sort(axis=1)
        # fsum is exactly rounded, so the order of a row's values does not matter: the rows as
        # given, not the sorted ones read back out of numpy.
        mean = np.fromiter(map(math.fsum, rows), np.float64, len(rows)) / n
        deviations: list[float] = (values - mean[:, None]).ravel().tolist()  # type: ignore[assignment]
        squares = map(pow, deviations, repeat(2))  # what `d ** 2` is, in one C-level pass
        sums = np.fromiter(map(math.fsum, zip(*[squares] * n, strict=True)), np.float64, len(rows))
        columns["mean"][index] = mean
        columns["stdev"][index] = np.sqrt(sums / (n - 1))
        columns["min"][index] = values[:, 0]
        columns["max"][index] = values[:, n - 1]
        last = n - 1
        for name, p in SUMMARY_QUANTILES.items():
            pos = p * last
            lo = int(pos)
            if lo >= last:
                columns[name][index] = values[:, last]
            else:
                below, above = values[:, lo], values[:, lo + 1]
                columns[name][index] = below + (above - below) * (pos - lo)
    return {name: column.tolist() for name, column in columns.items()}
