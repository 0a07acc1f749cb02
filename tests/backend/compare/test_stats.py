"""The compare statistics against plain computations: the change of the medians, its bootstrap
interval (checked against the exact bootstrap distribution, enumerated), the verdicts."""

from __future__ import annotations

import itertools
import math
import random
import statistics

import pytest

from perfatlas.core.significance import (
    CONFIDENCE,
    MIN_SAMPLES,
    agreement,
    compare_samples,
)


def pct(a: list[float], b: list[float]) -> float:
    return (statistics.median(b) - statistics.median(a)) / abs(statistics.median(a)) * 100


def exact_median_distribution(values: list[float]) -> dict[float, float]:
    """P(median of a resample = v) for an odd sample size, by the order statistics:
    P(median <= x_(j)) = P(at least (n+1)/2 of n draws are <= x_(j))."""
    xs = sorted(values)
    n = len(xs)
    assert n % 2 == 1
    need = (n + 1) // 2
    cdf = []
    for j in range(1, n + 1):
        p = j / n
        cdf.append(sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(need, n + 1)))
    dist: dict[float, float] = {}
    prev = 0.0
    for x, c in zip(xs, cdf, strict=True):
        dist[x] = dist.get(x, 0.0) + c - prev
        prev = c
    return dist


def exact_change_quantile(a: list[float], b: list[float], q: float) -> float:
    """The q quantile of the bootstrap distribution of the change, enumerated exactly."""
    da, db = exact_median_distribution(a), exact_median_distribution(b)
    support = sorted(
        ((mb - ma) / abs(ma) * 100, pa * pb)
        for (ma, pa), (mb, pb) in itertools.product(da.items(), db.items())
    )
    total = 0.0
    for value, p in support:
        total += p
        if total >= q:
            return value
    return support[-1][0]


def test_noise_only_is_within_noise_with_its_interval() -> None:
    # The case: xfs 549 MB/s [484-706] next to ext4 643 [400-656] was shown red.
    ext4, xfs = [400.0, 643.0, 656.0], [484.0, 549.0, 706.0]
    change = compare_samples(ext4, xfs, direction="higher")
    assert change.verdict == "noise"
    assert change.change_pct == pytest.approx(pct(ext4, xfs))  # -14.6 %, yet not real
    assert change.n_base == 3 and change.n == 3
    # With three repetitions the interval is bounded by the ranges' extremes.
    assert change.ci_low_pct == pytest.approx((484 - 656) / 656 * 100)
    assert change.ci_high_pct == pytest.approx((706 - 400) / 400 * 100)


def test_three_repetitions_real_exactly_when_the_ranges_do_not_overlap() -> None:
    rng = random.Random(7)
    for _ in range(200):
        a = [rng.uniform(90, 110) for _ in range(3)]
        b = [rng.uniform(60, 120) for _ in range(3)]
        change = compare_samples(a, b, direction="higher", min_effect_pct=0)
        apart = min(b) > max(a) or max(b) < min(a)
        assert (change.verdict != "noise") == apart, (a, b, change)


@pytest.mark.parametrize("n", [5, 7, 9])
def test_a_20_percent_step_is_worse_and_its_interval_matches_the_exact_bootstrap(n: int) -> None:
    rng = random.Random(n)
    a = [1000 * (1 + rng.uniform(-0.04, 0.04)) for _ in range(n)]
    b = [800 * (1 + rng.uniform(-0.04, 0.04)) for _ in range(n)]
    change = compare_samples(a, b, direction="higher")
    assert change.verdict == "worse"
    assert change.change_pct == pytest.approx(pct(a, b))
    assert change.ci_low_pct < -20 < change.ci_high_pct  # contains the true change
    assert change.ci_high_pct < 0
    tail = (1 - CONFIDENCE) / 2
    # The resampled percentile lies between the exact quantiles a little either side of it.
    assert exact_change_quantile(a, b, tail - 0.012) <= change.ci_low_pct
    assert change.ci_low_pct <= exact_change_quantile(a, b, tail + 0.012)
    assert exact_change_quantile(a, b, 1 - tail - 0.012) <= change.ci_high_pct
    assert change.ci_high_pct <= exact_change_quantile(a, b, 1 - tail + 0.012)
    # Lower is better for seconds: the same step in time is better.
    assert compare_samples(a, b, direction="lower").verdict == "better"
    # The same samples answer the same interval every time.
    assert compare_samples(a, b, direction="higher") == change


def test_minimum_effect_and_too_few_repetitions() -> None:
    a = [100.0, 100.1, 99.9, 100.05, 99.95]
    b = [v * 1.03 for v in a]  # a real but small change
    assert compare_samples(a, b, direction="higher").verdict == "noise"
    assert compare_samples(a, b, direction="higher", min_effect_pct=2).verdict == "better"
    one = compare_samples([100.0], [50.0], direction="higher")
    assert one.verdict == "few" and one.change_pct == pytest.approx(-50)
    assert one.ci_low_pct is None and one.ci_high_pct is None
    short = [100.0] * (MIN_SAMPLES - 1)
    assert compare_samples(short, b, direction="higher").verdict == "few"
    assert compare_samples([0.0, 0.0, 0.0], b, direction="higher").verdict == "missing"
    assert compare_samples(a, a, direction="higher").verdict == "noise"


def test_agreement_is_the_median_of_the_per_series_changes() -> None:
    rng = random.Random(3)
    changes = []
    for level in (500, 1000, 3000, 8000):
        a = [level * (1 + rng.uniform(-0.01, 0.01)) for _ in range(3)]
        b = [level * 0.78 * (1 + rng.uniform(-0.01, 0.01)) for _ in range(3)]
        changes.append(compare_samples(a, b, direction="higher"))
    noisy = compare_samples([100.0, 90.0, 110.0], [95.0, 105.0, 80.0], direction="higher")
    summary = agreement([*changes, noisy], direction="higher")
    expected = statistics.median([c.change_pct for c in [*changes, noisy]])
    assert summary.change_pct == pytest.approx(expected)
    assert (summary.agree, summary.tested, summary.pairs) == (4, 5, 5)
    assert summary.verdict == "worse"
    assert agreement([noisy], direction="higher").verdict == "noise"
    few = compare_samples([1.0], [2.0], direction="higher")
    assert agreement([few], direction="higher").verdict == "few"
