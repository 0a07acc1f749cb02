"""Rank-sum scan: the two-sample rank test at every split of a segment, exact at the edges."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

# Splits need this many points on each side: a lone spike (or a pair) can never be a change.
MIN_SIDE = 4
# Below this smaller-side size the normal approximation of the rank sum is far too coarse in
# the tail (all 4 newest points below all 96 older ones is p≈5e-7, the normal says 8e-4),
# so the small side uses the exact distribution; that is what lets a step be seen 4 points in.
EXACT_SIDE = 12
# The exact distribution is tabulated per segment length; past this the normal is used
# everywhere (conservative at the edges, and such long segments rarely hinge on 4 points).
EXACT_MAX_N = 1000

FloatArray = NDArray[np.float64]


# Numerical Recipes' Chebyshev fit of erfc, highest power first (relative error < 1.2e-7).
_ERFC = (
    0.17087277,
    -0.82215223,
    1.48851587,
    -1.13520398,
    0.27886807,
    -0.18628806,
    0.09678418,
    0.37409196,
    1.00002368,
    -1.26551223,
)


def erfc(x: FloatArray) -> FloatArray:
    """Complementary error function for x >= 0: enough for p-values, and no scipy import."""
    t = 1.0 / (1.0 + 0.5 * x)
    poly = np.full_like(t, _ERFC[0])
    for c in _ERFC[1:]:
        poly = poly * t + c
    return np.asarray(t * np.exp(-x * x + poly), dtype=np.float64)


@lru_cache(maxsize=512)
def _exact_tails(n: int) -> FloatArray:
    """Row m (0..EXACT_SIDE): P(rank sum of m of the ranks 1..n >= s), indexed by s."""
    top = min(EXACT_SIDE, n)
    # counts[c][s]: subsets of size c of the ranks seen so far with sum s. Only additions, so
    # the tiny tail counts stay exact in floating point (a q-binomial product would cancel).
    width = top * n + 1
    counts = np.zeros((top + 1, width))
    counts[0, 0] = 1.0
    for rank in range(1, n + 1):
        upper = min(rank, top)
        counts[1 : upper + 1, rank:] += counts[0:upper, : width - rank]
    totals = np.array([math.comb(n, m) for m in range(top + 1)], dtype=np.float64)
    tails = np.zeros((top + 1, width + 1))
    tails[:, :width] = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1] / totals[:, None]
    return tails


@dataclass(frozen=True)
class _Layout:
    """Per-length constants of the scan."""

    left_small: FloatArray  # 1 where the left side is the smaller one
    mean: FloatArray  # null mean of the smaller side's rank sum
    sd: FloatArray  # its standard deviation, times sqrt(2) (erfc's scale)
    sign: FloatArray  # with offset: the smaller side's rank sum minus its null mean is
    offset: FloatArray  # sign * (rank sum left of the split) + offset
    cols: NDArray[np.int64]  # splits whose smaller side is short enough for the exact tail
    middle: NDArray[np.int64]  # the others
    m: NDArray[np.int64]  # smaller-side sizes of cols


@lru_cache(maxsize=1024)
def _layout(n: int) -> _Layout:
    taus = np.arange(MIN_SIDE, n - MIN_SIDE + 1, dtype=np.int64)
    small = np.asarray(np.minimum(taus, n - taus), dtype=np.int64)
    exact = (small <= EXACT_SIDE) & (n <= EXACT_MAX_N)
    left_small = taus <= n - taus
    mean = np.asarray(small * (n + 1) / 2.0, dtype=np.float64)
    return _Layout(
        left_small=left_small.astype(np.float64),
        mean=mean,
        sign=np.where(left_small, 1.0, -1.0),
        offset=np.where(left_small, -mean, n * (n + 1) / 2.0 - mean),
        sd=np.asarray(np.sqrt(2.0 * small * (n - small) * (n + 1) / 12.0), dtype=np.float64),
        cols=np.flatnonzero(exact).astype(np.int64),
        middle=np.flatnonzero(~exact).astype(np.int64),
        m=small[exact],
    )


def scan_pvalues(ranks: FloatArray, tie_factor: float | FloatArray = 1.0) -> FloatArray:
    """Two-sided rank-sum p-value of every split (exact when the smaller side is short).

    Rows of `ranks` are independent series of equal length, ranks 1..n (midranks for ties);
    column t is the split before point t (t in MIN_SIDE..n-MIN_SIDE, other columns are 1).
    `tie_factor` scales the rank-sum variance for ties (1 without; one per row or for all).
    """
    rows, n = ranks.shape
    out = np.ones((rows, n))
    if n < 2 * MIN_SIDE:
        return out
    lay = _layout(n)
    # A view of the splits' columns: written in place, no scatter afterwards.
    pvals = out[:, MIN_SIDE : n - MIN_SIDE + 1]
    left = np.cumsum(ranks, axis=1)[:, MIN_SIDE - 1 : n - MIN_SIDE]
    # The smaller side carries the exact tail; the rank sum of either side decides the test.
    dev = np.abs(lay.sign * left + lay.offset)
    if len(lay.middle):
        if isinstance(tie_factor, float | int):
            scale = lay.sd[lay.middle] * math.sqrt(tie_factor)
        else:
            scale = lay.sd[lay.middle] * np.sqrt(tie_factor).reshape(-1, 1)
        z = np.maximum(dev[:, lay.middle] - 0.5, 0.0) / scale
        pvals[:, lay.middle] = np.minimum(1.0, erfc(z))
    if len(lay.cols):
        tails = _exact_tails(n)
        # By symmetry both tails are the upper tail at centre + |deviation|; midranks make
        # half-integer sums, and flooring them towards the centre keeps it conservative.
        extreme = np.floor(lay.mean[lay.cols] + dev[:, lay.cols]).astype(np.int64)
        extreme = np.minimum(extreme, tails.shape[1] - 1)
        pvals[:, lay.cols] = np.minimum(1.0, 2.0 * tails[lay.m, extreme])
    return out


def split_pvalue(ranks: FloatArray, tau: int, tie_factor: float = 1.0) -> float:
    """scan_pvalues(ranks[None, :], tie_factor)[0, tau] without scanning every split."""
    n = len(ranks)
    if not MIN_SIDE <= tau <= n - MIN_SIDE:
        return 1.0
    lay = _layout(n)
    j = tau - MIN_SIDE
    left = float(ranks[:tau].sum())
    small_sum = left if lay.left_small[j] else n * (n + 1) / 2.0 - left
    dev = abs(small_sum - float(lay.mean[j]))
    small = min(tau, n - tau)
    if small <= EXACT_SIDE and n <= EXACT_MAX_N:
        tails = _exact_tails(n)
        extreme = min(math.floor(float(lay.mean[j]) + dev), tails.shape[1] - 1)
        return min(1.0, 2.0 * float(tails[small, extreme]))
    z = max(dev - 0.5, 0.0) / (float(lay.sd[j]) * math.sqrt(tie_factor))
    return min(1.0, float(erfc(np.array([z]))[0]))


def window_ranks(windows: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Midranks within each row of a (rows, m) array, and each row's tie variance factor."""
    m = windows.shape[1]
    below = (windows[:, :, None] > windows[:, None, :]).sum(axis=2)
    equal = (windows[:, :, None] == windows[:, None, :]).sum(axis=2)
    ranks = below + (equal + 1) / 2.0
    # Each tied group of size c contributes c entries of `equal` = c, hence sum(c^3 - c).
    ties = (equal.astype(np.float64) ** 2 - 1.0).sum(axis=1)
    return ranks, np.maximum(1e-9, 1.0 - ties / (m**3 - m))
