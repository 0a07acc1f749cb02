"""HTTP routes of agents: listing, enrollment tokens, enrollment, heartbeat, revocation."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from perfatlas.agents import service
from perfatlas.agents.schemas import (
    AgentRead,
    Enrolled,
    EnrollIn,
    EnrollmentTokenCreate,
    EnrollmentTokenCreated,
    HeartbeatIn,
    HeartbeatOut,
)
from perfatlas.api.deps import (
    AdminPrincipal,
    AgentPrincipal,
    ReadPrincipal,
    SessionDep,
    json_body,
)
from perfatlas.flows import agents as flows

router = APIRouter(tags=["agents"])
AgentNamePath = Annotated[str, Path(min_length=1, max_length=128)]


@router.get("/agents", operation_id="list_agents", response_model=list[AgentRead])
def list_agents(session: SessionDep, _: ReadPrincipal) -> list[AgentRead]:
    """The machines: those that uploaded runs and those enrolled, most recently seen first."""
    return flows.list_agents(session)


@router.post(
    "/agents/enrollment-tokens",
    operation_id="create_enrollment_token",
    status_code=201,
    response_model=EnrollmentTokenCreated,
)
def create_enrollment_token(
    body: Annotated[EnrollmentTokenCreate, json_body(EnrollmentTokenCreate)],
    session: SessionDep,
    _: AdminPrincipal,
) -> EnrollmentTokenCreated:
    """A one-time token an agent enrolls with; shown only in this response."""
    return service.create_enrollment_token(session, body=body)


@router.post(
    "/agents/enroll",
    operation_id="enroll_agent",
    status_code=201,
    response_model=Enrolled,
)
def enroll_agent(body: Annotated[EnrollIn, json_body(EnrollIn)], session: SessionDep) -> Enrolled:
    """Exchange an enrollment token (spent by this call) for the agent's own token."""
    return service.enroll(session, body=body)


@router.post(
    "/agents/heartbeat",
    operation_id="agent_heartbeat",
    response_model=HeartbeatOut,
)
def heartbeat(
    body: Annotated[HeartbeatIn, json_body(HeartbeatIn)],
    session: SessionDep,
    principal: AgentPrincipal,
) -> HeartbeatOut:
    """The agent's daemon is alive (an agent's token)."""
    assert principal.agent is not None
    return service.heartbeat(session, name=principal.agent, body=body)


@router.post("/agents/{name}/revoke", operation_id="revoke_agent", response_model=AgentRead)
def revoke_agent(name: AgentNamePath, session: SessionDep, _: AdminPrincipal) -> AgentRead:
    """Revoke an agent: its tokens stop working, its jobs go to other agents or are cancelled."""
    return flows.revoke_agent(session, name=name)
