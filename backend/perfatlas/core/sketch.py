"""Mergeable quantile sketches with a relative-error guarantee (DDSketch: Masson, Rim and Lee,
"DDSketch: a fast and fully-mergeable quantile sketch with relative-error guarantees", VLDB
2019), as explore's digests keep them (rollups/digests.py).

A value x > 0 is counted in bucket ceil(log_GAMMA x), which holds (GAMMA^(i-1), GAMMA^i]; its
representative 2 GAMMA^i / (GAMMA + 1) is within ALPHA of every value of the bucket, relatively.
A negative value goes to the mirrored bucket of its magnitude (a negative key), and a value
smaller in magnitude than TINY to key 0 (representative 0). So keys sort as their values do,
and a sketch is a set of (key, count): two sketches merge by adding counts, in any order, to
the sketch of all their values together: the same whatever the fold's batches were.

The q-th quantile of a sketch reads the buckets of the two order statistics that q interpolates
between (core/stats.py quantile) and interpolates their representatives the same way, so it is
within ALPHA of a value between those two order statistics, relatively (docs/explore.md, "Explore's
numbers")."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

# The relative error of a sketched quantile: 0.5 %.
ALPHA = 0.005
GAMMA = (1 + ALPHA) / (1 - ALPHA)
_LOG_GAMMA = math.log(GAMMA)
_LOG_SCALE = math.log(2 / (GAMMA + 1))
_LARGEST = np.finfo(np.float64).max
# Magnitudes below this are counted as 0 (no performance figure is that small, and it keeps
# the keys of every double in range).
TINY = 1e-300
# Added to ceil(log_GAMMA |x|) so that every key of a magnitude >= TINY is at least 1
# (log_GAMMA 1e-300 is about -69,000; log_GAMMA 1.8e308, the largest double, about +71,000).
BIAS = 100_000
KEY = np.dtype("<i4")
# A sketch is stored as these records (12 bytes each, sorted by key).
ENTRY = np.dtype([("key", "<i4"), ("count", "<i8")])
OWNED = np.dtype([("owner", "<i8"), ("key", "<i4"), ("count", "<i8")])
_SHIFT = np.int64(1 << 32)
_KEY_OFFSET = np.int64(1 << 31)

Keys = np.ndarray[Any, Any]


def keys(values: np.ndarray[Any, Any]) -> Keys:
    """Each value's bucket key (int32)."""
    values = np.asarray(values, dtype=np.float64)
    magnitude = np.abs(values)
    out: np.ndarray[Any, Any] = np.zeros(len(values), dtype=np.int64)
    big = magnitude >= TINY
    out[big] = np.ceil(np.log(magnitude[big]) / _LOG_GAMMA).astype(np.int64) + BIAS
    # log() near an exact power of GAMMA may land a hair off the integer: a value is in the
    # bucket whose upper bound it does not pass and whose lower bound it passes.
    if big.any():
        chosen, inside = out[big], magnitude[big]
        chosen -= (inside <= _bound(chosen - 1)).astype(np.int64)
        chosen += (inside > _bound(chosen)).astype(np.int64)
        out[big] = chosen
    out = np.where(values < 0, -out, out)
    return out.astype(KEY)


def _bound(key: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The upper bound GAMMA^(key - BIAS) of a positive key's bucket."""
    with np.errstate(over="ignore"):
        bound: np.ndarray[Any, Any] = np.exp((key.astype(np.float64) - BIAS) * _LOG_GAMMA)
    return bound


def representative(key: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The value each key stands for: within ALPHA of every value of its bucket, relatively
    (2 GAMMA^i / (GAMMA + 1), as one exponential, and no larger than the largest double)."""
    key = np.asarray(key, dtype=np.int64)
    exponent = (np.abs(key).astype(np.float64) - BIAS) * _LOG_GAMMA + _LOG_SCALE
    with np.errstate(over="ignore"):
        magnitude = np.minimum(np.exp(exponent), _LARGEST)
    magnitude = np.where(key == 0, 0.0, magnitude)
    out: np.ndarray[Any, Any] = np.where(key < 0, -magnitude, magnitude)
    return out


def tally(key: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The sketch (ENTRY records, sorted by key) of a column of keys."""
    found, counts = np.unique(key, return_counts=True)
    return entries(found, counts)


def entries(key: np.ndarray[Any, Any], count: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    out = np.empty(len(key), dtype=ENTRY)
    out["key"], out["count"] = key, count
    return out


def decode(data: bytes) -> np.ndarray[Any, Any]:
    """A stored sketch: ENTRY records end to end (so stored sketches joined are entries too)."""
    if len(data) % ENTRY.itemsize:
        raise ValueError(f"a sketch of {len(data)} bytes, not records of {ENTRY.itemsize}")
    return np.frombuffer(data, dtype=ENTRY)


def merge(owner: np.ndarray[Any, Any], given: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Merge entries by owner (a non-negative int per entry): OWNED records sorted by owner,
    then key, each (owner, key) once with the sum of its counts."""
    composite = owner.astype(np.int64) * _SHIFT + (given["key"].astype(np.int64) + _KEY_OFFSET)
    found, where = np.unique(composite, return_inverse=True)
    out = np.empty(len(found), dtype=OWNED)
    out["owner"] = found // _SHIFT
    out["key"] = found % _SHIFT - _KEY_OFFSET
    out["count"] = np.bincount(where, weights=given["count"]).astype(np.int64)
    return out


def quantile(sketch: np.ndarray[Any, Any], q: float) -> float:
    """The q-th quantile of a sketch (entries sorted by key), interpolated as core/stats.py
    quantile interpolates between the order statistics at floor(q * (n - 1)) and the next."""
    key, count = sketch["key"], sketch["count"]
    total = int(count.sum())
    if total == 0:
        raise ValueError("quantile of an empty sketch")
    position = q * (total - 1)
    low = math.floor(position)
    high = min(low + 1, total - 1)
    # Bucket i holds the order statistics from ends[i - 1] to ends[i] - 1.
    ends = np.cumsum(count)
    at = np.searchsorted(ends, [low, high], side="right")
    values = representative(key[at])
    return float(values[0] + (values[1] - values[0]) * (position - low))
