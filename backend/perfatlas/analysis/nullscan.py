"""Adjusted p-values of the split scan: how often an unchanging series does at least as well."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from perfatlas.analysis.null_table import LOG10_CDF, STEP

_NS = np.array(sorted(LOG10_CDF), dtype=np.float64)
_CDF = np.array([LOG10_CDF[int(n)] for n in _NS], dtype=np.float64)
MAX_N = int(_NS[-1])
MIN_N = int(_NS[0])
_LAST = _CDF.shape[1] - 1


@lru_cache(maxsize=4096)
def _row(n: int) -> tuple[float, ...]:
    """log10 P(min p <= 10**(-STEP * i)) for a segment of n points."""
    if n >= MAX_N:
        return tuple(_CDF[-1])
    pos = float(np.interp(math.log(n), np.log(_NS), np.arange(len(_NS))))
    lo = int(pos)
    hi = min(lo + 1, len(_NS) - 1)
    if pos == lo:
        return tuple(_CDF[lo])
    # Between tabulated lengths take the larger probability: never optimistic.
    return tuple(np.maximum(_CDF[lo], _CDF[hi]))


def adjusted_pvalue(min_p: float, n: int) -> float:
    """P(smallest split p-value of an unchanging series of length n <= min_p)."""
    if n < MIN_N or min_p >= 1.0:
        return 1.0
    row = _row(n)
    x = -math.log10(max(min_p, 1e-300)) / STEP
    # Below the table the ratio P / p is constant (see calibrate.py). Within it, the grid
    # point at or above min_p: short segments have atoms between grid points, and reading
    # the CDF at the next grid point up can only overstate the p-value.
    beyond = x >= _LAST
    log_adj = row[_LAST] - (x - _LAST) * STEP if beyond else row[math.floor(x + 1e-9)]
    adj = float(10.0**log_adj)
    if n > MAX_N:
        # Bonferroni over the extra splits: conservative, never more alarms for longer series.
        adj *= n / MAX_N
    return min(1.0, adj)


@lru_cache(maxsize=8192)
def critical_pvalue(alpha: float, n: int) -> float:
    """The largest smallest-split p-value that adjusted_pvalue still finds significant."""
    if n < MIN_N:
        return 0.0
    row = _row(n)
    scale = n / MAX_N if n > MAX_N else 1.0
    target = math.log10(alpha / scale)
    for i, value in enumerate(row):
        if value <= target:
            return float(10.0 ** (-STEP * i))
    return float(10.0 ** (-STEP * _LAST - (row[_LAST] - target)))
