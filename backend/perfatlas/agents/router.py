"""HTTP routes of agents."""

from __future__ import annotations

from fastapi import APIRouter

from perfatlas.agents import service
from perfatlas.agents.schemas import AgentRead
from perfatlas.api.deps import ReadPrincipal, SessionDep

router = APIRouter(tags=["agents"])


@router.get("/agents", operation_id="list_agents", response_model=list[AgentRead])
def list_agents(session: SessionDep, _: ReadPrincipal) -> list[AgentRead]:
    """The machines that have uploaded runs, most recently seen first."""
    return service.list_agents(session)
