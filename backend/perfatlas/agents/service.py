"""Agents: enrollment as the API asks for it (each call commits), whether one is online, and
which agents a selector picks."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.agents import enrollment
from perfatlas.agents.models import Agent
from perfatlas.agents.schemas import (
    Enrolled,
    EnrollIn,
    EnrollmentTokenCreate,
    EnrollmentTokenCreated,
    HeartbeatIn,
    HeartbeatOut,
)
from perfatlas.core.db import commit_with_retry

ONLINE_SECONDS = 45  # an agent is online while its last heartbeat is this recent


def create_enrollment_token(
    session: Session, *, body: EnrollmentTokenCreate
) -> EnrollmentTokenCreated:
    """A one-time token an agent enrolls with (shown once)."""
    row, token = enrollment.create_enrollment_token(
        session, labels=body.labels, expires_in_hours=body.expires_in_hours
    )
    session.commit()
    return EnrollmentTokenCreated(
        token=token, prefix=row.prefix, expires_at=row.expires_at, labels=row.labels
    )


def enroll(session: Session, *, body: EnrollIn) -> Enrolled:
    """Spend an enrollment token for the agent's own token (retried on a serialization
    failure)."""
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


def heartbeat(session: Session, *, name: str, body: HeartbeatIn) -> HeartbeatOut:
    """The agent's daemon is alive."""
    now = enrollment.heartbeat(session, name=name, version=body.version, labels=body.labels)
    session.commit()
    return HeartbeatOut(server_time=now)


def online(agent: Agent, *, now: dt.datetime) -> bool:
    """Not revoked, and its last heartbeat within ONLINE_SECONDS of `now`."""
    return (
        agent.revoked_at is None
        and agent.heartbeat_at is not None
        and agent.heartbeat_at >= now - dt.timedelta(seconds=ONLINE_SECONDS)
    )


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
