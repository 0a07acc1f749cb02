"""The quantile sketches of explore's digests (core/sketch.py) against numpy's order
statistics, and the digests (rollups/digests.py) against the records they stand for."""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest

from perfatlas.core import sketch
from perfatlas.core.records import RECORD, newest, summarize
from perfatlas.core.stats import quantile
from perfatlas.rollups import digests

RNG_SEED = 20261126


def _columns(rng: np.random.Generator, kind: int, n: int) -> np.ndarray:
    """Values of several shapes: spread over decades, around zero, narrow, with zeros and
    magnitudes near the ends of the doubles."""
    if kind == 0:
        return rng.lognormal(3, 2, n)
    if kind == 1:
        return rng.normal(0, 5, n)
    if kind == 2:
        return np.round(rng.uniform(100, 105, n), 3)
    if kind == 3:
        return np.concatenate([np.zeros(n // 3), rng.uniform(-1e6, 1e6, n - n // 3)])
    return rng.choice([1e-300, 2.5e-290, 1e300, -1e300, 1.7e308, 3.0, -3.0], n)


def _bounds(values: np.ndarray, q: float) -> tuple[float, float, float]:
    """The order statistics a q-th quantile interpolates between, and the sketch's slack."""
    ordered = np.sort(values)
    low = math.floor(q * (len(ordered) - 1))
    a, b = ordered[low], ordered[min(low + 1, len(ordered) - 1)]
    return min(a, b), max(a, b), sketch.ALPHA * max(abs(a), abs(b)) * (1 + 1e-12)


@pytest.mark.parametrize("kind", range(5))
def test_every_value_is_within_alpha_of_its_bucket(kind: int) -> None:
    rng = np.random.default_rng(RNG_SEED + kind)
    values = _columns(rng, kind, 5000)
    keys = sketch.keys(values)
    assert keys.dtype == sketch.KEY
    shown = sketch.representative(keys)
    assert np.all(np.abs(shown - values) <= sketch.ALPHA * np.abs(values) * (1 + 1e-12))
    # Keys sort as their values do.
    order = np.argsort(values, kind="stable")
    assert np.all(np.diff(keys[order].astype(np.int64)) >= 0)


@pytest.mark.parametrize("kind", range(5))
def test_merged_quantiles_are_within_alpha_of_the_order_statistics(kind: int) -> None:
    rng = np.random.default_rng(RNG_SEED + 10 + kind)
    for size in (1, 2, 3, 17, 1000, 4321):
        values = _columns(rng, kind, size)
        keys = sketch.keys(values)
        # Three parts sketched apart and merged: the same as one sketch of everything.
        parts = [sketch.tally(part) for part in np.array_split(keys, 3)]
        joined = np.concatenate(parts)
        merged = sketch.merge(np.zeros(len(joined), dtype=np.int64), joined)
        whole = sketch.tally(keys)
        assert merged["key"].tolist() == whole["key"].tolist()
        assert merged["count"].tolist() == whole["count"].tolist()
        for q in (0.0, 0.05, 0.5, 0.95, 1.0):
            low, high, slack = _bounds(values, q)
            got = sketch.quantile(whole, q)
            assert low - slack <= got <= high + slack, (size, q, got, low, high)


def test_a_stored_sketch_round_trips() -> None:
    keys = sketch.keys(np.array([3.0, 3.0, -2.0, 0.0, 7.5]))
    stored = sketch.tally(keys).tobytes()
    back = sketch.decode(stored)
    assert back["count"].tolist() == [1, 1, 2, 1]
    assert back["key"].tolist() == sorted(set(keys.tolist()))
    with pytest.raises(ValueError, match="not records"):
        sketch.decode(stored[:-1])


def _records(rng: np.random.Generator, n: int) -> np.ndarray:
    out = np.zeros(n, dtype=RECORD)
    out["value"] = rng.uniform(50, 60, n)
    out["p5"] = out["value"] * 0.9
    out["p95"] = out["value"] * 1.1
    out["mean"] = out["value"] * 1.01
    out["min"], out["max"] = out["p5"] - 1, out["p95"] + 1
    out["started"] = rng.integers(0, 10**12, n)
    ids = [uuid.UUID(int=int(rng.integers(0, 2**62)) << 64 | 7) for _ in range(n)]
    out["hi"] = [u.int >> 64 for u in ids]
    out["lo"] = [u.int & (2**64 - 1) for u in ids]
    out["n"] = rng.integers(1, 6, n)
    out["flags"] = rng.choice([0, 0, 0, 1, 4], n)
    return out


def test_digests_folded_batch_by_batch_equal_one_of_every_record() -> None:
    """A pair's digest kept over several folds is the digest of all its records at once, and
    the point it makes has the records' own numbers (but for the sketched quantiles)."""
    rng = np.random.default_rng(RNG_SEED)
    batches = [_records(rng, n) for n in (1, 30, 7, 200)]
    kept: digests.Digest | None = None
    for batch in batches:
        batch = batch[np.lexsort((batch["lo"], batch["hi"], batch["started"]))]
        (kept,) = digests.digests_of(batch, [0], [len(batch)], [kept])
    every = np.concatenate(batches)
    ordered = every[np.lexsort((every["lo"], every["hi"], every["started"]))]
    (whole,) = digests.digests_of(ordered, [0], [len(ordered)])
    assert kept is not None
    for name in ("count", "repetitions", "min", "max", "flags", "newest"):
        assert getattr(kept, name) == getattr(whole, name), name
    for name in ("value_sketch", "p5_sketch", "p95_sketch"):
        assert getattr(kept, name) == getattr(whole, name), name
    assert kept.mean_sum == pytest.approx(whole.mean_sum, rel=1e-12)
    # Split over two cells' worth of digests, the numbers of one point.
    (point,) = digests.summarize([kept, *digests.digests_of(ordered[:5], [0], [5])], [0, 0], 1)
    exact = summarize(np.concatenate([every, ordered[:5]]))
    assert (point.n, point.repetitions, point.min, point.max, point.flags) == (
        exact.n, exact.repetitions, exact.min, exact.max, exact.flags,
    )  # fmt: skip
    assert point.mean == pytest.approx(exact.mean, rel=1e-12)
    assert point.runs == exact.runs == newest(np.concatenate([every, ordered[:5]]))
    for name, q in (("median", 0.5), ("p5", 0.05), ("p95", 0.95)):
        column = {"median": "value", "p5": "p5", "p95": "p95"}[name]
        values = np.concatenate([every, ordered[:5]])[column]
        low, high, slack = _bounds(values, q)
        assert low - slack <= getattr(point, name) <= high + slack, name
        assert getattr(exact, name) == pytest.approx(quantile(np.sort(values), q))
