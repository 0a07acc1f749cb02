"""A confirmation's verdict from the samples so far: pure, so it is checked on planted samples.

The test is core.significance.compare_samples (the baseline, or the history before the change,
against the re-run candidate; a percentile bootstrap of the change of the medians):
- "worse" (in the series' direction, by at least the rule's minimum change): DIFFERENT;
- the change's 95 % interval lies inside ± the minimum change: SAME;
- "better": SAME (the candidate is not slower than what it is compared with);
- "noise" after at least SAME_ROUNDS rounds, when the interval also rules out a change as
  large as the one detection saw: SAME (the detected step is not reproduced);
- otherwise another round, until the budget (rounds or minutes) runs out: UNKNOWN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfatlas.core.significance import Change, compare_samples
from perfatlas.jobs.enums import Verdict

SAME_ROUNDS = 3


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: Verdict | None  # None: not yet
    go_on: bool  # run another round
    change: Change | None


def _worst_end(change: Change, direction: str) -> float:
    """How much worse than the baseline the interval allows (percent, ≥ 0)."""
    assert change.ci_low_pct is not None and change.ci_high_pct is not None
    worst = -change.ci_low_pct if direction == "higher" else change.ci_high_pct
    return max(0.0, worst)


def judge(
    *,
    baseline: Sequence[float],
    candidate: Sequence[float],
    direction: str,
    min_effect_pct: float,
    detected_pct: float | None,
    rounds: int,
    rounds_max: int,
    minutes: float,
    minutes_max: float,
) -> Judgement:
    """The verdict after `rounds` rounds taking `minutes` minutes (None: run another round)."""
    change = (
        compare_samples(baseline, candidate, direction=direction, min_effect_pct=min_effect_pct)
        if baseline and candidate
        else None
    )
    if change is not None and change.ci_low_pct is not None and change.ci_high_pct is not None:
        inside = -min_effect_pct < change.ci_low_pct and change.ci_high_pct < min_effect_pct
        if change.verdict == "worse":
            return Judgement(Verdict.different, False, change)
        if inside or change.verdict == "better":
            return Judgement(Verdict.same, False, change)
        detected = abs(detected_pct) if detected_pct is not None else min_effect_pct
        if (
            change.verdict == "noise"
            and rounds >= SAME_ROUNDS
            and _worst_end(change, direction) < detected
        ):
            return Judgement(Verdict.same, False, change)
    if rounds >= rounds_max or minutes >= minutes_max:
        return Judgement(Verdict.unknown, False, change)
    return Judgement(None, True, change)
