"""HTTP routes of jobs: the agents' protocol (claim, progress, complete, release) and the
people's (list, read, cancel)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Path, Query, Request, Response

from perfatlas.api.deps import (
    AdminPrincipal,
    AgentPrincipal,
    ReadPrincipal,
    SessionDep,
    SettingsDep,
    json_body,
)
from perfatlas.auth.service import check_runs_agents
from perfatlas.core.inputs import INT32_MAX
from perfatlas.core.workload import WorkloadSpec
from perfatlas.flows import job_reads as queries
from perfatlas.flows import jobs
from perfatlas.jobs import claim
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
)
def report_progress(
    job_id: JobId,
    body: Annotated[ProgressIn, json_body(ProgressIn)],
    session: SessionDep,
    principal: AgentPrincipal,
) -> ProgressOut:
    """Progress of the job held (renews the lease); says whether to cancel. 409 lease_lost."""
    assert principal.agent is not None
    return jobs.report_progress(session, job_id=job_id, agent=principal.agent, body=body)


@router.post(
    "/jobs/{job_id}/complete",
    operation_id="complete_job",
    response_model=JobRead,
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
    check_runs_agents(principal, [run.agent for run in body.runs])
    return jobs.complete_job(
        session, settings, background, job_id=job_id, agent=principal.agent, body=body
    )


@router.post(
    "/jobs/{job_id}/release",
    operation_id="release_job",
    response_model=JobRead,
)
def release_job(
    job_id: JobId,
    body: Annotated[ReleaseIn, json_body(ReleaseIn)],
    session: SessionDep,
    principal: AgentPrincipal,
) -> JobRead:
    """Give the job held back to the queue now (the agent is stopping); the attempt counts."""
    assert principal.agent is not None
    return jobs.release_job(session, job_id=job_id, agent=principal.agent, body=body)


@router.post("/jobs/{job_id}/cancel", operation_id="cancel_job", response_model=JobRead)
def cancel_job(
    job_id: JobId, session: SessionDep, settings: SettingsDep, _: AdminPrincipal
) -> JobRead:
    """Cancel a job: a queued one at once; a running one when its agent next reports."""
    return jobs.cancel_job(session, settings, job_id=job_id)


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
