"""Is a difference real? Pure statistics on the samples (the repetitions) of two sides.

The change is the median of side B against the median of side A, in percent. Its interval is
a percentile bootstrap: both sides are resampled with replacement RESAMPLES times and the
change recomputed; the 2.5th and 97.5th percentiles bound the 95 % interval. A change is real
(better or worse) when that interval excludes zero and the change is at least the minimum
effect (DEFAULT_MIN_EFFECT_PCT by default: storage benchmarks wobble by a few percent from
run to run even when nothing changed). Otherwise it is within noise. A side with fewer than
MIN_SAMPLES repetitions cannot be tested: its spread says nothing about noise.

Why this method: it needs no distribution (storage timings are skewed and bimodal), it gives
the interval of the change that a reader wants to see, and at the agent's default of three
repetitions it reduces to a rule anyone can check by eye (the interval excludes zero exactly
when the two sides' [min, max] ranges do not overlap), where a Mann-Whitney U test could never
reach p < 0.05 with 3 against 3. The resampling is seeded from the samples themselves, so the
same data always answers the same interval."""

from __future__ import annotations

import hashlib
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from perfatlas.core.trust import MIN_REPETITIONS

DEFAULT_MIN_EFFECT_PCT = 5.0
CONFIDENCE = 0.95
RESAMPLES = 2000
# The same threshold as the trust flag "few_repetitions": below it there is no spread to test.
MIN_SAMPLES = MIN_REPETITIONS

Verdict = Literal["better", "worse", "noise", "few", "missing", "not_comparable"]
VERDICTS: dict[str, str] = {
    "better": "better: the interval of the change excludes zero and the change is at least "
    "the minimum effect",
    "worse": "worse: the interval of the change excludes zero and the change is at least "
    "the minimum effect",
    "noise": "within noise: the interval includes zero, or the change is smaller than the "
    "minimum effect",
    "few": f"not enough repetitions: a side has fewer than {MIN_SAMPLES} samples, so its "
    "noise is unknown",
    "missing": "no value on one side (or a baseline of zero)",
    "not_comparable": "not comparable (durability): one side is memory-backed or does not "
    "flush to the device and the other does, so a difference says nothing of better or worse",
}


@dataclass(frozen=True, slots=True)
class Change:
    """Side B against baseline side A."""

    base: float | None  # median of A
    value: float | None  # median of B
    n_base: int
    n: int
    change_pct: float | None
    ci_low_pct: float | None
    ci_high_pct: float | None
    verdict: Verdict
    # Why the change is not judged (verdict not_comparable): the durability fact named.
    reason: str | None = None


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def _seed(a: Sequence[float], b: Sequence[float]) -> int:
    digest = hashlib.blake2b(
        np.asarray(a, np.float64).tobytes() + b"|" + np.asarray(b, np.float64).tobytes(),
        digest_size=8,
    ).digest()
    return int.from_bytes(digest, "little")


