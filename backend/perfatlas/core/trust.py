"""Trust flags: why a stored number may not mean what it seems, kept beside it.

Each result carries a bitmask computed at ingest from its run's own record (the agent's
per-repetition load and pressure snapshots, its short-phase list) and its repetition count;
readers aggregate the masks (a point is flagged when any result behind it is) and show the
reasons. A tentative alert is not stored here: it changes as history arrives, so readers
look it up when they answer."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

SHORT_PHASE = 1
BUSY = 2
FEW_REPETITIONS = 4
# A confirmation job's run (runs.confirming): readers of a series' history leave it out.
CONFIRMING = 8
# Published figures entered by hand (runs.reference, references/): shown with the history,
# marked, but never detection's points nor an alert's baseline.
REFERENCE = 16
# The results detection, stopped-series checks and alert baselines leave out.
NOT_DETECTED = CONFIRMING | REFERENCE

FLAG_NAMES: dict[int, str] = {
    SHORT_PHASE: "short_phase",
    BUSY: "busy",
    FEW_REPETITIONS: "few_repetitions",
    CONFIRMING: "confirming",
    REFERENCE: "reference",
}
# The reasons a user reads on hover, by flag name ("tentative_alert" is added by readers).
REASONS: dict[str, str] = {
    "short_phase": "a timed phase lasted under 0.5 s: too short to trust (grow the work, "
    "e.g. perfatlas-agent run --min-seconds)",
    "busy": "the machine was busy while it ran (load above 1.5 x its cores, or memory "
    "pressure of 10 % or more, before or after a repetition)",
    "few_repetitions": "fewer than 3 repetitions: no spread to judge noise by",
    "confirming": "a confirmation job's run (re-running a candidate regression): kept out "
    "of the series' history",
    "reference": "published figures entered by hand from their source (a reference run): "
    "shown for comparison, never used by detection or as an alert's baseline",
    "tentative_alert": "its series has a tentative alert: a possible change that more runs "
    "will confirm or withdraw",
}
MIN_REPETITIONS = 3
BUSY_LOAD_PER_CORE = 1.5
BUSY_MEMORY_PRESSURE = 10.0


def flag_names(mask: int) -> list[str]:
    return [name for bit, name in FLAG_NAMES.items() if mask & bit]


def _phases(meta: Mapping[str, Any]) -> list[str]:
    phases = meta.get("short_phases")
    if not isinstance(phases, list):
        return []
    return [p for p in phases if isinstance(p, str) and p]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def busy(meta: Mapping[str, Any], cores: int | None) -> bool:
    """Whether any measured repetition started or ended on a busy machine."""
    reps = meta.get("reps")
    if not isinstance(reps, list):
        return False
    for rep in reps:
        if not isinstance(rep, dict) or rep.get("warmup"):
            continue
        for side in ("before", "after"):
            snap = rep.get(side)
            if not isinstance(snap, dict):
                continue
            memory = _number(snap.get("pressure_memory_some_avg10"))
            if memory is not None and memory >= BUSY_MEMORY_PRESSURE:
                return True
            load = _number(snap.get("loadavg_1m"))
            # The load after a repetition includes the workload's own threads: only the
            # load before one says the machine was busy with something else.
            if (
                side == "before"
                and load is not None
                and cores
                and load > BUSY_LOAD_PER_CORE * cores
            ):
                return True
    return False


def run_flags(meta: Mapping[str, Any], cores: int | None) -> tuple[int, list[str]]:
    """The run-wide bits and the phases that were too short."""
    return (BUSY if busy(meta, cores) else 0), _phases(meta)


def result_flags(metric: str, n: int, run_bits: int, short_phases: Iterable[str]) -> int:
    mask = run_bits
    if n < MIN_REPETITIONS:
        mask |= FEW_REPETITIONS
    for phase in short_phases:
        if metric == phase or metric.startswith(phase + "."):
            mask |= SHORT_PHASE
            break
    return mask


class Measured(Protocol):
    """A result as uploaded (runs.schemas.ResultCreate): its metric and its samples."""

    @property
    def metric(self) -> str: ...

    @property
    def samples(self) -> Sequence[float]: ...


def results_flags(
    results: Iterable[Measured], run_bits: int, short_phases: Sequence[str]
) -> Iterator[int]:
    """`result_flags` of each of a run's results (a value alone is one repetition); with no
    short phase, only the repetitions count, and no call is made per result (ingest runs this
    for every result of every upload)."""
    if short_phases:
        return (
            result_flags(r.metric, len(r.samples) or 1, run_bits, short_phases) for r in results
        )
    few = run_bits | FEW_REPETITIONS
    return (few if (len(r.samples) or 1) < MIN_REPETITIONS else run_bits for r in results)


def notes(
    results: Iterable[tuple[str, int]], tentative: Iterable[str] = ()
) -> list[tuple[str, str, list[str]]]:
    """(flag, reason, metrics) for each flag that any of the (metric, mask) pairs carries,
    plus the metrics whose series have a tentative alert."""
    by_flag: dict[str, list[str]] = {}
    for metric, mask in results:
        for name in flag_names(mask):
            by_flag.setdefault(name, []).append(metric)
    tentative = sorted(tentative)
    if tentative:
        by_flag["tentative_alert"] = tentative
    return [(flag, REASONS[flag], sorted(metrics)) for flag, metrics in by_flag.items()]
