"""Where the changes are: binary segmentation with windows, the drift check and pruning.

`Work` holds one series' values and caches the rank scans and step checks that segmentation,
pruning and refinement ask for again and again; `screen` runs the first scans of many series
of one length at once, so that those without any chance of a change skip the rest.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from perfatlas.analysis.nullscan import adjusted_pvalue, critical_pvalue
from perfatlas.analysis.ranks import MIN_SIDE, scan_pvalues, split_pvalue, window_ranks
from perfatlas.analysis.robust import FloatArray, median, midranks, step_t
from perfatlas.analysis.tuning import (
    CANDIDATES,
    DRIFT_T,
    DRIFT_WINDOW,
    REFINE,
    WINDOW,
    WINDOW_DRIFT_T,
)


class Work:
    """One detect() call's values with the scans and step checks it has already computed."""

    def __init__(self, values: FloatArray) -> None:
        self.values = values
        self._ranks: dict[tuple[int, int], tuple[FloatArray, float]] = {}
        self._scans: dict[tuple[int, int], FloatArray] = {}
        self._steps: dict[tuple[int, int, int], float] = {}

    def seed(self, ranks: FloatArray, pvals: FloatArray) -> None:
        """Take the whole-series ranks (no ties) and scan computed elsewhere."""
        n = len(self.values)
        self._ranks[(0, n)] = (ranks, 1.0)
        self._scans[(0, n)] = pvals

    def ranks(self, lo: int, hi: int) -> tuple[FloatArray, float]:
        """Midranks of values[lo:hi] and their tie factor."""
        key = (lo, hi)
        if key not in self._ranks:
            self._ranks[key] = midranks(self.values[lo:hi])
        return self._ranks[key]

    def scan(self, lo: int, hi: int) -> FloatArray:
        """Split p-values of values[lo:hi]; entry t splits before lo + t."""
        key = (lo, hi)
        if key not in self._scans:
            ranks, factor = self.ranks(lo, hi)
            self._scans[key] = scan_pvalues(ranks[None, :], factor)[0]
        return self._scans[key]

    def split_p(self, lo: int, tau: int, hi: int) -> float:
        """The p-value of the split at tau within values[lo:hi] (one entry of scan)."""
        if (lo, hi) in self._scans:
            return float(self._scans[(lo, hi)][tau - lo])
        ranks, factor = self.ranks(lo, hi)
        return split_pvalue(ranks, tau - lo, factor)

    def rank_shift(self, lo: int, tau: int, hi: int) -> float:
        """Mean rank after tau minus mean rank before it, within values[lo:hi]."""
        ranks = self.ranks(lo, hi)[0]
        k, n = tau - lo, hi - lo
        left = float(ranks[:k].sum())
        return (n * (n + 1) / 2.0 - left) / (n - k) - left / k

    def is_step(self, lo: int, tau: int, hi: int, threshold: float = DRIFT_T) -> bool:
        """False when the change at tau is better explained as part of a drift."""
        # The fit only sees DRIFT_WINDOW points each side, so segments that differ farther
        # out share it (segmentation and pruning ask about the same change many times).
        key = (max(lo, tau - DRIFT_WINDOW), tau, min(hi, tau + DRIFT_WINDOW))
        if key not in self._steps:
            self._steps[key] = step_t(self.values, *key)
        t = math.copysign(1.0, self.rank_shift(lo, tau, hi)) * self._steps[key]
        return math.isnan(t) or t >= threshold


def _local_minima(pvals: FloatArray, limit: float) -> list[int]:
    """Significant splits (p <= limit) that are the best within 2 points, best first."""
    significant = pvals <= limit
    if not significant.any():
        return []
    nearby = pvals.copy()
    for shift in (1, 2):
        np.minimum(nearby[shift:], pvals[:-shift], out=nearby[shift:])
        np.minimum(nearby[:-shift], pvals[shift:], out=nearby[:-shift])
    picks = np.flatnonzero(significant & (pvals <= nearby))
    found: list[int] = []
    for t in map(int, picks[np.argsort(pvals[picks], kind="mergesort")]):
        if all(abs(t - f) > 2 for f in found):
            found.append(t)
            if len(found) == CANDIDATES:
                break
    return found


