"""A confirmation job's runs for one metric: each with its variant (baseline or candidate) and
its samples."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from perfatlas.jobs.models import Job
from perfatlas.runs.models import Result, Run


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
