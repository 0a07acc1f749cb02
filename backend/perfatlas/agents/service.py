"""Agents: listing them with how many runs each uploaded."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.agents.schemas import AgentRead
from perfatlas.runs.models import Run


def list_agents(session: Session) -> list[AgentRead]:
    counts = dict(session.execute(select(Run.agent_id, func.count()).group_by(Run.agent_id)).all())
    agents = session.scalars(
        select(Agent).order_by(Agent.last_seen_at.desc().nulls_last(), Agent.name)
    )
    return [
        AgentRead(
            name=a.name,
            labels=a.labels,
            version=a.version,
            last_seen_at=a.last_seen_at,
            runs=counts.get(a.id, 0),
        )
        for a in agents
    ]
