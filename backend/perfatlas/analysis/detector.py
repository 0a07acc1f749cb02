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

This module is the entry point (`detect`, `detect_many`) and what callers import; the parts are
`robust` (per-run values, midranks, medians, the step t statistic), `segmentation` (the search),
`causes` (context changes next to a change point), `changepoint` and `tuning` (the constants).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from perfatlas.analysis.causes import attach_causes, context_changes, context_indices
from perfatlas.analysis.changepoint import ChangePoint, Direction, Kind
from perfatlas.analysis.ranks import MIN_SIDE
from perfatlas.analysis.robust import (
    FloatArray,
    Point,
    Samples,
    level,
    parse_points,
    point_samples,
    point_values,
)
from perfatlas.analysis.segmentation import Work, prune, refine, screen, segment
from perfatlas.analysis.tuning import (
    BEFORE_POINTS,
    CANDIDATES,
    CONFIDENCE_CAP,
    CONFIRM_POINTS,
    DEFAULT_MIN_CONFIDENCE,
    DRIFT_T,
    DRIFT_WINDOW,
    REFINE,
    WINDOW,
    WINDOW_DRIFT_T,
)

# What callers import from here; the parts live in robust, segmentation, causes and tuning.
__all__ = [
    "BEFORE_POINTS",
    "CANDIDATES",
    "CONFIDENCE_CAP",
    "CONFIRM_POINTS",
    "DEFAULT_MIN_CONFIDENCE",
    "DRIFT_T",
    "DRIFT_WINDOW",
    "REFINE",
    "WINDOW",
    "WINDOW_DRIFT_T",
    "ChangePoint",
    "Direction",
    "Kind",
    "Point",
    "attach_causes",
    "context_changes",
    "context_indices",
    "detect",
    "detect_many",
    "point_samples",
    "point_values",
]


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
    samples, values = parse_points(points)
    if len(samples) < 2 * MIN_SIDE:
        return []
    return _detect(samples, Work(values), direction, 1.0 - min_confidence)


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
            parsed.append(parse_points(points))
        except ValueError as exc:
            raise ValueError(f"series {i}: {exc}") from None
        by_length.setdefault(len(points), []).append(i)
    out: list[list[ChangePoint]] = [[] for _ in series]
    for n, rows in by_length.items():
        if n < 2 * MIN_SIDE:
            continue
        ranks, pvals, maybe = screen(np.stack([parsed[i][1] for i in rows]), alpha)
        for row in np.flatnonzero(maybe):
            i = rows[row]
            work = Work(parsed[i][1])
            if pvals[row, 0] >= 0:  # no ties: the screen's whole-series scan is the real one
                work.seed(ranks[row], pvals[row])
            out[i] = _detect(parsed[i][0], work, series[i][1], alpha)
    return out


def _detect(samples: Samples, work: Work, direction: str, alpha: float) -> list[ChangePoint]:
    n = len(work.values)
    kept = prune(work, segment(work, alpha), alpha)
    refined = refine(work, sorted(kept))
    if refined != sorted(kept):
        kept = prune(work, refined, alpha)
    taus = sorted(kept)
    out = []
    for i, tau in enumerate(taus):
        prev = taus[i - 1] if i > 0 else 0
        nxt = taus[i + 1] if i + 1 < len(taus) else n
        before = level(samples, max(prev, tau - BEFORE_POINTS), tau)
        after = level(samples, tau, min(nxt, tau + CONFIRM_POINTS))
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
