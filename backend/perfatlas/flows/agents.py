"""Agents across domains: the overview (each agent with its run count and the job it holds) and
revocation (its tokens stop working, the jobs it holds go back to the queue for other matching
agents (pinned ones, and those without a selector, are cancelled), and the jobs queued for it
are cancelled)."""

from __future__ import annotations

from sqlalchemy import and_, select, update
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.agents.schemas import AgentRead, CurrentJob
from perfatlas.agents.service import online
from perfatlas.auth.service import revoke_agent_tokens
from perfatlas.core.errors import NotFound
from perfatlas.core.models import utcnow
from perfatlas.jobs.enums import HELD, JobStatus
from perfatlas.jobs.models import Job
from perfatlas.jobs.settle import put_back
from perfatlas.runs.tallies import runs_by_agent


def list_agents(session: Session, *, name: str | None = None) -> list[AgentRead]:
    """Every agent (or the one named), with its run count, status and the job it holds."""
    counts = runs_by_agent(session)
    holding: dict[int, CurrentJob] = {}
    for job in session.scalars(
        select(Job)
        .where(Job.status.in_([s.value for s in HELD]), Job.leased_by_id.is_not(None))
        .order_by(Job.id)
    ):
        assert job.leased_by_id is not None
        percent = (job.progress or {}).get("percent")
        holding[job.leased_by_id] = CurrentJob(
            id=job.id,
            status=job.status,
            percent=float(percent) if isinstance(percent, int | float) else None,
        )
    query = select(Agent).order_by(Agent.last_seen_at.desc().nulls_last(), Agent.name)
    agents = session.scalars(query if name is None else query.where(Agent.name == name))
    now = utcnow()
    return [
        AgentRead(
            name=a.name,
            labels=a.labels,
            version=a.version,
            last_seen_at=a.last_seen_at,
            runs=counts.get(a.id, 0),
            enrolled=a.enrolled_at is not None,
            revoked=a.revoked_at is not None,
            online=online(a, now=now),
            heartbeat_at=a.heartbeat_at,
            current_job=holding.get(a.id),
        )
        for a in agents
    ]


def revoke(session: Session, *, name: str) -> Agent:
    """In the caller's transaction; revoking twice changes nothing more."""
    agent = session.scalar(select(Agent).where(Agent.name == name).with_for_update())
    if agent is None:
        raise NotFound(f"no agent named {name!r}")
    now = utcnow()
    if agent.revoked_at is None:
        agent.revoked_at = now
    revoke_agent_tokens(session, agent=name)
    # Its queued jobs first: the held ones put back below stay queued for other agents.
    session.execute(
        update(Job)
        .where(Job.agent_id == agent.id, Job.status == JobStatus.queued.value)
        .values(status=JobStatus.cancelled.value, finished_at=now, error="the agent was revoked")
        .execution_options(synchronize_session=False)
    )
    mine = and_(Job.leased_by_id == agent.id, Job.status.in_([s.value for s in HELD]))
    # Pinned jobs, and jobs without a selector, can go to no other agent.
    stay = [
        job_id
        for job_id, pinned, selector in session.execute(
            select(Job.id, Job.pinned, Job.selector).where(mine)
        )
        if pinned or not selector
    ]
    session.execute(
        update(Job)
        .where(mine, Job.id.in_(stay))
        .values(
            status=JobStatus.cancelled.value,
            lease_until=None,
            finished_at=now,
            error="the agent was revoked",
        )
        .execution_options(synchronize_session=False)
    )
    put_back(session, where=mine, now=now, error="the agent was revoked on the last attempt")
    session.flush()
    return agent


def revoke_agent(session: Session, *, name: str) -> AgentRead:
    """Revoke the agent named, commit, and answer it as the overview shows it."""
    revoke(session, name=name)
    session.commit()
    (agent,) = list_agents(session, name=name)
    return agent
