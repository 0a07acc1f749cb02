"""Regression detector: robust, calibrated change points in one performance series.

How, and why it differs from the usual tools:

- Each run becomes one value, a trimmed mean of its repetitions (a bad repetition is
  dropped, a good set is nearly as sharp as a mean); the reported levels use every sample.
- A split is judged by the rank-sum test between its two sides, exact when one side is short.
  Ranks make it indifferent to heavy tails, lone outliers and a cache-miss mode; the exact
  tail sees a step three or four runs in. Otava's t-test on the best of many splits is neither.
- The smallest p-value over all splits is calibrated by permutation (ranks of an unchanging
  series are a random permutation whatever the noise), per segment length: the false-alarm
  rate is the chosen one for 20 points or 3,000. Otava and a lookback z-score test each
  point or split as if it were the only one, so a longer history means more false alarms.
- Binary segmentation, plus windows for short excursions, then every change must hold between
  its final neighbours (Otava's merge step, with the scan accounted for).
- A change must also stand out from a local straight line fitted through both sides (robust
  slope from pairs on the same side): a slow drift is never cut into steps.
- Changes need four points on each side (a lone spike or a pair is never one) and are
  tentative until six points follow; the "after" level is the median of exactly those six, so
  a confirmed change's levels never move as points arrive.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import chain
from numbers import Real
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from perfatlas.analysis.nullscan import adjusted_pvalue, critical_pvalue
from perfatlas.analysis.ranks import MIN_SIDE, scan_pvalues, split_pvalue, window_ranks

Direction = Literal["higher", "lower"]
Kind = Literal["regression", "improvement"]
Point = float | int | Sequence[float | int]
FloatArray = NDArray[np.float64]
Samples = FloatArray | list[FloatArray]

# A change is tentative until this many points follow it; its "after" level is the median of
# exactly these points, so once it is confirmed its level never moves again.
CONFIRM_POINTS = 6
# The "before" level: up to this many points just before the change (all in the past).
BEFORE_POINTS = 10
# Significance of each split, after the scan over every split of the segment is accounted for.
DEFAULT_MIN_CONFIDENCE = 0.99
# The step must stand out from a local straight line through both sides by this many standard
# errors; otherwise it is a drift, and a drift cut into steps is the classic false alarm.
DRIFT_T = 3.5
# Points each side of a split that the drift check looks at: local, so a trend elsewhere in a
# long history does not hide a step, and a step elsewhere does not bend the line.
DRIFT_WINDOW = 30
# Binary segmentation cannot see a short excursion (a regression fixed 15 runs later) in a
# long segment: the two steps cancel in the whole-segment scan. Segments of two windows or more
# are also scanned in windows of this many points, overlapping by half, each at alpha / count.
WINDOW = 32
# A split found only in a window is the best of many looks at a short stretch, and a drift
# offers plenty of those: it must stand out from the local line by more.
WINDOW_DRIFT_T = 5.0
# Candidate splits tried per segment when the best one turns out to be a drift.
CANDIDATES = 3
# The null table is simulated: past 1e-4 more digits of confidence would be noise.
CONFIDENCE_CAP = 0.9999
# How far (points) the final pass may move a change once its neighbours are known.
REFINE = 4


@dataclass(frozen=True)
class ChangePoint:
    """One change: `index` is the first point after it; levels are in the series' unit."""

    index: int
    before: float
    after: float
    change_pct: float | None
    confidence: float
    kind: Kind
    tentative: bool
    points_after: int
    cause: dict[str, dict[str, Any]] | None = None
    cause_index: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "before": _round_sig(self.before),
            "after": _round_sig(self.after),
            "change_pct": None if self.change_pct is None else round(self.change_pct, 2),
            "confidence": round(self.confidence, 4),
            "kind": self.kind,
            "tentative": self.tentative,
            "points_after": self.points_after,
        }
        if self.cause is not None:
            out["cause"] = self.cause
            out["cause_index"] = self.cause_index
        return out


