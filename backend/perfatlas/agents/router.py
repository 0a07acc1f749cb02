"""HTTP routes of agents: listing, enrollment tokens, enrollment, heartbeat, revocation."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from perfatlas.agents import enrollment, revocation, service
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
    body_schema,
    json_body,
)
from perfatlas.core.db import commit_with_retry

router = APIRouter(tags=["agents"])
AgentNamePath = Annotated[str, Path(min_length=1, max_length=128)]


@router.get("/agents", operation_id="list_agents", response_model=list[AgentRead])
def list_agents(session: SessionDep, _: ReadPrincipal) -> list[AgentRead]:
    """The machines: those that uploaded runs and those enrolled, most recently seen first."""
    return service.list_agents(session)


@router.post(
    "/agents/enrollment-tokens",
    operation_id="create_enrollment_token",
    status_code=201,
    response_model=EnrollmentTokenCreated,
    openapi_extra=body_schema(EnrollmentTokenCreate),
)
def create_enrollment_token(
    body: Annotated[EnrollmentTokenCreate, json_body(EnrollmentTokenCreate)],
    session: SessionDep,
    _: AdminPrincipal,
) -> EnrollmentTokenCreated:
    """A one-time token an agent enrolls with; shown only in this response."""
    row, token = enrollment.create_enrollment_token(
        session, labels=body.labels, expires_in_hours=body.expires_in_hours
    )
    session.commit()
    return EnrollmentTokenCreated(
        token=token, prefix=row.prefix, expires_at=row.expires_at, labels=row.labels
    )


@router.post(
    "/agents/enroll",
    operation_id="enroll_agent",
    status_code=201,
    response_model=Enrolled,
    openapi_extra=body_schema(EnrollIn),
)
def enroll_agent(body: Annotated[EnrollIn, json_body(EnrollIn)], session: SessionDep) -> Enrolled:
    """Exchange an enrollment token (spent by this call) for the agent's own token."""
    agent, token = commit_with_retry(
        session,
        lambda: enrollment.enroll(
            session,
            enrollment_token=body.enrollment_token,
            name=body.name,
            labels=body.labels,
            version=body.version,
        ),
    )
    return Enrolled(name=agent.name, token=token, labels=agent.labels)


@router.post(
    "/agents/heartbeat",
    operation_id="agent_heartbeat",
    response_model=HeartbeatOut,
    openapi_extra=body_schema(HeartbeatIn),
)
def heartbeat(
    body: Annotated[HeartbeatIn, json_body(HeartbeatIn)],
    session: SessionDep,
    principal: AgentPrincipal,
) -> HeartbeatOut:
    """The agent's daemon is alive (an agent's token)."""
    assert principal.agent is not None
    now = enrollment.heartbeat(
        session, name=principal.agent, version=body.version, labels=body.labels
    )
    session.commit()
    return HeartbeatOut(server_time=now)


@router.post("/agents/{name}/revoke", operation_id="revoke_agent", response_model=AgentRead)
def revoke_agent(name: AgentNamePath, session: SessionDep, _: AdminPrincipal) -> AgentRead:
    """Revoke an agent: its tokens stop working, its jobs go to other agents or are cancelled."""
    revocation.revoke(session, name=name)
    session.commit()
    (agent,) = service.list_agents(session, name=name)
    return agent
