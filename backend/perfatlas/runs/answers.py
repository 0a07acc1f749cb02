"""A stored run as the API answers it: its summary (the runs list, a page of it), and the whole
run with its results, trust notes and attachments."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence

from sqlalchemy.orm import Session

from perfatlas.core import trust
from perfatlas.runs.models import Run
from perfatlas.runs.queries import list_runs, runs_total
from perfatlas.runs.schemas import (
    AttachmentRead,
    EnvironmentRead,
    ResultRead,
    RunPage,
    RunRead,
    RunSummary,
    TrustNote,
)


def to_summary(run: Run) -> RunSummary:
    return RunSummary(
        uuid=run.uuid, workload=run.workload, agent=run.agent.name, target=run.target,
        parameters=run.parameters, labels=run.labels, started_at=run.started_at,
        finished_at=run.finished_at, status=run.status, fsync_policy=run.fsync_policy,
        o_direct=run.o_direct, sync_mount=run.sync_mount, write_cache=run.write_cache,
        flush_to_device=run.flush_to_device, memory_backed=run.memory_backed,
        cold_method=run.cold_method, environment_id=run.environment_id, job_id=run.job_id,
        reference=run.reference,
    )  # fmt: skip


def runs_page(
    session: Session,
    *,
    workload: str | None,
    agent: str | None,
    status: str | None,
    target: str | None,
    labels: Sequence[str],
    params: Sequence[str],
    since: dt.datetime | None,
    until: dt.datetime | None,
    limit: int,
    cursor: str | None,
) -> RunPage:
    """A page of the runs list, newest first; with the total when only the workload or agent
    filter it (the total is kept for those alone: runs/tallies.py)."""
    found, next_cursor = list_runs(
        session, workload=workload, agent=agent, status=status, target=target, labels=labels,
        params=params, since=since, until=until, limit=limit, cursor=cursor,
    )  # fmt: skip
    counted = not (status or target or labels or params or since or until)
    total = runs_total(session, workload=workload, agent=agent) if counted else None
    return RunPage(items=[to_summary(r) for r in found], next_cursor=next_cursor, total=total)


def to_read(
    run: Run, tentative: Collection[str] = (), files: list[AttachmentRead] | None = None
) -> RunRead:
    return RunRead(
        **to_summary(run).model_dump(),
        environment=EnvironmentRead.model_validate(run.environment) if run.environment else None,
        meta=run.meta,
        results=[ResultRead.model_validate(r) for r in run.results],
        trust=[
            TrustNote(flag=flag, reason=reason, metrics=metrics)
            for flag, reason, metrics in trust.notes(
                [(r.metric, r.flags) for r in run.results], tentative
            )
        ],
        attachments=files or [],
    )
