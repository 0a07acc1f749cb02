"""Claiming a job: exactly one agent gets each attempt of a job.

Claimable by agent X: queued jobs made for X; and unpinned queued jobs made for another agent
whose selector picks X, once a lease of theirs lapsed (attempts ≥ 1) or while their own agent is
revoked or offline (a job without a selector stays with its agent). One code path on both
databases: on PostgreSQL the candidate row is locked with `FOR UPDATE SKIP LOCKED` (concurrent
claimers pass over it instead of queueing behind it), then on both a conditional UPDATE
(`status = 'queued'` in its WHERE) takes it, so of two claimers of one row at most one changes
it (SQLite serializes the writers)."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, case, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.agents.enrollment import enrolled_agent, touch_heartbeat
from perfatlas.agents.models import Agent
from perfatlas.agents.service import ONLINE_SECONDS, selects
from perfatlas.core.models import utcnow
from perfatlas.jobs import settle, wakeup
from perfatlas.jobs.enums import JobStatus
from perfatlas.jobs.models import Job

LEASE_SECONDS = 30.0
PROGRESS_EVERY = 2.0
CANDIDATES = 100  # queued jobs looked at per try (the agent's own first, oldest first)


@dataclass(frozen=True, slots=True)
class Claimed:
    job: Job
    attempt: int


def _candidates(session: Session, *, agent: Agent, now: dt.datetime) -> list[int]:
    own = Job.agent_id == agent.id
    away = select(Agent.id).where(
        or_(
            Agent.revoked_at.is_not(None),
            Agent.heartbeat_at.is_(None),
            Agent.heartbeat_at < now - dt.timedelta(seconds=ONLINE_SECONDS),
        )
    )
    others = and_(
        Job.agent_id != agent.id,
        Job.pinned.is_(False),
        or_(Job.attempts >= 1, Job.agent_id.in_(away)),
    )
    rows = session.execute(
        select(Job.id, Job.agent_id, Job.selector)
        .where(
            Job.status == JobStatus.queued.value,
            or_(Job.expires_at.is_(None), Job.expires_at > now),
            Job.attempts < Job.max_attempts,
            or_(own, others),
        )
        .order_by(case((own, 0), else_=1), Job.created_at, Job.id)
        .limit(CANDIDATES)
    ).all()
    return [
        job_id
        for job_id, agent_id, selector in rows
        # A job without a selector (queued by hand) stays with its agent.
        if agent_id == agent.id or (selector and selects(agent, selector))
    ]


def claim(
    session: Session, *, agent: Agent, lease_seconds: float = LEASE_SECONDS
) -> Claimed | None:
    """Lease one job to `agent`, in the caller's transaction (the caller commits at once)."""
    now = utcnow()
    postgres = session.get_bind().dialect.name == "postgresql"
    for job_id in _candidates(session, agent=agent, now=now):
        if postgres:
            locked = session.scalar(
                select(Job.id)
                .where(Job.id == job_id, Job.status == JobStatus.queued.value)
                .with_for_update(skip_locked=True)
            )
            if locked is None:
                continue  # another agent is taking it
        job = session.scalars(
            update(Job)
            .where(Job.id == job_id, Job.status == JobStatus.queued.value)
            .values(
                status=JobStatus.leased.value,
                leased_by_id=agent.id,
                attempts=Job.attempts + 1,
                lease_until=now + dt.timedelta(seconds=lease_seconds),
            )
            .returning(Job)
            .execution_options(populate_existing=True)
        ).one_or_none()
        if job is not None:
            return Claimed(job=job, attempt=job.attempts)
    return None


def try_claim(
    factory: sessionmaker[Session], *, name: str, first: bool = False
) -> wakeup.Attempt[Claimed]:
    """One try of a long poll: the agent must be enrolled and not revoked (401 otherwise); the
    poll's first try counts as a heartbeat. Put back lapsed leases when there are any (so an
    agent's death is recovered without the beat task), then claim. One transaction (two when
    leases lapsed)."""
    with factory() as session:
        agent = enrolled_agent(session, name=name)
        if first:
            touch_heartbeat(session, agent_id=agent.id)
        seen = wakeup.fingerprint(session)
        if seen[wakeup.LAPSED]:
            settle.recover_lapsed(session, now=utcnow())
            session.commit()
            seen = wakeup.fingerprint(session)
        claimed = claim(session, agent=agent)
        session.commit()
        return wakeup.Attempt(value=claimed, seen=seen)


async def long_poll(
    state: Any,
    factory: sessionmaker[Session],
    *,
    name: str,
    wait: float,
    gone: Callable[[], Awaitable[bool]] | None = None,
) -> Claimed | None:
    """Claim a job for agent `name`, waiting up to `wait` seconds for one. Waits on the event
    loop: no thread and no database connection is held in between tries. Woken by the jobs
    queued for this agent (and by those any agent may take)."""
    tries = itertools.count()

    def attempt() -> wakeup.Attempt[Claimed]:
        return try_claim(factory, name=name, first=next(tries) == 0)

    poll = wakeup.poll_for(state, factory)
    return await poll.wait(attempt, timeout=wait, gone=gone, key=name)
