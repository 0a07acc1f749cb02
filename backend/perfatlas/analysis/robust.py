"""Robust statistics of one series: per-run values, midranks, medians and the step t statistic.

Nothing here decides anything; the segmentation search (segmentation.py) asks these questions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import NDArray

from perfatlas.analysis.ranks import MIN_SIDE
from perfatlas.analysis.tuning import DRIFT_WINDOW

Point = float | int | Sequence[float | int]
FloatArray = NDArray[np.float64]
Samples = FloatArray | list[FloatArray]


def parse_points(points: Sequence[Point]) -> tuple[Samples, FloatArray]:
    """(samples per point, value per point); raises ValueError naming the bad point.

    The samples are a (points, k) array when every point has k of them, else a list.
    """
    kinds = set(map(type, points))
    grid: FloatArray | None = None
    # The common cases, all plain numbers or all lists of one length: one conversion.
    if points and kinds <= {float, int}:
        grid = np.asarray(points, dtype=np.float64)[:, None]
    elif kinds == {list} and set(map(type, chain.from_iterable(points))) <= {float, int}:  # type: ignore[arg-type]
        try:
            grid = np.asarray(points, dtype=np.float64)
        except (TypeError, ValueError):
            grid = None
    if grid is not None and grid.ndim == 2 and grid.shape[1] > 0 and np.isfinite(grid).all():
        return grid, _trimmed_means(grid)
    samples = point_samples(points)
    return samples, point_values(samples)


def point_samples(points: Sequence[Point]) -> list[FloatArray]:
    """Each point as an array of its samples; raises ValueError naming the bad point."""
    out: list[FloatArray] = []
    for i, point in enumerate(points):
        raw: Sequence[Any]
        if isinstance(point, Real) and not isinstance(point, bool):
            raw = (point,)
        elif isinstance(point, Sequence) and not isinstance(point, str | bytes):
            raw = point
        else:
            raise ValueError(f"point {i}: expected a number or a list of numbers")
        if not raw:
            raise ValueError(f"point {i}: no samples")
        for v in raw:
            if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(v):
                raise ValueError(f"point {i}: sample {v!r} is not a finite number")
        arr = np.asarray(raw, dtype=np.float64)
        out.append(arr)
    return out


def _trimmed_means(grid: FloatArray) -> FloatArray:
    """Row-wise: the mean up to two samples, else without the lowest and highest quarter."""
    k = grid.shape[1]
    if k <= 2:
        return np.asarray(grid.mean(axis=1), dtype=np.float64)
    trim = max(1, k // 4)
    return np.asarray(np.sort(grid, axis=1)[:, trim : k - trim].mean(axis=1), dtype=np.float64)


def point_values(samples: Sequence[FloatArray]) -> FloatArray:
    """One value per run: a trimmed mean, robust to a bad repetition, nearly as sharp as a mean.

    Up to two samples it is their mean; from three on the lowest and highest quarter (at least
    one each) are dropped, so one bad repetition out of three or more never moves the point.
    """
    out = np.empty(len(samples))
    by_count: dict[int, list[int]] = {}
    for i, s in enumerate(samples):
        by_count.setdefault(len(s), []).append(i)
    for idx in by_count.values():
        out[idx] = _trimmed_means(np.array([samples[i] for i in idx]))
    return out


def midranks(values: FloatArray) -> tuple[FloatArray, float]:
    """Ranks 1..n (ties share their mean rank) and the variance factor for those ties."""
    n = len(values)
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    differs = ordered[1:] != ordered[:-1]
    ranks = np.empty(n)
    if differs.all():
        ranks[order] = np.arange(1.0, n + 1.0)
        return ranks, 1.0
    starts = np.flatnonzero(np.concatenate(([True], differs)))
    counts = np.diff(np.append(starts, n))
    ranks[order] = np.repeat(starts + (counts + 1) / 2.0, counts)
    factor = 1.0
    if len(counts) < n:
        c = counts.astype(np.float64)
        factor = max(1e-9, 1.0 - float(np.sum(c**3 - c)) / (n**3 - n))
    return ranks, factor


@lru_cache(maxsize=256)
def _pairs(m: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    i, j = np.triu_indices(m, 1)
    return i, j


def _pair_slopes(t: FloatArray, y: FloatArray) -> FloatArray:
    i, j = _pairs(len(t))
    return (y[j] - y[i]) / (t[j] - t[i])


def median(x: FloatArray) -> float:
    """np.median without its overhead (this runs thousands of times per series batch)."""
    m = len(x)
    k = m // 2
    if m % 2:
        return float(np.partition(x, k)[k])
    part = np.partition(x, (k - 1, k))
    return 0.5 * float(part[k - 1] + part[k])


def step_t(values: FloatArray, lo: int, tau: int, hi: int) -> float:
    """The step at tau in standard errors, with a local straight line fitted alongside it.

    The line's slope is the median of the slopes between pairs of points on the same side
    (Theil-Sen without the pairs across the step, so the step cannot bend it); the levels
    are medians and the scale a MAD. Outliers and a cache-miss mode move none of them.
    NaN when the window is too short to tell a step from a line.
    """
    a = max(lo, tau - DRIFT_WINDOW)
    b = min(hi, tau + DRIFT_WINDOW)
    if tau - a < 2 or b - tau < 2 or b - a < 2 * MIN_SIDE + 1:
        return math.nan
    t = np.arange(a - tau, b - tau, dtype=np.float64)
    y = values[a:b]
    k = tau - a
    slope = median(np.concatenate([_pair_slopes(t[:k], y[:k]), _pair_slopes(t[k:], y[k:])]))
    resid = y - slope * t
    left, right = median(resid[:k]), median(resid[k:])
    spread = np.abs(resid - np.where(t < 0, left, right))
    scale = 1.4826 * median(spread)
    step = right - left
    if scale <= 1e-12 * max(1.0, float(np.abs(y).max())):
        # A perfect fit: an exact step, or an exact line.
        return math.copysign(math.inf, step) if step else 0.0
    nl, nr = k, b - tau
    # Closed forms for t = -nl..-1 and 0..nr-1: sums of squares about each side's centre.
    stt = (nl**3 - nl + nr**3 - nr) / 12.0
    # Medians cost pi/2 in variance against means; the slope's error moves the step by the
    # distance between the two sides' centres, (nl + nr) / 2.
    var = math.pi / 2 * (1 / nl + 1 / nr) + ((nl + nr) / 2.0) ** 2 / stt
    return step / (scale * math.sqrt(var))


def level(samples: Samples, lo: int, hi: int) -> float:
    """The median of every sample of points lo..hi-1."""
    if isinstance(samples, np.ndarray):
        return median(samples[lo:hi].ravel())
    return median(np.concatenate(samples[lo:hi]))