def _window_starts(lo: int, hi: int) -> list[int]:
    starts = list(range(lo, hi - WINDOW + 1, WINDOW // 2))
    if starts and starts[-1] + WINDOW < hi:
        starts.append(hi - WINDOW)
    return starts


def _windows(work: Work, lo: int, hi: int, alpha: float) -> list[tuple[float, int]]:
    """(adjusted p, split) of the windows of values[lo:hi] that are significant, best first."""
    starts = _window_starts(lo, hi)
    if not starts:
        return []
    windows = np.stack([work.values[s : s + WINDOW] for s in starts])
    ranks, factors = window_ranks(windows)
    pvals = scan_pvalues(ranks, factors)
    limit = critical_pvalue(alpha / len(starts), WINDOW)
    found = []
    for row in np.flatnonzero(pvals.min(axis=1) <= limit):
        t = int(np.argmin(pvals[row]))
        adj = adjusted_pvalue(float(pvals[row, t]), WINDOW) * len(starts)
        found.append((adj, starts[row] + t))
    return sorted(found)


def _excursion_edge(
    work: Work, lo: int, tau: int, hi: int, alpha: float, threshold: float = DRIFT_T
) -> bool:
    """A split that looked like drift may be one edge of an excursion (down for ten runs, then
    back): the drift check's local line then runs over both edges. Judge it again up to the
    other edge, when the stretch beyond it has a significant split of its own."""
    for a, b in ((tau, hi), (lo, tau)):
        if b - a < 2 * MIN_SIDE:
            continue
        pvals = work.scan(a, b)
        t = int(np.argmin(pvals))
        if pvals[t] > critical_pvalue(alpha, b - a):
            continue
        edge = a + t
        if a == tau and work.is_step(lo, tau, edge, threshold):
            return True
        if b == tau and work.is_step(edge, tau, hi, threshold):
            return True
    return False


def segment(work: Work, alpha: float) -> list[int]:
    """Binary segmentation with the calibrated rank scan and the drift check."""
    found: list[int] = []
    stack = [(0, len(work.values))]
    while stack:
        lo, hi = stack.pop()
        if hi - lo < 2 * MIN_SIDE:
            continue
        pvals = work.scan(lo, hi)
        limit = critical_pvalue(alpha, hi - lo)
        candidates = [lo + t for t in _local_minima(pvals, limit)]
        tau = next((t for t in candidates if work.is_step(lo, t, hi)), None)
        if tau is None:
            tau = next((t for t in candidates if _excursion_edge(work, lo, t, hi, alpha)), None)
        if tau is None and hi - lo > WINDOW:
            # Nothing in the whole segment, or only drift-like splits (an excursion whose
            # two edges cancel can leave a slope as the best whole-segment split).
            windowed = [t for _, t in _windows(work, lo, hi, alpha)][:CANDIDATES]
            tau = next(
                (
                    t
                    for t in windowed
                    if work.is_step(lo, t, hi, WINDOW_DRIFT_T)
                    or _excursion_edge(work, lo, t, hi, alpha, WINDOW_DRIFT_T)
                ),
                None,
            )
        if tau is not None:
            found.append(tau)
            stack.append((lo, tau))
            stack.append((tau, hi))
    return sorted(found)


def prune(work: Work, taus: list[int], alpha: float) -> dict[int, float]:
    """Drop the weakest change until every one is significant between its neighbours.

    Binary segmentation judges a split against the whole segment it was found in; once its
    neighbours are known, each change must also hold on the stretch between them (Otava's
    merge step has the same purpose, but here the scan over splits is accounted for).
    """
    taus = list(taus)
    n = len(work.values)
    while taus:
        adjusted: list[float] = []
        for i, tau in enumerate(taus):
            lo = taus[i - 1] if i > 0 else 0
            hi = taus[i + 1] if i + 1 < len(taus) else n
            adj = adjusted_pvalue(work.split_p(lo, tau, hi), hi - lo)
            if adj <= alpha:
                adj = adj if work.is_step(lo, tau, hi) else 1.0
            elif hi - lo > WINDOW:
                # As segment() may have found it: in a window around it (one look per window
                # segment() would scan), held to the stricter drift check of windows.
                a = min(max(lo, tau - WINDOW // 2), hi - WINDOW)
                looks = len(_window_starts(lo, hi))
                adj = min(1.0, looks * adjusted_pvalue(work.split_p(a, tau, a + WINDOW), WINDOW))
                if adj <= alpha and not work.is_step(lo, tau, hi, WINDOW_DRIFT_T):
                    adj = 1.0
            adjusted.append(adj)
        worst = int(np.argmax(adjusted))
        if adjusted[worst] <= alpha:
            return dict(zip(taus, adjusted, strict=True))
        del taus[worst]
    return {}


def refine(work: Work, taus: list[int]) -> list[int]:
    """Move each change to the best split between its neighbours, within a few points.

    Significance comes from ranks, but the best location is where two flat levels fit the
    values best in absolute deviations (robust, and without the jump where the exact rank
    tail takes over from the normal one). The neighbours are known by now, so the fit is
    clean. With the two medians held, moving the split past point i changes the fit by
    |v_i - left| - |v_i - right|, so every nearby split is scored with one cumulative sum.
    """
    out = list(taus)
    n = len(work.values)
    v = work.values
    for i, tau in enumerate(out):
        lo = out[i - 1] if i > 0 else 0
        hi = out[i + 1] if i + 1 < len(out) else n
        a, b = max(lo + MIN_SIDE, tau - REFINE), min(hi - MIN_SIDE, tau + REFINE)
        if a >= b:
            continue
        # Within the drift window only: the fit is about this step, not distant history.
        left = median(v[max(lo, tau - DRIFT_WINDOW) : tau])
        right = median(v[tau : min(hi, tau + DRIFT_WINDOW)])
        seg = v[a:b]
        # cost[j] - cost[0] for the split before a + j, j = 0..b-a.
        rel = np.concatenate(([0.0], np.cumsum(np.abs(seg - left) - np.abs(seg - right))))
        best = a + int(np.argmin(rel))
        if rel[best - a] < rel[tau - a]:
            out[i] = best
    return out


def screen(block: FloatArray, alpha: float) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
    """Per row of equal-length series: could segment() find anything? (False means surely not.)

    The same scans segment() starts with (the whole series, then the windows), vectorised.
    Rows with tied values are passed on: their midranks need the per-series path (their
    p-values come back as -1). Returns (ranks, split p-values, maybe).
    """
    rows, n = block.shape
    order = np.argsort(block, axis=1, kind="mergesort")
    ordered = np.take_along_axis(block, order, axis=1)
    tied = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    ranks = np.empty_like(block)
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(1.0, n + 1.0), (rows, n)), axis=1)
    pvals = scan_pvalues(ranks)
    pvals[tied] = -1.0
    maybe = tied | (pvals.min(axis=1) <= critical_pvalue(alpha, n))
    if n > WINDOW:
        starts = _window_starts(0, n)
        windows = np.stack([block[:, s : s + WINDOW] for s in starts], axis=1)
        wranks, factors = window_ranks(windows.reshape(-1, WINDOW))
        wmin = scan_pvalues(wranks, factors).min(axis=1).reshape(rows, len(starts))
        maybe |= (wmin <= critical_pvalue(alpha / len(starts), WINDOW)).any(axis=1)
    return ranks, pvals, np.asarray(maybe, dtype=np.bool_)
