"""HTTP route of a confirmation job's rounds (the agent holding the job)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Path

from perfatlas.api.deps import AgentPrincipal, SessionDep, SettingsDep, json_body
from perfatlas.auth.service import check_runs_agents
from perfatlas.confirm.schemas import RoundIn, RoundOut
from perfatlas.core.inputs import INT32_MAX
from perfatlas.flows import confirmation

router = APIRouter(tags=["jobs"])
JobId = Annotated[int, Path(ge=1, le=INT32_MAX)]


@router.post(
    "/jobs/{job_id}/rounds",
    operation_id="report_confirmation_round",
    response_model=RoundOut,
)
def report_round(
    job_id: JobId,
    body: Annotated[RoundIn, json_body(RoundIn)],
    session: SessionDep,
    settings: SettingsDep,
    principal: AgentPrincipal,
    background: BackgroundTasks,
) -> RoundOut:
    """One round of a confirmation job (its runs, every variant's): stored out of the series'
    history and judged with the rounds before; says the verdict once there is one and whether
    to run another round. A repeated round is harmless. 409 lease_lost."""
    assert principal.agent is not None
    check_runs_agents(principal, [run.agent for run in body.runs])
    return confirmation.report_round(
        session, settings, background, job_id=job_id, agent=principal.agent, body=body
    )
