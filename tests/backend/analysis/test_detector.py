"""The regression detector on synthetic series with known change points (no database)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from perfatlas.analysis.detector import (
    ChangePoint,
    attach_causes,
    context_changes,
    context_indices,
    detect,
)
from perfatlas.analysis.synthetic import NOISES, Noise, series


def near(found: list[ChangePoint], index: int, tolerance: int = 2) -> bool:
    return any(abs(cp.index - index) <= tolerance for cp in found)


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("samples", [1, 4])
@pytest.mark.parametrize("size", [-7.0, -5.0, 9.0])
def test_clear_step_is_found_once(noise: Noise, samples: int, size: float) -> None:
    """Steps of 5-9 noise scales mid-series: found within 2 points, once, the right way."""
    located = extra = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        s = series(rng, 60, noise, changes=[(31, size)], samples=samples)
        found = detect(s.points)
        if noise == "bimodal":
            # A run of cache misses just before the step can look like its start (to ranks
            # and medians alike), or like a small change of its own: tolerated once.
            extra += len(found) - 1
            found = [min(found, key=lambda cp: abs(cp.index - 31))] if found else []
        assert len(found) == 1, (seed, found)
        cp = found[0]
        located += abs(cp.index - 31) <= 2
        assert abs(cp.index - 31) <= (12 if noise == "bimodal" else 2), (seed, found)
        assert cp.kind == ("regression" if size < 0 else "improvement")
        assert not cp.tentative
        assert cp.confidence >= 0.99
        assert cp.change_pct is not None
        assert math.copysign(1, cp.change_pct) == math.copysign(1, size)
    assert located >= 3
    assert extra <= 1


@pytest.mark.parametrize("noise", NOISES)
def test_moderate_steps_mostly_found(noise: Noise) -> None:
    """Steps of 4-5 noise scales, one or two per series of 40-150 points: at least 90 % found
    within 2 points (70 % with a cache-miss mode), hardly anything spurious."""
    rng = np.random.default_rng(11)
    hits = truths = extra = 0
    for _ in range(25):
        n = int(rng.integers(40, 151))
        count = 1 if n < 80 else 2
        idx = [n // 2] if count == 1 else [n // 3, 2 * n // 3]
        changes = [(i, float(rng.uniform(4, 5) * rng.choice([-1, 1]))) for i in idx]
        s = series(rng, n, noise, changes=changes, samples=int(rng.choice([1, 3])))
        found = detect(s.points)
        hits += sum(near(found, i) for i in idx)
        truths += len(idx)
        # Spurious: nowhere near a true change (a step located 3-5 points off is a miss only).
        extra += sum(all(abs(cp.index - i) > 5 for i in idx) for cp in found)
    minimum = 0.7 if noise == "bimodal" else 0.9
    assert hits / truths >= minimum, (hits, truths)
    assert extra <= 2


@pytest.mark.parametrize("noise", NOISES)
def test_no_change_stays_quiet(noise: Noise) -> None:
    rng = np.random.default_rng(7)
    alerts = sum(len(detect(series(rng, 100, noise).points)) for _ in range(60))
    assert alerts <= 1  # 6,000 unchanging points


def test_longer_history_does_not_raise_false_alarms() -> None:
    """The scan is calibrated per length: 100 points or 3,000, the same small false-alarm rate."""
    rng = np.random.default_rng(3)
    for noise in NOISES:
        for n in (500, 3000):
            assert detect(series(rng, n, noise).points) == [], (noise, n)


@pytest.mark.parametrize("position", [10, 30, 58, 59])
@pytest.mark.parametrize("direction", [-1.0, 1.0])
def test_lone_spike_is_not_a_change(position: int, direction: float) -> None:
    for seed in range(4):
        rng = np.random.default_rng(seed)
        values = np.array(series(rng, 60, "gaussian").points)
        values[position] += direction * 40 * 20.0  # 40 noise scales (scale is 2 % of 1000)
        assert detect(values.tolist()) == [], (seed, position)


def test_two_spikes_at_the_end_are_not_a_change() -> None:
    rng = np.random.default_rng(5)
    values = np.array(series(rng, 50, "gaussian").points)
    values[-2:] *= 0.5
    assert detect(values.tolist()) == []


@pytest.mark.parametrize("noise", NOISES)
def test_slow_drift_is_not_cut_into_steps(noise: Noise) -> None:
    rng = np.random.default_rng(21)
    alerts = 0
    for i in range(20):
        drift = (-1) ** i * float(rng.uniform(8.0, 16.0))  # percent over the series
        alerts += len(detect(series(rng, 120, noise, drift_pct=drift).points))
    assert alerts <= 1


def test_step_on_a_drift_is_still_found() -> None:
    rng = np.random.default_rng(4)
    s = series(rng, 100, "gaussian", changes=[(60, -8.0)], drift_pct=6.0)
    found = detect(s.points)
    assert len(found) == 1 and near(found, 60)


@pytest.mark.parametrize("noise", NOISES)
def test_appending_points_keeps_confirmed_changes_and_their_levels(noise: Noise) -> None:
    moved = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        s = series(rng, 90, noise, changes=[(30, -6.0), (60, 7.0)])
        history = list(s.points)

        # Confirmed and clear (a change at the edge of significance may come and go).
        def settled(found: list[ChangePoint]) -> list[ChangePoint]:
            return [cp for cp in found if not cp.tentative and cp.confidence >= 0.999]

        before = settled(detect(history[:80]))
        for n in range(81, 91):
            now = {cp.index: cp for cp in detect(history[:n])}
            for cp in before:
                same = now.get(cp.index)
                if same is None or (same.before, same.after) != (cp.before, cp.after):
                    moved += 1
            before = settled(list(now.values()))
    assert moved == 0


def test_change_near_the_end_is_tentative_then_confirmed() -> None:
    rng = np.random.default_rng(8)
    s = series(rng, 46, "gaussian", changes=[(40, -12.0)])
    assert detect(s.points[:43]) == []  # three slow runs are not yet a change
    early = detect(s.points[:44])
    assert len(early) == 1 and early[0].index == 40 and early[0].tentative
    assert early[0].points_after == 4
    late = detect(s.points)
    assert len(late) == 1 and not late[0].tentative and late[0].points_after == 6
    assert late[0].after == pytest.approx(np.median(s.points[40:46]))


def test_direction_decides_regression_or_improvement() -> None:
    rng = np.random.default_rng(2)
    s = series(rng, 40, "gaussian", changes=[(20, -10.0)])
    assert [cp.kind for cp in detect(s.points, "higher")] == ["regression"]
    assert [cp.kind for cp in detect(s.points, "lower")] == ["improvement"]


def test_samples_per_point_are_used() -> None:
    """One wild repetition per point is absorbed, and repetitions sharpen a small step."""
    rng = np.random.default_rng(12)
    quiet = series(rng, 60, "gaussian", samples=5)
    wild = [[*p[:4], p[4] * (0.2 if i % 3 else 5.0)] for i, p in enumerate(quiet.points)]
    assert detect(wild) == []
    found_with, found_without = 0, 0
    for seed in range(20):
        rng = np.random.default_rng(100 + seed)
        s = series(rng, 30, "gaussian", changes=[(15, -3.0)], samples=5)
        found_with += near(detect(s.points), 15)
        found_without += near(detect([p[0] for p in s.points]), 15)
    assert found_with >= 16
    assert found_with > found_without + 3


def test_few_points() -> None:
    assert detect([]) == []
    assert detect([1.0, 2.0, 3.0, 4.0, 5.0]) == []
    found = detect([10.0, 10.1, 9.9, 10.0, 10.2, 10.1, 5.0, 5.1, 4.9, 5.0, 5.2, 5.1])
    assert [cp.index for cp in found] == [6]


def test_levels_and_change_percent() -> None:
    points = [[100.0, 101.0, 99.0]] * 12 + [[80.0, 81.0, 79.0]] * 12
    (cp,) = detect(points)
    assert (cp.index, cp.before, cp.after) == (12, 100.0, 80.0)
    assert cp.change_pct == pytest.approx(-20.0)
    assert cp.to_dict()["change_pct"] == -20.0


def test_constant_and_quantised_series() -> None:
    assert detect([5.0] * 50) == []
    rng = np.random.default_rng(1)
    assert detect([float(v) for v in rng.integers(0, 3, 80)]) == []
    found = detect([float(v) for v in np.r_[rng.integers(0, 3, 40), rng.integers(5, 8, 40)]])
    assert [cp.index for cp in found] == [40]


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ([1.0, "x"], "point 1"),
        ([1.0, []], "point 1: no samples"),
        ([1.0, [2.0, math.nan]], "point 1"),
        ([True, 1.0], "point 0"),
        ([1.0, [[2.0]]], "point 1"),
    ],
)
def test_bad_points_are_named(points: list[object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        detect(points)  # type: ignore[arg-type]


def test_bad_direction() -> None:
    with pytest.raises(ValueError, match="direction"):
        detect([1.0] * 10, "faster")  # type: ignore[arg-type]


def test_attach_causes_names_the_changed_keys() -> None:
    points = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 101.0, 99.0] * 2 + [80.0, 81.0, 79.0] * 4
    found = detect(points)
    assert [cp.index for cp in found] == [16]
    contexts: list[dict[str, object] | None] = [
        {"environment": {"kernel": "6.1", "fs_type": "ext4"}, "labels": {"fs_version": "1"}}
    ] * 16 + [
        {"environment": {"kernel": "6.6", "fs_type": "ext4"}, "labels": {"fs_version": "1"}}
    ] * 12
    snapshot = [dict(c) if c else c for c in contexts]
    (cp,) = attach_causes(found, contexts)
    assert cp.cause == {"environment.kernel": {"before": "6.1", "after": "6.6"}}
    assert cp.cause_index == 16
    assert cp.to_dict()["cause"] == cp.cause
    assert found[0].cause is None and contexts == snapshot  # pure: inputs untouched


def test_attach_causes_tolerates_a_change_located_a_point_off() -> None:
    cp = ChangePoint(10, 1.0, 0.8, -20.0, 0.999, "regression", False, 10)
    contexts = [{"mount": "noatime"}] * 11 + [{"mount": "relatime"}] * 9
    (with_cause,) = attach_causes([cp], contexts)
    assert with_cause.cause_index == 11
    assert with_cause.cause == {"mount": {"before": "noatime", "after": "relatime"}}
    far = [{"mount": "noatime"}] * 15 + [{"mount": "relatime"}] * 5
    assert attach_causes([cp], far)[0].cause is None
    assert attach_causes([cp], [None] * 20)[0].cause is None


class _Read(list[dict[str, int]]):
    """Contexts that record which of them were read."""

    def __init__(self, count: int) -> None:
        super().__init__({"at": i} for i in range(count))
        self.read: set[int] = set()

    def __getitem__(self, index: Any) -> Any:
        self.read.add(index)
        return super().__getitem__(index)


@pytest.mark.parametrize("count", [8, 9, 20])
def test_context_indices_are_the_contexts_attach_causes_reads(count: int) -> None:
    """A check reads the labels and environments of `context_indices` alone: they must be
    every context attach_causes may look at, whatever the change points (at the edges too, two
    close together)."""

    def cp(index: int) -> ChangePoint:
        return ChangePoint(index, 1.0, 0.8, -20.0, 0.999, "regression", False, count - index)

    cases = [[cp(i)] for i in range(count)] + [[cp(4), cp(6)], [cp(0), cp(count - 1)], []]
    for cps in cases:
        # No context differing from the one before: each change point looks at every offset.
        same = _Read(count)
        same[:] = [{"at": 0}] * count
        attach_causes(cps, same)
        assert same.read == set(context_indices(cps, count)), cps
        # Each one differing: each change point stops at the first offset it may look at.
        differing = _Read(count)
        attach_causes(cps, differing)
        assert differing.read <= same.read, cps


def test_context_changes_reports_added_and_removed_keys() -> None:
    assert context_changes({"a": 1, "b": {"c": 2}}, {"b": {"c": 3}, "d": 4}) == {
        "a": {"before": 1, "after": None},
        "b.c": {"before": 2, "after": 3},
        "d": {"before": None, "after": 4},
    }


@pytest.mark.parametrize("noise", ["gaussian", "student_t", "outliers"])
@pytest.mark.parametrize(("before", "low"), [(40, 12), (60, 15)])
def test_a_short_excursion_is_found_at_both_edges(noise: Noise, before: int, low: int) -> None:
    """Down for a dozen runs, then back (a regression fixed soon after): both edges are found
    although they cancel in a scan of the whole series. (Known weakness: in histories under
    about 50 points, or with bimodal noise, such an excursion is often missed.)"""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        s = series(rng, before + low + 10, noise, changes=[(before, -8.0), (before + low, 8.0)])
        found = detect(s.points)
        assert near(found, before) and near(found, before + low), (seed, found)
        kinds = {cp.index: cp.kind for cp in found}
        assert kinds[min(kinds)] == "regression" and kinds[max(kinds)] == "improvement"
