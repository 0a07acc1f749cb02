"""Enrollment: a person makes a one-time enrollment token; an agent's daemon exchanges it for
an agent token of its own. Heartbeats keep an enrolled agent online. Everything here writes in
the caller's transaction."""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent, EnrollmentToken
from perfatlas.auth.permissions import Scope
from perfatlas.auth.service import hash_token, issue_token
from perfatlas.core.errors import Conflict, Invalid, Unauthorized
from perfatlas.core.models import utcnow

ENROLLMENT_PREFIX = "pae_"


def create_enrollment_token(
    session: Session, *, labels: Mapping[str, str], expires_in_hours: int
) -> tuple[EnrollmentToken, str]:
    """A one-time enrollment token; returns the row and the token (shown once, stored hashed)."""
    if not 1 <= expires_in_hours <= 720:
        raise Invalid("expires_in_hours", "between 1 and 720 hours")
    token = ENROLLMENT_PREFIX + secrets.token_urlsafe(32)
    row = EnrollmentToken(
        token_hash=hash_token(token),
        prefix=token[:10],
        labels=dict(labels),
        created_at=utcnow(),
        expires_at=utcnow() + dt.timedelta(hours=expires_in_hours),
    )
    session.add(row)
    session.flush()
    return row, token


def _spend(session: Session, *, token: str, name: str) -> dict[str, Any]:
    """Spend the enrollment token (one conditional UPDATE: of two enrollments with one token,
    one wins); returns its labels. Unauthorized when unknown, used or expired."""
    now = utcnow()
    labels = session.execute(
        update(EnrollmentToken)
        .where(
            EnrollmentToken.token_hash == hash_token(token),
            EnrollmentToken.used_at.is_(None),
            EnrollmentToken.expires_at > now,
        )
        .values(used_at=now, used_by=name)
        .returning(EnrollmentToken.labels)
        .execution_options(synchronize_session=False)
    ).scalar_one_or_none()
    if labels is None:
        raise Unauthorized("the enrollment token is unknown, used already, or expired")
    return dict(labels)


def enroll(
    session: Session,
    *,
    enrollment_token: str,
    name: str,
    labels: Mapping[str, str],
    version: str | None,
) -> tuple[Agent, str]:
    """Spend the enrollment token and enroll the agent `name`: a new agent, or one known from
    its uploads (adopted), or a revoked one (enrolled again). Returns the agent and its new
    agent token. An enrolled, unrevoked agent of that name is a Conflict, and then nothing is
    written (the caller rolls back, so the enrollment token stays unspent)."""
    token_labels = _spend(session, token=enrollment_token, name=name)
    now = utcnow()
    agent = session.scalar(select(Agent).where(Agent.name == name).with_for_update())
    if agent is not None and agent.enrolled_at is not None and agent.revoked_at is None:
        raise Conflict(
            f"name: agent {name!r} is enrolled already; revoke it first "
            f"(POST /api/v1/agents/{name}/revoke) or choose another name",
            extra={"errors": [{"field": "name", "message": "an enrolled agent has this name"}]},
        )
    if agent is None:
        agent = Agent(name=name, labels={}, created_at=now)
        session.add(agent)
    agent.labels = {**(agent.labels or {}), **token_labels, **labels}
    agent.enrolled_at = now
    agent.revoked_at = None
    agent.heartbeat_at = now
    if version:
        agent.version = version
    session.flush()
    _, token = issue_token(session, name=f"agent {name}", scope=Scope.AGENT.value, agent=name)
    return agent, token


def enrolled_agent(session: Session, *, name: str) -> Agent:
    """The enrolled agent an agent token names. A revoked agent is Unauthorized (its tokens are
    revoked too; this covers a token made by hand for it)."""
    agent = session.scalar(select(Agent).where(Agent.name == name))
    if agent is None or agent.enrolled_at is None:
        raise Unauthorized(
            f"agent {name!r} is not enrolled: enroll it with perfatlas-agent enroll first"
        )
    if agent.revoked_at is not None:
        raise Unauthorized(f"agent {name!r} is revoked")
    return agent


def heartbeat(
    session: Session, *, name: str, version: str | None, labels: Mapping[str, str] | None
) -> dt.datetime:
    """Note the agent's heartbeat (its labels replaced when given); returns the server's time."""
    agent = enrolled_agent(session, name=name)
    now = utcnow()
    values: dict[str, Any] = {"heartbeat_at": now}
    if version:
        values["version"] = version
    if labels is not None:
        values["labels"] = dict(labels)
    session.execute(
        update(Agent)
        .where(Agent.id == agent.id)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    return now


def touch_heartbeat(session: Session, *, agent_id: int) -> None:
    """A claim or a progress report counts as a heartbeat."""
    session.execute(
        update(Agent)
        .where(Agent.id == agent_id)
        .values(heartbeat_at=utcnow())
        .execution_options(synchronize_session=False)
    )
