"""An alert's confirmation as the API shows it: its newest confirmation job, the job's runs
(with their variant and value of the alert's metric) and what the last round found."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.alerts.models import Alert
from perfatlas.confirm.schemas import ConfirmationRead, ConfirmationRun
from perfatlas.confirm.service import job_samples, rounds_max
from perfatlas.jobs.enums import JobKind
from perfatlas.jobs.models import Job


def confirmations(session: Session, alerts: Sequence[Alert]) -> dict[int, ConfirmationRead]:
    """By alert id, for the alerts that have a confirmation job (a page: one query for the
    jobs, one per confirmed alert for its runs)."""
    if not alerts:
        return {}
    by_id = {a.id: a for a in alerts}
    newest: dict[int, Job] = {}
    for job in session.scalars(
        select(Job)
        .where(Job.alert_id.in_(list(by_id)), Job.kind == JobKind.confirm.value)
        .order_by(Job.id)
    ):
        assert job.alert_id is not None
        newest[job.alert_id] = job
    out = {}
    for alert_id, job in newest.items():
        plan = job.plan or {}
        found = (job.progress or {}).get("confirmation") or {}
        runs = [
            ConfirmationRun(
                uuid=run.uuid, variant=variant or "other", median=value, samples=samples
            )
            for run, variant, samples, value in job_samples(
                session, job, by_id[alert_id].series.metric
            )
        ]
        out[alert_id] = ConfirmationRead(
            job_id=job.id,
            status=job.status,
            verdict=job.verdict,
            mode="baseline" if plan.get("mode") == "baseline" else "history",
            note=plan.get("note"),
            rounds=int((job.progress or {}).get("rounds") or 0),
            rounds_max=rounds_max(plan),
            runs=runs,
            candidate_median=found.get("candidate_median"),
            baseline_median=found.get("baseline_median"),
            change_pct=found.get("change_pct"),
            ci=found.get("ci"),
            plan=plan,
        )
    return out
