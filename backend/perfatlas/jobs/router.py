"""HTTP routes of jobs: the agents' protocol (claim, progress, complete, release) and the
people's (list, read, cancel)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Path, Query, Request, Response

from perfatlas.alerts.service import (
    Requested,
    commit_ingest,
    detect_after_ingest,
    request_after_ingest,
)
from perfatlas.api.deps import (
    AdminPrincipal,
    AgentPrincipal,
    ReadPrincipal,
    SessionDep,
    SettingsDep,
    body_schema,
    json_body,
)
from perfatlas.auth.service import check_runs_agents
from perfatlas.confirm import service as confirm
from perfatlas.core.inputs import INT32_MAX
from perfatlas.jobs import claim, lifecycle, queries
from perfatlas.jobs.enums import JobKind, JobStatus
from perfatlas.jobs.schemas import (
    ClaimedJob,
    CompleteIn,
    JobPage,
    JobRead,
    ProgressIn,
    ProgressOut,
    ReleaseIn,
)
from perfatlas.jobs.spec import WorkloadSpec
from perfatlas.notifications.service import queue_sweeps
from perfatlas.runs.ingest import Ingested

router = APIRouter(tags=["jobs"])
JobId = Annotated[int, Path(ge=1, le=INT32_MAX)]


@router.post(
    "/agents/jobs/claim",
    operation_id="claim_job",
    response_model=ClaimedJob,
    responses={204: {"description": "no job arrived within `wait` seconds"}},
)
async def claim_job(
    request: Request,
    principal: AgentPrincipal,
    wait: Annotated[float, Query(ge=0, le=30, description="seconds to wait for a job")] = 25,
) -> ClaimedJob | Response:
    """Long-poll for a job to run (an agent's token): the job under a lease, or 204."""
    assert principal.agent is not None
    claimed = await claim.long_poll(
        request.app.state,
        request.app.state.session_factory,
        name=principal.agent,
        wait=wait,
        gone=request.is_disconnected,
    )
    if claimed is None:
        return Response(status_code=204)
    job = claimed.job
    assert job.lease_until is not None
    return ClaimedJob(
        id=job.id, attempt=claimed.attempt, kind=job.kind,
        spec=WorkloadSpec.model_validate(job.spec), lease_seconds=claim.LEASE_SECONDS,
        lease_until=job.lease_until, progress_every=claim.PROGRESS_EVERY, plan=job.plan,
    )  # fmt: skip


@router.post(
    "/jobs/{job_id}/progress",
    operation_id="report_job_progress",
    response_model=ProgressOut,
    openapi_extra=body_schema(ProgressIn),
)
def report_progress(
    job_id: JobId,
    body: Annotated[ProgressIn, json_body(ProgressIn)],
    session: SessionDep,
    principal: AgentPrincipal,
) -> ProgressOut:
    """Progress of the job held (renews the lease); says whether to cancel. 409 lease_lost."""
    assert principal.agent is not None
    lease_until, cancel = lifecycle.progress(
        session, job_id=job_id, agent_name=principal.agent, body=body
    )
    session.commit()
    return ProgressOut(lease_until=lease_until, cancel=cancel)


@router.post(
    "/jobs/{job_id}/complete",
    operation_id="complete_job",
    response_model=JobRead,
    openapi_extra=body_schema(CompleteIn),
)
def complete_job(
    job_id: JobId,
    body: Annotated[CompleteIn, json_body(CompleteIn)],
    session: SessionDep,
    settings: SettingsDep,
    principal: AgentPrincipal,
    background: BackgroundTasks,
) -> JobRead:
    """Settle the job held and store its runs, in one transaction; a retry is harmless. On
    409 lease_lost nothing is stored: upload the runs through /runs/batch with job_id."""
    assert principal.agent is not None
    agent = principal.agent
    check_runs_agents(principal, [run.agent for run in body.runs])
    delays: list[float] = []

    def work() -> tuple[list[Ingested], Requested]:
        delays.clear()
        _, stored = lifecycle.complete(
            session,
            job_id=job_id,
            agent_name=agent,
            body=body,
            ignore_labels=settings.series_ignore_labels,
        )
        # A confirmation job ended without a verdict: its alert's answer is unknown.
        confirm.settle_finished(session, settings=settings, delays=delays, job_ids=[job_id])
        return stored, request_after_ingest(session, settings, stored)

    stored, requested = commit_ingest(session, work)
    created = sum(1 for s in stored if s.created)
    background.add_task(detect_after_ingest, settings, created, requested)
    background.add_task(queue_sweeps, settings, delays)
    return queries.read_job(session, job_id=job_id)


@router.post(
    "/jobs/{job_id}/release",
    operation_id="release_job",
    response_model=JobRead,
    openapi_extra=body_schema(ReleaseIn),
)
def release_job(
    job_id: JobId,
    body: Annotated[ReleaseIn, json_body(ReleaseIn)],
    session: SessionDep,
    principal: AgentPrincipal,
) -> JobRead:
    """Give the job held back to the queue now (the agent is stopping); the attempt counts."""
    assert principal.agent is not None
    lifecycle.release(session, job_id=job_id, agent_name=principal.agent, body=body)
    session.commit()
    return queries.read_job(session, job_id=job_id)


@router.post("/jobs/{job_id}/cancel", operation_id="cancel_job", response_model=JobRead)
def cancel_job(
    job_id: JobId, session: SessionDep, settings: SettingsDep, _: AdminPrincipal
) -> JobRead:
    """Cancel a job: a queued one at once; a running one when its agent next reports."""
    lifecycle.cancel(session, job_id=job_id)
    confirm.settle_finished(session, settings=settings, delays=[], job_ids=[job_id])
    session.commit()
    return queries.read_job(session, job_id=job_id)


@router.get("/jobs", operation_id="list_jobs", response_model=JobPage)
def list_jobs(
    session: SessionDep,
    _: ReadPrincipal,
    status: JobStatus | None = None,
    agent: Annotated[str | None, Query(max_length=128, description="made for or held by")] = None,
    schedule: Annotated[int | None, Query(ge=1, le=INT32_MAX)] = None,
    kind: JobKind | None = None,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> JobPage:
    """Jobs, newest first, with filters and cursor pagination."""
    return queries.list_jobs(
        session, status=status, agent=agent, schedule=schedule, kind=kind, cursor=cursor,
        limit=limit,
    )  # fmt: skip


@router.get("/jobs/{job_id}", operation_id="get_job", response_model=JobRead)
def get_job(job_id: JobId, session: SessionDep, _: ReadPrincipal) -> JobRead:
    """One job with its progress, log tail and runs."""
    return queries.read_job(session, job_id=job_id)
