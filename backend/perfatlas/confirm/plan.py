"""Which new regressions are confirmed before they alert, and how: a series that a schedule
feeds (its change run's or newest run's job has a schedule, the agent that ran it is enrolled
and not revoked) is re-run by that agent with a narrowed spec: one target, each parameter
fixed to the series' value, the candidate run's labels.

The baseline (the series before the change) can be re-run when the candidate and the previous
run differ in a label that a string parameter substitutes (`{version}` in a `command`'s cmd):
the agent runs the old one by setting that label. Otherwise the candidate is re-run alone and
compared with the series' history before the change."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.core.workload import WorkloadSpec
from perfatlas.jobs.models import Job
from perfatlas.runs.models import Run, Series
from perfatlas.schedules.models import Schedule

ROUNDS_MAX = 6
MINUTES_MAX = 30.0
CANDIDATE = "candidate"
BASELINE = "baseline"
# A `{name}` placeholder in a string parameter (`{{` is a literal brace).
_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_.\-]*)\}")


@dataclass(frozen=True)
class Confirmation:
    """What detection queues instead of opening the alert."""

    agent: Agent
    spec: WorkloadSpec
    plan: dict[str, Any]


def substituted(params: dict[str, Any]) -> set[str]:
    """The names a spec's string parameters substitute (`{version}` in a cmd)."""
    names: set[str] = set()
    for given in params.values():
        for value in given if isinstance(given, list) else [given]:
            if isinstance(value, str):
                names.update(_PLACEHOLDER.findall(value))
    return names


def _scheduled_job(session: Session, runs: Sequence[Run]) -> Job | None:
    """The first of these runs' jobs that a schedule (still there) fired."""
    for run in runs:
        if run.job_id is None:
            continue
        job = session.get(Job, run.job_id)
        if job is None or job.schedule_id is None:
            continue
        if session.get(Schedule, job.schedule_id) is not None:
            return job
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    return str(a) == str(b)


def _narrowed(spec: WorkloadSpec, series: Series, labels: dict[str, str]) -> WorkloadSpec | None:
    """The spec for the series alone: its target, each swept parameter at the series' value
    (one of the sweep's values; None when the series names none of them). A fixed parameter
    keeps the spec's value: a run records it as the agent read it (a long command cut short)."""
    params: dict[str, Any] = {}
    for name, given in spec.params.items():
        if not isinstance(given, list):
            params[name] = given
            continue
        mine = series.parameters.get(name)
        chosen = [value for value in given if _same(value, mine)]
        if len(given) == 1:
            chosen = given
        if not chosen:
            return None
        params[name] = chosen[0]
    try:
        return WorkloadSpec.model_validate(
            {
                **spec.model_dump(mode="json"),
                "targets": [series.target],
                "params": params,
                "labels": labels,
            }
        )
    except ValidationError:
        return None


def variants(
    spec: WorkloadSpec, candidate: dict[str, str], previous: dict[str, str] | None
) -> tuple[list[dict[str, Any]], str]:
    """The plan's variants (candidate, and baseline when it can be run) and a note saying why."""
    first = {"name": CANDIDATE, "labels": dict(candidate)}
    if previous is None:
        return [first], "no run before the change: the candidate is compared with nothing"
    differ = sorted(
        k for k in set(candidate) | set(previous) if candidate.get(k) != previous.get(k)
    )
    if not differ:
        return [first], (
            "the labels did not change: the candidate is re-run and compared with the "
            "series' history before the change (a changed environment, such as a kernel or "
            "mount options, cannot be re-run here)"
        )
    runnable = [k for k in differ if k in substituted(spec.params) and k in previous]
    if not runnable:
        return [first], (
            f"the labels that changed ({', '.join(differ)}) are not substituted by the spec's "
            "parameters: the candidate is re-run and compared with the series' history"
        )
    # The previous run's labels: what was measured before the change.
    baseline = dict(previous)
    note = f"baseline re-run with {', '.join(f'{k}={previous[k]}' for k in runnable)}"
    return [first, {"name": BASELINE, "labels": baseline}], note


def plan_for(
    session: Session, *, series: Series, change_run_id: int, previous_run_id: int | None,
    newest_run_id: int, detected_pct: float | None,
) -> Confirmation | None:  # fmt: skip
    """The confirmation of a new regression, or None when no schedule feeds the series (the
    alert then opens at once, as before)."""
    agent = series.agent
    if agent.enrolled_at is None or agent.revoked_at is not None:
        return None
    change = session.get(Run, change_run_id)
    newest = session.get(Run, newest_run_id)
    if change is None or newest is None:
        return None
    job = _scheduled_job(session, [change, newest])
    if job is None:
        return None
    try:
        spec = WorkloadSpec.model_validate(job.spec)
    except ValidationError:
        return None
    candidate = dict(change.labels or {})
    narrowed = _narrowed(spec, series, candidate)
    if narrowed is None:
        return None
    previous = session.get(Run, previous_run_id) if previous_run_id is not None else None
    chosen, note = variants(spec, candidate, dict(previous.labels or {}) if previous else None)
    plan = {
        "variants": chosen,
        "rounds_max": ROUNDS_MAX,
        "minutes_max": MINUTES_MAX,
        "repetitions_per_round": narrowed.repetitions,
        "mode": BASELINE if len(chosen) > 1 else "history",
        "note": note,
        "series_id": series.id,
        "metric": series.metric,
        "detected_pct": detected_pct,
        "schedule_id": job.schedule_id,
    }
    return Confirmation(agent=agent, spec=narrowed, plan=plan)