def bootstrap_interval(
    a: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
) -> tuple[float, float]:
    """The percentile-bootstrap interval of (median(B) - median(A)) / |median(A)| in percent."""
    rng = np.random.default_rng(_seed(a, b))
    xa, xb = np.asarray(a, np.float64), np.asarray(b, np.float64)
    ma = np.median(xa[rng.integers(0, len(xa), (resamples, len(xa)))], axis=1)
    mb = np.median(xb[rng.integers(0, len(xb), (resamples, len(xb)))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        changes = (mb - ma) / np.abs(ma) * 100.0
    changes = changes[np.isfinite(changes)]
    if changes.size == 0:
        return math.nan, math.nan
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(changes, [tail, 100.0 - tail])
    return float(low), float(high)


def judge(
    change_pct: float,
    ci_low: float,
    ci_high: float,
    *,
    direction: str,
    min_effect_pct: float,
) -> Verdict:
    excludes_zero = ci_low > 0 or ci_high < 0
    if not excludes_zero or abs(change_pct) < min_effect_pct or change_pct == 0:
        return "noise"
    return "better" if (change_pct > 0) == (direction == "higher") else "worse"


def compare_samples(
    a: Sequence[float],
    b: Sequence[float],
    *,
    direction: str,
    min_effect_pct: float = DEFAULT_MIN_EFFECT_PCT,
    confidence: float = CONFIDENCE,
) -> Change:
    """Side B against side A: the change of the medians, its interval and the verdict."""
    base = median(a) if a else None
    value = median(b) if b else None
    if base is None or value is None or base == 0:
        return Change(base, value, len(a), len(b), None, None, None, "missing")
    change = (value - base) / abs(base) * 100.0
    if len(a) < MIN_SAMPLES or len(b) < MIN_SAMPLES:
        return Change(base, value, len(a), len(b), change, None, None, "few")
    low, high = bootstrap_interval(a, b, confidence=confidence)
    if not (math.isfinite(low) and math.isfinite(high)):
        return Change(base, value, len(a), len(b), change, None, None, "missing")
    verdict = judge(change, low, high, direction=direction, min_effect_pct=min_effect_pct)
    return Change(base, value, len(a), len(b), change, low, high, verdict)


@dataclass(frozen=True, slots=True)
class Agreement:
    """What the per-series changes of one metric say together."""

    change_pct: float | None  # median of the per-series changes
    pairs: int  # series present on both sides
    tested: int  # pairs with enough repetitions to test
    agree: int  # pairs significant in the direction of the median change
    better: int
    worse: int
    lowest_pct: float | None
    highest_pct: float | None
    verdict: Verdict | Literal["mixed"]
    not_comparable: int = 0  # pairs whose sides differ in durability: never judged
    reason: str | None = None


def agreement(changes: Sequence[Change], *, direction: str) -> Agreement:
    """The median of the per-series changes and how many series agree with it.

    The metric is better or worse when more than half of the tested pairs are significant in
    that direction; "mixed" when some are significantly better and others worse without a
    majority; within noise otherwise. Pairs whose sides differ in durability (verdict
    not_comparable) count in `pairs` only: their changes are left out of the median, and when
    every pair is such the metric is not comparable."""
    apart = [c for c in changes if c.verdict == "not_comparable"]
    if apart and len(apart) == len(changes):
        pcts = [c.change_pct for c in apart if c.change_pct is not None]
        return Agreement(
            change_pct=median(pcts) if pcts else None, pairs=len(changes), tested=0, agree=0,
            better=0, worse=0, lowest_pct=min(pcts) if pcts else None,
            highest_pct=max(pcts) if pcts else None, verdict="not_comparable",
            not_comparable=len(apart), reason=apart[0].reason,
        )  # fmt: skip
    comparable = [c for c in changes if c.verdict != "not_comparable"]
    pcts = [c.change_pct for c in comparable if c.change_pct is not None]
    tested = [c for c in changes if c.verdict in ("better", "worse", "noise")]
    better = sum(c.verdict == "better" for c in tested)
    worse = sum(c.verdict == "worse" for c in tested)
    mid = median(pcts) if pcts else None
    if not comparable or mid is None:
        verdict: Verdict | Literal["mixed"] = "missing"
        agree = 0
    else:
        # Agreeing means significant in the direction the median change points to.
        agree = 0 if mid == 0 else better if (mid > 0) == (direction == "higher") else worse
        if not tested:
            verdict = "few"
        elif worse * 2 > len(tested):
            verdict = "worse"
        elif better * 2 > len(tested):
            verdict = "better"
        elif better and worse:
            verdict = "mixed"
        else:
            verdict = "noise"
    return Agreement(
        change_pct=mid,
        pairs=len(changes),
        tested=len(tested),
        agree=agree,
        better=better,
        worse=worse,
        lowest_pct=min(pcts) if pcts else None,
        highest_pct=max(pcts) if pcts else None,
        verdict=verdict,
        not_comparable=len(apart),
        reason=apart[0].reason if apart else None,
    )
