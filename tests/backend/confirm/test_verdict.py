"""The confirmation's verdict on planted samples, and the plan's variants. The expected
changes are computed here from the medians, independently of compare.stats."""

from __future__ import annotations

import random
import statistics

import pytest

from perfatlas.confirm.plan import BASELINE, CANDIDATE, substituted, variants
from perfatlas.confirm.verdict import SAME_ROUNDS, judge
from perfatlas.core.workload import WorkloadSpec
from perfatlas.jobs.enums import Verdict

BUDGET = {"rounds_max": 6, "minutes_max": 30.0}


def noisy(level: float, n: int, spread: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [level * (1 + rng.uniform(-spread, spread)) for _ in range(n)]


def pct(base: list[float], cand: list[float]) -> float:
    b, c = statistics.median(base), statistics.median(cand)
    return (c - b) / abs(b) * 100.0


def test_a_candidate_20_percent_slower_is_different_after_one_round() -> None:
    baseline, candidate = noisy(1000, 3, 0.01, 1), noisy(800, 3, 0.01, 2)
    found = judge(
        baseline=baseline, candidate=candidate, direction="higher", min_effect_pct=5.0,
        detected_pct=-20.0, rounds=1, minutes=0.5, **BUDGET,
    )  # fmt: skip
    assert found.verdict == Verdict.different and not found.go_on
    assert found.change is not None
    assert found.change.change_pct == pytest.approx(pct(baseline, candidate))
    assert found.change.change_pct == pytest.approx(-20.0, abs=2.5)
    # "lower is better": a time 20 % longer is the same regression.
    times = judge(
        baseline=noisy(1.0, 3, 0.01, 3), candidate=noisy(1.2, 3, 0.01, 4), direction="lower",
        min_effect_pct=5.0, detected_pct=20.0, rounds=1, minutes=0.5, **BUDGET,
    )  # fmt: skip
    assert times.verdict == Verdict.different


def test_one_slow_run_re_run_is_the_same_as_the_history() -> None:
    """History of 12 runs at 1000 (3 repetitions each); the re-run candidate is back at 1000."""
    history = [x for i in range(12) for x in noisy(1000, 3, 0.01, 10 + i)]
    candidate = noisy(1000, 3, 0.01, 99)
    found = judge(
        baseline=history, candidate=candidate, direction="higher", min_effect_pct=5.0,
        detected_pct=-20.0, rounds=1, minutes=0.5, **BUDGET,
    )  # fmt: skip
    assert found.verdict == Verdict.same and not found.go_on
    assert found.change is not None and found.change.ci_low_pct is not None
    assert found.change.ci_low_pct > -5.0 and found.change.ci_high_pct < 5.0
    assert found.change.change_pct == pytest.approx(pct(history, candidate))


def test_noisy_samples_go_on_then_are_unknown_when_the_budget_is_out() -> None:
    baseline, candidate = noisy(1000, 3, 0.4, 5), noisy(950, 3, 0.4, 6)
    common = {"baseline": baseline, "candidate": candidate, "direction": "higher",
              "min_effect_pct": 5.0, "detected_pct": -20.0}  # fmt: skip
    first = judge(**common, rounds=1, minutes=1.0, **BUDGET)
    assert first.verdict is None and first.go_on
    assert first.change is not None and first.change.verdict == "noise"
    assert judge(**common, rounds=6, minutes=3.0, **BUDGET).verdict == Verdict.unknown
    timed_out = judge(**common, rounds=2, minutes=30.0, **BUDGET)
    assert timed_out.verdict == Verdict.unknown and not timed_out.go_on
    # Too few samples to test at all: another round, until the budget.
    few = judge(
        baseline=[1000.0], candidate=[800.0], direction="higher", min_effect_pct=5.0,
        detected_pct=-20.0, rounds=1, minutes=0.1, **BUDGET,
    )  # fmt: skip
    assert few.verdict is None and few.go_on and few.change is not None
    assert few.change.verdict == "few"


def test_noise_after_three_rounds_is_the_same_only_when_it_rules_out_the_detected_step() -> None:
    baseline, candidate = noisy(1000, 9, 0.08, 7), noisy(990, 9, 0.08, 8)
    common = {"baseline": baseline, "candidate": candidate, "direction": "higher",
              "min_effect_pct": 5.0, "minutes": 2.0, **BUDGET}  # fmt: skip
    change = judge(**common, detected_pct=-20.0, rounds=1).change
    assert change is not None and change.verdict == "noise"
    assert change.ci_low_pct is not None and -20.0 < change.ci_low_pct < -5.0
    assert judge(**common, detected_pct=-20.0, rounds=SAME_ROUNDS - 1).verdict is None
    assert judge(**common, detected_pct=-20.0, rounds=SAME_ROUNDS).verdict == Verdict.same
    # A detected step inside the interval is not ruled out: no answer yet.
    small = judge(**common, detected_pct=change.ci_low_pct / 2, rounds=SAME_ROUNDS)
    assert small.verdict is None


def test_a_better_candidate_is_the_same() -> None:
    found = judge(
        baseline=noisy(1000, 3, 0.01, 1), candidate=noisy(1200, 3, 0.01, 2), direction="higher",
        min_effect_pct=5.0, detected_pct=-20.0, rounds=1, minutes=0.1, **BUDGET,
    )  # fmt: skip
    assert found.verdict == Verdict.same


SPEC = WorkloadSpec.model_validate(
    {"workload": "command", "targets": ["/mnt/a"],
     "params": {"cmd": "bench --v {version} --out {{literal}}", "metric": "ops"}}
)  # fmt: skip


def test_a_label_the_command_substitutes_makes_the_baseline_runnable() -> None:
    assert substituted(SPEC.params) == {"version"}
    chosen, note = variants(SPEC, {"version": "2", "mode": "x"}, {"version": "1", "mode": "x"})
    assert chosen == [
        {"name": CANDIDATE, "labels": {"version": "2", "mode": "x"}},
        {"name": BASELINE, "labels": {"version": "1", "mode": "x"}},
    ]
    assert "version=1" in note


def test_otherwise_the_candidate_is_compared_with_the_history() -> None:
    same, note = variants(SPEC, {"version": "1"}, {"version": "1"})
    assert [v["name"] for v in same] == [CANDIDATE] and "history" in note
    other, note = variants(SPEC, {"build": "b2"}, {"build": "b1"})
    assert [v["name"] for v in other] == [CANDIDATE] and "build" in note
