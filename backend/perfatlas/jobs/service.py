"""Jobs: making them (for a schedule's firing, a confirmation, or by hand). Claiming, leases,
progress and completion live beside this module as they land."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.agents.service import online
from perfatlas.core.models import utcnow
from perfatlas.core.workload import WorkloadSpec
from perfatlas.jobs import wakeup
from perfatlas.jobs.enums import JobKind, JobStatus
from perfatlas.jobs.models import Job

DEFAULT_MAX_ATTEMPTS = 3


def enqueue(
    session: Session,
    *,
    spec: WorkloadSpec,
    agents: Sequence[Agent],
    selector: Sequence[str] = (),
    schedule_id: int | None = None,
    fire_at: dt.datetime | None = None,
    kind: JobKind = JobKind.run,
    pinned: bool = False,
    alert_id: int | None = None,
    expires_at: dt.datetime | None = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> list[Job]:
    """Queue one job per agent, in the caller's transaction. A schedule's firing is made at most
    once per agent (unique on schedule, firing time, agent): firing again adds nothing, so the
    beat pass may run twice. Returns the jobs of this firing (new or already there), by agent."""
    if not agents:
        return []
    now = utcnow()
    rows = [
        {
            "kind": kind.value,
            "schedule_id": schedule_id,
            "fire_at": fire_at,
            "agent_id": agent.id,
            "pinned": pinned,
            "selector": list(selector),
            "spec": spec.model_dump(mode="json"),
            "status": JobStatus.queued.value,
            "attempts": 0,
            "max_attempts": max_attempts,
            "progress": {},
            "log_tail": [],
            "alert_id": alert_id,
            "created_at": now,
            "expires_at": expires_at,
        }
        for agent in sorted(agents, key=lambda a: a.id)
    ]
    # Agents long-polling claim at once when the caller commits: only the jobs' own agents'
    # claims are woken when no other agent may take the jobs (pinned, without a selector, or
    # their agent is online), every waiting claim otherwise.
    own_only = pinned or not selector or all(online(a, now=now) for a in agents)
    wakeup.mark_queued(session, agents=[a.name for a in agents] if own_only else None)
    dialect = session.get_bind().dialect.name
    if schedule_id is not None and fire_at is not None:
        ins = postgresql.insert(Job) if dialect == "postgresql" else sqlite.insert(Job)
        session.execute(
            ins.on_conflict_do_nothing(index_elements=["schedule_id", "fire_at", "agent_id"]),
            rows,
        )
        session.flush()
        return list(
            session.scalars(
                select(Job)
                .where(
                    Job.schedule_id == schedule_id,
                    Job.fire_at == fire_at,
                    Job.agent_id.in_([a.id for a in agents]),
                )
                .order_by(Job.agent_id)
            )
        )
    jobs = [Job(**row) for row in rows]
    session.add_all(jobs)
    session.flush()
    return jobs
