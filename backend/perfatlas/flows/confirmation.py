"""A confirmation across domains: the rounds from the agent holding the job (store their runs,
kept out of the series' history: runs.confirming; judge every run of the job so far), and the
verdict that settles the alert: DIFFERENT opens it (incident, notification as for any new
alert), SAME resolves it `not_confirmed`, UNKNOWN (no answer within the budget, or the job
failed, expired or was cancelled) resolves it `unconfirmed`; neither of the last two is ever
notified. In the caller's transaction; a repeated round is harmless (runs deduplicated by uuid,
the first verdict stands)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from fastapi import BackgroundTasks
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from perfatlas.agents.enrollment import enrolled_agent, touch_heartbeat
from perfatlas.alerts import incidents
from perfatlas.alerts.enums import AlertStatus, Resolution
from perfatlas.alerts.models import Alert, AlertRule
from perfatlas.alerts.rules import thresholds_for
from perfatlas.alerts.status import resolve, set_status
from perfatlas.confirm.plan import BASELINE, CANDIDATE, MINUTES_MAX
from perfatlas.confirm.schemas import RoundIn, RoundOut
from perfatlas.confirm.service import job_samples, rounds_max
from perfatlas.confirm.verdict import Judgement, judge
from perfatlas.core.config import Settings
from perfatlas.core.db import commit_with_retry
from perfatlas.core.errors import Invalid
from perfatlas.core.models import utcnow
from perfatlas.core.significance import Change
from perfatlas.core.trust import NOT_DETECTED
from perfatlas.jobs.claim import LEASE_SECONDS
from perfatlas.jobs.enums import FINAL, JobKind, JobStatus, Verdict
from perfatlas.jobs.lifecycle import LeaseLost, get_job
from perfatlas.jobs.models import Job
from perfatlas.jobs.settle import HELD_VALUES
from perfatlas.notifications.service import queue_sweeps
from perfatlas.runs.ingest import ingest
from perfatlas.runs.models import Result, Series

# Points of the series before the change a candidate-only confirmation compares with.
HISTORY_POINTS = 30
# Who changed an alert's status: the confirmation job.
CONFIRMATION = "confirmation"
# Confirmation jobs a settling pass looks at, at most.
SETTLE_BATCH = 200


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
        rounds_max=rounds_max(plan),
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
        settle(session, job=job, verdict=found.verdict, settings=settings, delays=delays)
    session.flush()
    return found.verdict, found.go_on, False


def report_round(
    session: Session,
    settings: Settings,
    background: BackgroundTasks,
    *,
    job_id: int,
    agent: str,
    body: RoundIn,
) -> RoundOut:
    """One round, committed (retried on a serialization failure); the notifications of a
    verdict that opened the alert are queued once the answer is out."""
    delays: list[float] = []

    def work() -> tuple[Verdict | None, bool, bool]:
        delays.clear()
        return record_round(
            session, job_id=job_id, agent_name=agent, body=body, settings=settings, delays=delays
        )

    verdict, go_on, cancel = commit_with_retry(session, work)
    background.add_task(queue_sweeps, settings, list(delays))
    return RoundOut(verdict=verdict, continue_=go_on, cancel=cancel)


def _note(job: Job, verdict: Verdict) -> str:
    found = (job.progress or {}).get("confirmation") or {}
    pct, ci = found.get("change_pct"), found.get("ci")
    detail = ""
    if pct is not None:
        detail = f": {pct:+.1f} %"
        if ci:
            detail += f" (95 % interval {ci[0]:+.1f} % to {ci[1]:+.1f} %)"
    return f"confirmation job {job.id}: {verdict}{detail}"


def settle(
    session: Session,
    *,
    job: Job,
    verdict: Verdict,
    settings: Settings,
    delays: list[float],
) -> None:
    """Record the job's verdict (the first one stands) and move its alert, if it is still
    confirming (a person or detection may have moved it meanwhile)."""
    if job.verdict is None:
        job.verdict = verdict.value
    verdict = Verdict(job.verdict)
    if job.alert_id is None:
        return
    alert = session.get(Alert, job.alert_id, with_for_update={"of": Alert})
    if alert is None or alert.status != AlertStatus.confirming:
        return
    note = _note(job, verdict)
    if verdict == Verdict.different:
        set_status(alert, AlertStatus.open, by=CONFIRMATION)
        alert.note = alert.note or note
        session.flush()
        incidents.assign(session, alert, alert.series, settings, delays)
    else:
        resolution = Resolution.not_confirmed if verdict == Verdict.same else Resolution.unconfirmed
        resolve(alert, resolution, run_id=None, by=CONFIRMATION)
        alert.note = alert.note or note
    session.flush()


def settle_finished(
    session: Session, *, settings: Settings, delays: list[float], job_ids: Sequence[int] = ()
) -> int:
    """Alerts still confirming whose job is final (completed without a verdict, failed,
    expired, cancelled): their verdict is the job's, or UNKNOWN. Idempotent. Returns how many
    alerts it moved."""
    query = (
        select(Job)
        .join(Alert, Alert.id == Job.alert_id)
        .where(
            Job.kind == JobKind.confirm.value,
            Job.status.in_([s.value for s in FINAL]),
            Alert.status == AlertStatus.confirming.value,
        )
        .order_by(Job.id)
        .limit(SETTLE_BATCH)
    )
    if job_ids:
        query = query.where(Job.id.in_(list(job_ids)))
    moved = 0
    for job in session.scalars(query).all():
        # A newer confirmation of the same alert may still be under way.
        newer = session.scalar(
            select(Job.id).where(
                Job.alert_id == job.alert_id,
                Job.kind == JobKind.confirm.value,
                Job.id > job.id,
            )
        )
        if newer is not None:
            continue
        settle(
            session,
            job=job,
            verdict=Verdict(job.verdict) if job.verdict else Verdict.unknown,
            settings=settings,
            delays=delays,
        )
        moved += 1
    return moved
