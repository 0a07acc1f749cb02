"""A confirmation job's rounds (kind "confirm", with a plan): each round runs the spec once per
variant of the plan, in order (candidate, then baseline: interleaved A B A B), with the
variant's labels, then posts the round's runs to /jobs/{id}/rounds; the server judges all the
rounds so far and says whether to run another. The job is completed afterwards (its runs are
stored already, round by round)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from perfatlas_agent.daemon.progress import Interrupter
from perfatlas_agent.measure.spec import WorkloadSpec
from perfatlas_agent.measure.sweep import run_sweep

ROUNDS_MAX = 6

PostRound = Callable[[int, list[dict[str, Any]]], dict[str, Any]]


def variant_specs(spec: WorkloadSpec, plan: dict[str, Any]) -> list[WorkloadSpec]:
    """The spec with each variant's labels, in the plan's order."""
    return [
        dataclasses.replace(
            spec, labels={str(k): str(v) for k, v in (v.get("labels") or {}).items()}
        )
        for v in plan.get("variants") or []
    ]


def rounds_total(spec: WorkloadSpec, plan: dict[str, Any]) -> int:
    """Runs the rounds make at most (for the progress bar)."""
    variants = max(1, len(plan.get("variants") or []))
    return spec.points() * variants * int(plan.get("rounds_max") or ROUNDS_MAX)


def run_rounds(
    *,
    spec: WorkloadSpec,
    plan: dict[str, Any],
    agent_name: str,
    reporter: Any,
    on_run: Callable[[dict[str, Any]], None],
    interrupter: Interrupter,
    post_round: PostRound,
) -> str | None:
    """Run rounds until the server says stop (its verdict returned), the plan's rounds are
    spent, or the interrupter stops the sweep (None)."""
    specs = variant_specs(spec, plan)
    this_round: list[dict[str, Any]] = []

    def collect(run: dict[str, Any]) -> None:
        on_run(run)
        this_round.append(run)

    for number in range(1, int(plan.get("rounds_max") or ROUNDS_MAX) + 1):
        this_round.clear()
        for variant in specs:
            for request in variant.requests(agent_name=agent_name):
                if interrupter.reason is not None:
                    return None
                interrupter.arm()
                try:
                    run_sweep(request, reporter, collect)
                finally:
                    interrupter.disarm()
        answer = post_round(number, list(this_round))
        if not answer.get("continue", False):
            verdict = answer.get("verdict")
            return str(verdict) if verdict is not None else None
    return None
