"""--min-seconds: grow a run's work until every timed phase lasts long enough to trust.

A calibration repetition runs before the measured ones (and is discarded). For each knob (a
parameter that scales some phases: files, bytes, seeks, passes) the agent takes the phases
whose length that knob decides, the ratio between the target and their measured length, and
multiplies the knob by the next power of two above that ratio (at most 32 per step, and never
past what the filesystem has room for). Then it prepares the run again at the new size and
repeats, until a calibration repetition shows every phase long enough, nothing can grow any
more, or MAX_STEPS. The sizes it settled on are the run's parameters; every step (sizes and
phase lengths) is in `meta.min_seconds_steps`. Powers of two keep the sizes one machine
chooses stable from run to run, so its runs stay in one series."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfatlas_agent.measure.params import ParamValue

if TYPE_CHECKING:  # the workloads name their knobs with this module's types
    from perfatlas_agent.measure.metrics import Metric
    from perfatlas_agent.workloads.base import RunContext, Workload

MARGIN = 1.25  # aim a little above the target, so noise does not put a phase back under it
MAX_STEP_FACTOR = 32
MAX_STEPS = 5
ROOM_SHARE = 0.5  # at most this share of the free space (or memory, on tmpfs) is used


@dataclass(frozen=True)
class Knob:
    """A parameter that scales the timed phases `phases`; `coupled` parameters scale with it
    (partialread grows its file with its reads, so the share of the file read stays the same).
    A phase scaled by several knobs is decided by the last one listed that scales it."""

    param: str
    phases: tuple[str, ...]
    coupled: tuple[str, ...] = ()


@dataclass(frozen=True)
class Room:
    """What the target can hold: free bytes (memory too, on a memory-backed filesystem)."""

    free_bytes: int
    free_inodes: int | None

    @property
    def bytes_budget(self) -> int:
        return int(self.free_bytes * ROOM_SHARE)

    @property
    def inode_budget(self) -> int | None:
        return None if self.free_inodes is None else int(self.free_inodes * ROOM_SHARE)


def measure_room(path: Path, *, memory_backed: bool) -> Room:
    st = os.statvfs(path)
    free = st.f_bavail * st.f_frsize
    if memory_backed:
        free = min(free, _mem_available())
    return Room(free_bytes=free, free_inodes=st.f_favail if st.f_files else None)


def _mem_available() -> int:
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return 1 << 30
    m = re.search(r"^MemAvailable:\s*(\d+) kB", text, re.MULTILINE)
    return int(m.group(1)) * 1024 if m else 1 << 30


def phase_seconds(metrics: dict[str, Any]) -> dict[str, float]:
    """Every timed phase of a repetition: `<phase>.seconds` metrics, or the phase's
    `<phase>.seconds_total` where its seconds are per pass (smallfile's warm phases)."""
    out: dict[str, float] = {}
    for name, m in metrics.items():
        if name.endswith(".seconds"):
            total = metrics.get(f"{name}_total", m)
            out[name.removesuffix(".seconds")] = float(total.value)
    return out


@dataclass
class Plan:
    factors: dict[str, float] = field(default_factory=dict)  # powers of two, or their inverses
    limited: dict[str, str] = field(default_factory=dict)  # phase -> why it cannot grow more

    @property
    def changes(self) -> bool:
        return any(f != 1 for f in self.factors.values())


def plan_growth(
    knobs: list[Knob],
    phases: dict[str, float],
    params: dict[str, ParamValue],
    *,
    limits: dict[str, int],
    floors: dict[str, int],
    min_seconds: float,
) -> Plan:
    """How much each knob changes after a calibration repetition that measured `phases`.

    A knob grows while one of its own phases is short. A knob whose own phases would all last
    over four times the target, because an earlier knob grows in this step, shrinks back as
    far as they stay over twice the target, never below `floors` (its size before
    calibration): smallfile's passes, once nfiles has grown. Phases measured long with no
    growth before them shrink nothing: on a busy machine one slow pass would undo the growth
    the step before made, and the next step would grow it again."""
    plan = Plan()
    target = min_seconds * MARGIN
    owner = {p: k.param for k in knobs for p in k.phases}  # the last knob listed wins
    predicted = dict(phases)
    for knob in knobs:
        own = [p for p in knob.phases if owner.get(p) == knob.param and p in predicted]
        short = [p for p in own if predicted[p] < target]
        current = int(params.get(knob.param, 1))  # a knob left unset (passes) counts as 1
        factor = 1.0
        if short:
            need = max(target / max(predicted[p], 1e-6) for p in short)
            grow = min(2 ** math.ceil(math.log2(need)), MAX_STEP_FACTOR)
            room = max(limits.get(knob.param, current * grow) // max(current, 1), 1)
            if room < grow:
                grow = 2 ** int(math.log2(room)) if room >= 2 else 1
                for p in short:
                    if predicted[p] * grow < target:
                        plan.limited[p] = (
                            f"{knob.param} cannot grow past {current * grow} "
                            "(the free space, inodes or memory of the target)"
                        )
            factor = float(grow)
        elif own and any(predicted[p] > phases[p] for p in own):
            spare = min(predicted[p] for p in own) / target
            above_floor = current // max(floors.get(knob.param, 1), 1)
            # Halve only while the phases stay twice the target after it (hysteresis: a
            # noisy machine must not shrink a knob back under the target).
            if spare >= 4 and above_floor >= 2:
                factor = 1 / min(2 ** int(math.log2(spare / 2)), 2 ** int(math.log2(above_floor)))
        plan.factors[knob.param] = factor
        for p in knob.phases:
            if p in predicted:
                predicted[p] *= factor
    return plan


def apply_growth(knobs: list[Knob], plan: Plan, params: dict[str, ParamValue]) -> None:
    for knob in knobs:
        factor = plan.factors.get(knob.param, 1.0)
        if factor == 1:
            continue
        for name in (knob.param, *knob.coupled):
            params[name] = round(int(params.get(name, 1)) * factor)


def knob_values(knobs: list[Knob], params: dict[str, ParamValue]) -> dict[str, ParamValue]:
    return {n: params[n] for k in knobs for n in (k.param, *k.coupled) if n in params}


def calibrate_run(
    target: float,
    given: set[str],
    workload: Workload,
    ctx: RunContext,
    run_dir: Path,
    *,
    rep: Callable[[Path], dict[str, Metric]],
    say: Callable[[str], None],
    phase: Callable[[str], None],
) -> bool:
    """--min-seconds for one run, after its setup: `rep` runs a repetition in a folder. True
    when the last calibration repetition ran at the sizes the run keeps, so that it can stand
    in for the warm-up. Parameters in `given` (set with --param) are used as given."""
    ctx.meta["min_seconds"] = target
    fixed = sorted({n for k in workload.knobs(ctx.params) for n in (k.param, *k.coupled)} & given)
    knobs = [k for k in workload.knobs(ctx.params) if not {k.param, *k.coupled} & set(fixed)]
    if fixed:
        ctx.meta["min_seconds_fixed"] = fixed  # given with --param: used as given
    if not knobs:
        return False
    room = measure_room(run_dir, memory_backed=bool(ctx.env.get("memory_backed")))
    floors = {n: int(v) for n, v in knob_values(knobs, ctx.params).items()}
    steps: list[dict[str, Any]] = []
    verified = False
    for step in range(MAX_STEPS):
        phase(f"calibrating for --min-seconds {target:g} (step {step + 1})")
        sizes = knob_values(knobs, ctx.params)
        phases = phase_seconds(rep(run_dir / f"calibrate{step}"))
        limits = workload.limits(ctx.params, room)
        plan = plan_growth(
            knobs, phases, ctx.params, limits=limits, floors=floors, min_seconds=target
        )
        steps.append(
            {"sizes": sizes, "phase_seconds": {p: round(v, 4) for p, v in phases.items()},
             "factors": {k: f for k, f in plan.factors.items() if f != 1}}
        )  # fmt: skip
        # Only the last step says what could not be reached (an earlier limit may have passed).
        ctx.meta.pop("min_seconds_unreached", None)
        if plan.limited:
            ctx.meta["min_seconds_unreached"] = plan.limited
        if not plan.changes:
            verified = True
            break
        workload.cleanup(ctx)
        apply_growth(knobs, plan, ctx.params)
        workload.prepare(ctx)
    ctx.meta["min_seconds_steps"] = steps
    ctx.meta["min_seconds_sizes"] = knob_values(knobs, ctx.params)
    chosen = " ".join(f"{k}={v}" for k, v in ctx.meta["min_seconds_sizes"].items())
    short = ctx.meta.get("min_seconds_unreached")
    say(
        f"  --min-seconds {target:g}: {chosen} after {len(steps)} calibration repetition(s)"
        + (f"; no room to lengthen {', '.join(short)}" if short else "")
    )
    return verified
