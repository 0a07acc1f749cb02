"""What both compares share: which metrics, in which order, with which warnings and flags."""

from __future__ import annotations

import fnmatch
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from perfatlas.compare.schemas import ChangeRead, Difference
from perfatlas.core.errors import Invalid
from perfatlas.core.significance import VERDICTS, Change
from perfatlas.core.trust import REASONS, flag_names

TENTATIVE = "tentative_alert"
MAX_PATTERNS = 100


def plain_text(field: str, values: Iterable[str]) -> None:
    """Query text the database can hold: PostgreSQL refuses a NUL byte in any string (a 500
    if it got that far), and no name or value here is longer than a target path."""
    for value in values:
        if "\x00" in value:
            raise Invalid(field, "contains a NUL byte")
        if len(value) > 1024:
            raise Invalid(field, "longer than 1024 characters")


def metric_patterns(items: Sequence[str]) -> list[str]:
    """`metric` as given: repeated, comma-separated, or both; names or globs (`*.seconds`)."""
    patterns = [part.strip() for item in items for part in item.split(",") if part.strip()]
    if len(patterns) > MAX_PATTERNS:
        raise Invalid("metric", f"at most {MAX_PATTERNS} metrics or patterns")
    for pattern in patterns:
        if len(pattern) > 128:
            raise Invalid("metric", f"{pattern[:20]!r}…: a metric or pattern has at most 128 chars")
    return patterns


def select_metrics(available: Iterable[str], patterns: Sequence[str], *, where: str) -> set[str]:
    """The metrics the patterns name (every one when there is none); a pattern that matches
    nothing is an error, so a typo does not silently show an empty table."""
    names = set(available)
    if not patterns:
        return names
    chosen: set[str] = set()
    for pattern in patterns:
        matched = {n for n in names if fnmatch.fnmatchcase(n, pattern)}
        if not matched:
            raise Invalid("metric", f"{pattern!r} matches no metric of {where}")
        chosen |= matched
    return chosen


def phase_order(runs: Iterable[Iterable[tuple[str, int]]]) -> list[str]:
    """Metrics in the order a workload runs its phases (create, read_cold, read_warm, stat,
    delete), not the alphabet, from each run's (metric, result id): the agent uploads a run's
    results in phase order and ids are assigned in upload order (COPY and INSERT alike). A
    metric comes before another when more runs that have both put it first, so runs with fewer
    phases (a reference table without `stat`) do not move the others; between metrics no run
    orders, the earliest rank first."""
    sequences = Counter(
        tuple(metric for metric, _ in sorted(results, key=lambda item: item[1])) for results in runs
    )
    lowest: dict[str, int] = {}
    total: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    before: dict[tuple[str, str], int] = defaultdict(int)
    for sequence, times in sequences.items():
        for i, a in enumerate(sequence):
            lowest[a] = min(lowest.get(a, i), i)
            total[a] += i * times
            count[a] += times
            for b in sequence[i + 1 :]:
                before[(a, b)] += times
    remaining = sorted(lowest, key=lambda m: (lowest[m], total[m] / count[m], m))
    out: list[str] = []
    while remaining:
        pick = next(
            (m for m in remaining
             if not any(before[(n, m)] > before[(m, n)] for n in remaining if n != m)),
            remaining[0],  # phases ordered in a cycle: the earliest
        )  # fmt: skip
        out.append(pick)
        remaining.remove(pick)
    return out


def flags_of(masks: Iterable[int], *, tentative: bool) -> list[str]:
    mask = 0
    for m in masks:
        mask |= m
    names = flag_names(mask)
    return [*names, TENTATIVE] if tentative else names


def change_read(change: Change) -> ChangeRead:
    return ChangeRead(
        change_pct=change.change_pct, ci_low_pct=change.ci_low_pct,
        ci_high_pct=change.ci_high_pct, n_base=change.n_base, n=change.n,
        verdict=change.verdict, reason=change.reason,
    )  # fmt: skip


def reasons() -> dict[str, str]:
    return {**REASONS, **{f"verdict.{k}": v for k, v in VERDICTS.items()}}


def differences(items: Sequence[Mapping[str, Any]]) -> list[Difference]:
    keys = sorted({k for item in items for k in item})
    return [
        Difference(key=k, values=[item.get(k) for item in items])
        for k in keys
        if len({repr(item.get(k)) for item in items}) > 1
    ]


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return "/".join(_shown(v) for v in value) if value else "none"
    return (
        "unknown"
        if value is None
        else str(value).lower()
        if isinstance(value, bool)
        else str(value)
    )


def durability_warning(durability: Sequence[Difference], *, what: str) -> str | None:
    """Why these runs or groups are not comparable as equals (seed 004), or None."""
    if not durability:
        return None
    named = ", ".join(f"{d.key} ({' vs '.join(_shown(v) for v in d.values)})" for d in durability)
    keys = {d.key for d in durability}
    why = []
    if keys & {"memory_backed", "flush_to_device"}:
        why.append(
            "an fsync on memory (tmpfs) or on a device whose flushes are dropped returns "
            "without reaching stable storage"
        )
    if "write_cache" in keys:
        why.append("a write cache in write-back mode acknowledges writes before they are stable")
    why.append(
        "a faster result that skipped a flush or read from cache is not comparable to a safe, cold one"
    )
    because = "; ".join(why)
    return f"These {what} differ in durability or cache handling: {named}. {because[0].upper()}{because[1:]}."


DURABLE = "durable"
_VOLATILE = {
    "memory_backed": "is memory-backed (memory_backed=true)",
    "no_flush": "does not flush to the device (flush_to_device=false)",
}


def durability_kind(memory_backed: bool | None, flush_to_device: bool | None) -> str:
    """What an fsync of a run reached: memory, a device that drops flushes, or (unknown
    counted as such) a device."""
    if memory_backed:
        return "memory_backed"
    if flush_to_device is False:
        return "no_flush"
    return DURABLE


def durability_gap(base: set[str], side: set[str]) -> str | None:
    """Why a side is not comparable with the baseline (one side's fsyncs never reach stable
    storage and the other's do), or None. Durability comes first: such a difference is the
    medium's, never a better or worse version, so no verdict is given."""
    v_base, v_side = base - {DURABLE}, side - {DURABLE}
    if (DURABLE in base) == (DURABLE in side) and bool(v_base) == bool(v_side):
        return None
    if bool(v_side) != bool(v_base):
        kinds = sorted(v_side or v_base)
        one, other = ("this side", "the baseline") if v_side else ("the baseline", "this side")
        negation = "is not" if "memory_backed" in kinds else "does"
        what = f"{one} {' and '.join(_VOLATILE[k] for k in kinds)}, {other} {negation}"
    else:
        what = "one side mixes runs that reach stable storage with runs that do not"
    return f"not comparable (durability): {what}"
