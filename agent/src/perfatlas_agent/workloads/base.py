"""What every workload provides to the sweep (measure/sweep.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from perfatlas_agent.measure.attachments import AttachmentFile
from perfatlas_agent.measure.calibrate import Knob, Room
from perfatlas_agent.measure.metrics import CacheDropper, Metric
from perfatlas_agent.measure.params import ParamSpec, ParamValue


@dataclass
class RunContext:
    """One run (one point of a sweep): its folder, parameters, environment and helpers."""

    workdir: Path
    params: dict[str, ParamValue]
    env: dict[str, Any]
    cold: CacheDropper
    # The run's labels (a command substitutes them like parameters).
    labels: dict[str, str] = field(default_factory=dict)
    on_phase: Callable[[str], None] = lambda _name: None
    meta: dict[str, Any] = field(default_factory=dict)
    cold_methods: set[str] = field(default_factory=set)
    scratch: dict[str, Any] = field(default_factory=dict)

    def phase(self, name: str) -> None:
        self.on_phase(name)

    def make_cold(self, root: Path, files: Callable[[], Any] | None = None) -> str:
        method = self.cold.make_cold(root, files)
        self.cold_methods.add(method)
        return method


class Workload:
    name: ClassVar[str]
    description: ClassVar[str]
    params: ClassVar[tuple[ParamSpec, ...]]
    accepts_extra_params: ClassVar[bool] = False

    def check(self, params: dict[str, ParamValue]) -> None:
        """Refuse parameters or a machine this workload cannot use (raise ParameterError)."""

    def unused(self, params: dict[str, ParamValue]) -> set[str]:
        """Parameters this point of a sweep does not use: they are removed before it runs and
        not stored on its run (a value that changed nothing must not split a series), and the
        points that differ only by them run once (tar is single threaded: one tar run, not one
        per threads value)."""
        return set()

    def skip(self, params: dict[str, ParamValue]) -> str | None:
        """Why this point of a sweep cannot run (it is left out), or None."""
        return None

    def check_labels(self, params: dict[str, ParamValue], labels: dict[str, str]) -> None:
        """Refuse labels this workload cannot take beside these parameters (ParameterError)."""

    def prepare(self, ctx: RunContext) -> None:
        """Untimed setup once per run; may resolve parameters (threads=auto) in ctx.params."""

    def rep(self, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
        """One repetition in a fresh folder; returns every metric of this repetition."""
        raise NotImplementedError  # abstract: every workload module defines its repetition

    def attachments(self, ctx: RunContext) -> list[AttachmentFile]:
        """Files to keep with the run (script, raw latencies, tool output), most useful first;
        called once the repetitions are done, before cleanup(), for failed runs too."""
        return []

    def cleanup(self, ctx: RunContext) -> None:
        """Remove what prepare() made (the sweep removes the run folder itself)."""

    def durability(self, params: dict[str, ParamValue]) -> dict[str, Any]:
        """fsync_policy / o_direct of this run, as recorded on the run."""
        return {}

    def knobs(self, params: dict[str, ParamValue]) -> tuple[Knob, ...]:
        """The parameters --min-seconds may grow, and the timed phases each one scales."""
        return ()

    def limits(self, params: dict[str, ParamValue], room: Room) -> dict[str, int]:
        """The largest value of each knob that the target has room for."""
        return {}
