"""A confirmation round from the agent holding the job: store its runs (kept out of the
series' history: runs.confirming), judge every run of the job so far, and settle the alert
as soon as there is a verdict. In the caller's transaction; a repeated round is harmless
(runs deduplicated by uuid, the first verdict stands)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import and_, func, select, update
from sqlalchemy.orm import Session

from perfatlas.agents.enrollment import enrolled_agent, touch_heartbeat
from perfatlas.alerts.models import Alert, AlertRule
from perfatlas.alerts.rules import thresholds_for
from perfatlas.confirm import service
from perfatlas.confirm.plan import BASELINE, CANDIDATE, MINUTES_MAX, ROUNDS_MAX
from perfatlas.confirm.schemas import RoundIn
from perfatlas.confirm.verdict import Judgement, judge
from perfatlas.core.config import Settings
from perfatlas.core.errors import Invalid
from perfatlas.core.models import utcnow
from perfatlas.core.significance import Change
from perfatlas.core.trust import NOT_DETECTED
from perfatlas.jobs.claim import LEASE_SECONDS
from perfatlas.jobs.enums import JobKind, JobStatus, Verdict
from perfatlas.jobs.lifecycle import LeaseLost, get_job
from perfatlas.jobs.models import Job
from perfatlas.jobs.settle import HELD_VALUES
from perfatlas.runs.ingest import ingest
from perfatlas.runs.models import Result, Run, Series

# Points of the series before the change a candidate-only confirmation compares with.
HISTORY_POINTS = 30


def variant_of(plan: dict[str, Any], labels: dict[str, str]) -> str | None:
    """The plan's variant whose labels the run has (the candidate's first)."""
    for variant in plan.get("variants") or []:
        wanted = variant.get("labels") or {}
        if all(labels.get(k) == v for k, v in wanted.items()):
            return str(variant.get("name"))
    return None


def job_samples(
    session: Session, job: Job, metric: str
) -> list[tuple[Run, str | None, list[float], float]]:
    """(run, variant, samples, value) of the job's runs, oldest first, for one metric."""
    rows = session.execute(
        select(Run, Result.samples, Result.value)
        .join(Result, and_(Result.run_id == Run.id, Result.metric == metric))
        .where(Run.job_id == job.id)
        .order_by(Run.started_at, Run.id)
    ).all()
    plan = job.plan or {}
    return [
        (run, variant_of(plan, dict(run.labels or {})), list(samples or []) or [value], value)
        for run, samples, value in rows
    ]


def history_samples(session: Session, alert: Alert) -> list[float]:
    """The repetitions of the series' newest HISTORY_POINTS points before the change."""
    rows = session.execute(
        select(Result.samples, Result.value)
        .where(
            Result.series_id == alert.series_id,
            Result.started_at < alert.change_at,
            Result.flags.op("&")(NOT_DETECTED) == 0,  # neither confirmations nor references
        )
        .order_by(Result.started_at.desc())
        .limit(HISTORY_POINTS)
    ).all()
    return [float(x) for samples, value in rows for x in (list(samples or []) or [value])]


def _take(session: Session, *, job_id: int, agent_id: int, attempt: int) -> bool:
    """Renew the lease of the agent's attempt (leased → running), as progress does."""
    now = utcnow()
    result = session.execute(
        update(Job)
        .where(
            Job.id == job_id,
            Job.kind == JobKind.confirm.value,
            Job.status.in_(HELD_VALUES),
            Job.attempts == attempt,
            Job.leased_by_id == agent_id,
        )
        .values(
            status=JobStatus.running.value,
            lease_until=now + dt.timedelta(seconds=LEASE_SECONDS),
            started_at=func.coalesce(Job.started_at, now),
        )
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def _summary(change: Change | None, rounds: int) -> dict[str, Any]:
    return {
        "rounds": rounds,
        "candidate_median": change.value if change else None,
        "baseline_median": change.base if change else None,
        "change_pct": change.change_pct if change else None,
        "ci": (
            [change.ci_low_pct, change.ci_high_pct]
            if change and change.ci_low_pct is not None and change.ci_high_pct is not None
            else None
        ),
        "test": change.verdict if change else None,
    }


def evaluate(session: Session, job: Job, *, settings: Settings, rounds: int) -> Judgement:
    """Judge every run of the job so far (and note what was found in its progress)."""
    plan = job.plan or {}
    alert = session.get(Alert, job.alert_id) if job.alert_id is not None else None
    if alert is None:
        return Judgement(Verdict.unknown, False, None)
    series: Series = alert.series
    runs = job_samples(session, job, series.metric)
    candidate = [x for _, v, samples, _ in runs if v == CANDIDATE for x in samples]
    if plan.get("mode") == BASELINE:
        baseline = [x for _, v, samples, _ in runs if v == BASELINE for x in samples]
    else:
        baseline = history_samples(session, alert)
    limits = thresholds_for(
        series, series.agent.name, list(session.scalars(select(AlertRule))), settings
    )
    started = job.started_at or utcnow()
    found = judge(
        baseline=baseline,
        candidate=candidate,
        direction=series.direction,
        min_effect_pct=limits.min_change_pct,
        detected_pct=plan.get("detected_pct"),
        rounds=rounds,
        rounds_max=int(plan.get("rounds_max") or ROUNDS_MAX),
        minutes=(utcnow() - started).total_seconds() / 60.0,
        minutes_max=float(plan.get("minutes_max") or MINUTES_MAX),
    )
    job.progress = {**(job.progress or {}), "confirmation": _summary(found.change, rounds)}
    return found


def record_round(
    session: Session,
    *,
    job_id: int,
    agent_name: str,
    body: RoundIn,
    settings: Settings,
    delays: list[float],
) -> tuple[Verdict | None, bool, bool]:
    """Store one round's runs and judge; returns (verdict, whether to run another round,
    whether the job was cancelled: then no other round, and the runs are kept unjudged)."""
    agent = enrolled_agent(session, name=agent_name)
    job = get_job(session, job_id)
    if job.kind != JobKind.confirm.value:
        raise Invalid("job_id", f"job {job_id} is a {job.kind} job, not a confirmation")
    if not _take(session, job_id=job_id, agent_id=agent.id, attempt=body.attempt):
        raise LeaseLost(
            f"job {job_id}: attempt {body.attempt} no longer holds its lease (the job is "
            f"{job.status}, attempt {job.attempts}); upload its runs through /runs/batch"
        )
    job = get_job(session, job_id)
    runs = []
    for index, run in enumerate(body.runs):
        if run.job_id is not None and run.job_id != job_id:
            raise Invalid(f"body.runs[{index}].job_id", f"is {run.job_id}, not this job {job_id}")
        runs.append(run if run.job_id is not None else run.model_copy(update={"job_id": job_id}))
    if runs:
        ingest(session, runs=runs, ignore_labels=settings.series_ignore_labels)
    touch_heartbeat(session, agent_id=agent.id)
    done = max(body.round, int((job.progress or {}).get("rounds") or 0))
    job.progress = {**(job.progress or {}), "rounds": done}
    if job.verdict is not None or job.cancel_requested_at is not None:
        # Answered already, or cancelled (detection resolved the alert, or a person).
        session.flush()
        verdict = Verdict(job.verdict) if job.verdict is not None else None
        return verdict, False, job.cancel_requested_at is not None
    found = evaluate(session, job, settings=settings, rounds=done)
    if found.verdict is not None:
        service.settle(session, job=job, verdict=found.verdict, settings=settings, delays=delays)
    session.flush()
    return found.verdict, found.go_on, False
