"""records.summarize_many, the numbers of a batch of points at once, against a plain oracle (each
point's fields as sorted Python lists, quantiles interpolated as runs.stats does) and against
summarize, point by point, to the bit: parts of equal and of very unequal lengths (the padded
grid and the one-by-one path), of one record, with ties and values of every magnitude."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from perfatlas.core.records import (
    MEDIAN_INTERVAL_RUNS,
    RECORD,
    median_rank,
    newest_of,
    summarize,
    summarize_many,
)
from perfatlas.core.stats import quantile


def _records(rng: random.Random, count: int) -> np.ndarray:
    out = np.zeros(count, dtype=RECORD)
    scale = 10.0 ** rng.randint(-4, 7)
    for name in ("value", "p5", "p95", "mean", "min", "max"):
        # A few repeated values (ties) among random ones.
        out[name] = [rng.choice([1.0, 2.5, rng.random()]) * scale for _ in range(count)]
    out["n"] = [rng.randint(1, 9) for _ in range(count)]
    out["flags"] = [rng.choice([0, 0, 1, 2, 4, 8]) for _ in range(count)]
    out["started"] = [rng.randint(0, 10**15) for _ in range(count)]
    out["hi"] = [rng.getrandbits(64) for _ in range(count)]
    out["lo"] = [rng.getrandbits(64) for _ in range(count)]
    return out


def _oracle(records: np.ndarray) -> dict[str, object]:
    values = sorted(float(v) for v in records["value"])
    reps = [int(n) for n in records["n"]]
    n = len(values)
    low, high = min(float(v) for v in records["min"]), max(float(v) for v in records["max"])
    interval = (low, high)
    if n >= MEDIAN_INTERVAL_RUNS:
        k = median_rank(n)
        interval = (values[k - 1], values[n - k])
    flags = 0
    for f in records["flags"]:
        flags |= int(f)
    return {
        "n": n, "repetitions": sum(reps), "median": quantile(values, 0.5),
        "mean": math.fsum(float(m) * r for m, r in zip(records["mean"], reps, strict=True))
        / sum(reps),
        "min": low, "max": high, "flags": flags,
        "p5": quantile(sorted(float(v) for v in records["p5"]), 0.05),
        "p95": quantile(sorted(float(v) for v in records["p95"]), 0.95),
        "median_low": interval[0], "median_high": interval[1],
    }  # fmt: skip


@pytest.mark.parametrize(
    "sizes",
    [
        [31] * 40,  # the bench's points: one grid
        [250, 240, 7, 1, 2, 5, 6, 100],  # unequal, still one grid
        [3000, 1, 2, 1, 3],  # one long point: one by one
        [1],
    ],
)
def test_summarize_many_matches_the_oracle_and_summarize(sizes: list[int]) -> None:
    rng = random.Random(sum(sizes))
    parts = [_records(rng, n) for n in sizes]
    runs = newest_of(parts)
    found = summarize_many(parts, runs)
    assert len(found) == len(parts)
    for part, got, newest in zip(parts, found, runs, strict=True):
        assert got == summarize(part, newest)  # to the bit: dataclass equality of floats
        assert got.runs == newest
        expected = _oracle(part)
        for name, value in expected.items():
            assert getattr(got, name) == value, name
    assert summarize_many([], []) == []