def _round_sig(value: float, digits: int = 6) -> float:
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def _parse(points: Sequence[Point]) -> tuple[Samples, FloatArray]:
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


def _midranks(values: FloatArray) -> tuple[FloatArray, float]:
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


class _Work:
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
            self._ranks[key] = _midranks(self.values[lo:hi])
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
            self._steps[key] = _step_t(self.values, *key)
        t = math.copysign(1.0, self.rank_shift(lo, tau, hi)) * self._steps[key]
        return math.isnan(t) or t >= threshold


@lru_cache(maxsize=256)
def _pairs(m: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    i, j = np.triu_indices(m, 1)
    return i, j


def _pair_slopes(t: FloatArray, y: FloatArray) -> FloatArray:
    i, j = _pairs(len(t))
    return (y[j] - y[i]) / (t[j] - t[i])


def _median(x: FloatArray) -> float:
    """np.median without its overhead (this runs thousands of times per series batch)."""
    m = len(x)
    k = m // 2
    if m % 2:
        return float(np.partition(x, k)[k])
    part = np.partition(x, (k - 1, k))
    return 0.5 * float(part[k - 1] + part[k])


def _step_t(values: FloatArray, lo: int, tau: int, hi: int) -> float:
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
    slope = _median(np.concatenate([_pair_slopes(t[:k], y[:k]), _pair_slopes(t[k:], y[k:])]))
    resid = y - slope * t
    left, right = _median(resid[:k]), _median(resid[k:])
    spread = np.abs(resid - np.where(t < 0, left, right))
    scale = 1.4826 * _median(spread)
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


def _windows(work: _Work, lo: int, hi: int, alpha: float) -> list[tuple[float, int]]:
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
    work: _Work, lo: int, tau: int, hi: int, alpha: float, threshold: float = DRIFT_T
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


def _segment(work: _Work, alpha: float) -> list[int]:
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


def _prune(work: _Work, taus: list[int], alpha: float) -> dict[int, float]:
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
                # As _segment may have found it: in a window around it (one look per window
                # _segment would scan), held to the stricter drift check of windows.
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


def _refine(work: _Work, taus: list[int]) -> list[int]:
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
        left = _median(v[max(lo, tau - DRIFT_WINDOW) : tau])
        right = _median(v[tau : min(hi, tau + DRIFT_WINDOW)])
        seg = v[a:b]
        # cost[j] - cost[0] for the split before a + j, j = 0..b-a.
        rel = np.concatenate(([0.0], np.cumsum(np.abs(seg - left) - np.abs(seg - right))))
        best = a + int(np.argmin(rel))
        if rel[best - a] < rel[tau - a]:
            out[i] = best
    return out


def _level(samples: Samples, lo: int, hi: int) -> float:
    """The median of every sample of points lo..hi-1."""
    if isinstance(samples, np.ndarray):
        return _median(samples[lo:hi].ravel())
    return _median(np.concatenate(samples[lo:hi]))


def detect(
    points: Sequence[Point],
    direction: Direction = "higher",
    *,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> list[ChangePoint]:
    """Change points of one series, oldest first.

    `points` holds per run either one value or the samples of its repetitions; `direction`
    says which way is better. Raises ValueError for a bad point or direction.
    """
    if direction not in ("higher", "lower"):
        raise ValueError(f"direction must be 'higher' or 'lower', not {direction!r}")
    if not 0.0 < min_confidence < 1.0:
        raise ValueError("min_confidence must be between 0 and 1")
    samples, values = _parse(points)
    if len(samples) < 2 * MIN_SIDE:
        return []
    return _detect(samples, _Work(values), direction, 1.0 - min_confidence)


def detect_many(
    series: Sequence[tuple[Sequence[Point], Direction]],
    *,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> list[list[ChangePoint]]:
    """The same as detect() on each (points, direction), faster for many series at once.

    Most series have no change; series of equal length are screened together (one rank scan
    for all of them), and only those that might hold a change get the full treatment.
    """
    if not 0.0 < min_confidence < 1.0:
        raise ValueError("min_confidence must be between 0 and 1")
    alpha = 1.0 - min_confidence
    parsed: list[tuple[Samples, FloatArray]] = []
    by_length: dict[int, list[int]] = {}
    for i, (points, direction) in enumerate(series):
        if direction not in ("higher", "lower"):
            raise ValueError(f"series {i}: direction must be 'higher' or 'lower'")
        try:
            parsed.append(_parse(points))
        except ValueError as exc:
            raise ValueError(f"series {i}: {exc}") from None
        by_length.setdefault(len(points), []).append(i)
    out: list[list[ChangePoint]] = [[] for _ in series]
    for n, rows in by_length.items():
        if n < 2 * MIN_SIDE:
            continue
        ranks, pvals, maybe = _screen(np.stack([parsed[i][1] for i in rows]), alpha)
        for row in np.flatnonzero(maybe):
            i = rows[row]
            work = _Work(parsed[i][1])
            if pvals[row, 0] >= 0:  # no ties: the screen's whole-series scan is the real one
                work.seed(ranks[row], pvals[row])
            out[i] = _detect(parsed[i][0], work, series[i][1], alpha)
    return out


def _screen(block: FloatArray, alpha: float) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
    """Per row of equal-length series: could _segment find anything? (False means surely not.)

    The same scans _segment starts with (the whole series, then the windows), vectorised.
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


def _detect(samples: Samples, work: _Work, direction: str, alpha: float) -> list[ChangePoint]:
    n = len(work.values)
    kept = _prune(work, _segment(work, alpha), alpha)
    refined = _refine(work, sorted(kept))
    if refined != sorted(kept):
        kept = _prune(work, refined, alpha)
    taus = sorted(kept)
    out = []
    for i, tau in enumerate(taus):
        prev = taus[i - 1] if i > 0 else 0
        nxt = taus[i + 1] if i + 1 < len(taus) else n
        before = _level(samples, max(prev, tau - BEFORE_POINTS), tau)
        after = _level(samples, tau, min(nxt, tau + CONFIRM_POINTS))
        delta = after - before
        if delta == 0:
            delta = work.rank_shift(prev, tau, nxt)
        worse = delta < 0 if direction == "higher" else delta > 0
        out.append(
            ChangePoint(
                index=tau,
                before=before,
                after=after,
                change_pct=(after - before) / abs(before) * 100.0 if before != 0 else None,
                confidence=float(min(CONFIDENCE_CAP, 1.0 - kept[tau])),
                kind="regression" if worse else "improvement",
                tentative=n - tau < CONFIRM_POINTS,
                points_after=n - tau,
            )
        )
    return out


def _flatten(context: Mapping[str, Any] | None, prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in (context or {}).items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def context_changes(
    before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
) -> dict[str, dict[str, Any]]:
    """Keys (nested ones dotted: `environment.kernel`) whose values differ, with both values."""
    a, b = _flatten(before), _flatten(after)
    return {
        key: {"before": a.get(key), "after": b.get(key)}
        for key in sorted(a.keys() | b.keys())
        if a.get(key) != b.get(key)
    }


def attach_causes(
    change_points: Sequence[ChangePoint],
    contexts: Sequence[Mapping[str, Any] | None],
    *,
    window: int = 2,
) -> list[ChangePoint]:
    """The change points with `cause` set where the environment or labels changed with them.

    `contexts[i]` describes point i (environment, labels, parameters; nested dicts allowed).
    A context change at the change point's index wins; otherwise the nearest one within
    `window` points, because a noisy step can be located a point or two off.
    """
    out = []
    for cp in change_points:
        best: tuple[int, dict[str, dict[str, Any]]] | None = None
        for offset in sorted(range(-window, window + 1), key=lambda o: (abs(o), o)):
            j = cp.index + offset
            if not 0 < j < len(contexts):
                continue
            diff = context_changes(contexts[j - 1], contexts[j])
            if diff:
                best = (j, diff)
                break
        if best is None:
            out.append(cp)
        else:
            out.append(replace(cp, cause=best[1], cause_index=best[0]))
    return out
