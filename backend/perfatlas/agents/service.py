"""Agents: listing them with how many runs each uploaded, and noting their uploads."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Table, case, func, or_, select, update
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.agents.schemas import AgentRead, CurrentJob
from perfatlas.core.models import utcnow
from perfatlas.jobs.enums import HELD
from perfatlas.jobs.models import Job
from perfatlas.runs.models import Run
from perfatlas.runs.tallies import runs_by_agent

ONLINE_SECONDS = 45  # an agent is online while its last heartbeat is this recent


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


def online(agent: Agent, *, now: dt.datetime) -> bool:
    """Not revoked, and its last heartbeat within ONLINE_SECONDS of `now`."""
    return (
        agent.revoked_at is None
        and agent.heartbeat_at is not None
        and agent.heartbeat_at >= now - dt.timedelta(seconds=ONLINE_SECONDS)
    )


def touch_agents(
    session: Session,
    *,
    runs: Sequence[tuple[str, dt.datetime, str | None]],
    agent_ids: dict[str, int],
) -> None:
    """Notes an upload of (agent, started_at, agent_version) runs, already inserted.

    Last seen is the time of the agent's last upload (the server's clock, never moved back);
    its version is that of its newest run, so a late upload of an old run does not change it.
    Rows are updated in name order, so concurrent uploads cannot deadlock on them."""
    now = utcnow()
    newest: dict[str, tuple[dt.datetime, str | None]] = {}
    for agent, started_at, agent_version in runs:
        prev = newest.get(agent)
        if prev is None or started_at >= prev[0]:
            newest[agent] = (started_at, agent_version or (prev[1] if prev else None))
    # The table's own columns: an ORM update would also look for the rows' objects in the
    # session to bring them up to date, a third of this function's time on every upload (the
    # session holds none; the caller commits, which expires whatever it holds).
    table = cast(Table, Agent.__table__)
    agents = table.c
    for name in sorted(newest):
        started, version = newest[name]
        agent_id = agent_ids[name]
        later = or_(agents.last_seen_at.is_(None), agents.last_seen_at < now)
        values: dict[str, Any] = {"last_seen_at": case((later, now), else_=agents.last_seen_at)}
        if version:
            # This batch's runs are inserted already: the version changes when its newest run is
            # the agent's newest (max over ix_runs_agent_id_started_at, one index probe).
            stored_newest = (
                select(func.max(Run.started_at)).where(Run.agent_id == agent_id).scalar_subquery()
            )
            values["version"] = case((stored_newest <= started, version), else_=agents.version)
        session.execute(update(table).where(agents.id == agent_id).values(**values))


def parse_selector(selector: Sequence[str]) -> tuple[set[str], dict[str, str]]:
    """An agent selector's names and label=value pairs."""
    names: set[str] = set()
    labels: dict[str, str] = {}
    for item in selector:
        key, sep, value = item.partition("=")
        if sep:
            labels[key.strip()] = value.strip()
        else:
            names.add(item.strip())
    return names, labels


def selects(agent: Agent, selector: Sequence[str]) -> bool:
    """Whether the selector picks this agent: one of its names (when it names any) and every
    label=value it gives. An empty selector picks every agent."""
    names, labels = parse_selector(selector)
    if names and agent.name not in names:
        return False
    have = agent.labels or {}
    return all(k in have and str(have[k]) == v for k, v in labels.items())


def matching(session: Session, selector: Sequence[str]) -> list[Agent]:
    """The enrolled, unrevoked agents the selector picks, by name."""
    enrolled = session.scalars(
        select(Agent)
        .where(Agent.enrolled_at.is_not(None), Agent.revoked_at.is_(None))
        .order_by(Agent.name)
    )
    return [a for a in enrolled if selects(a, selector)]
