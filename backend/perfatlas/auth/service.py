"""Creating, checking and revoking API tokens. Tokens are random; only their sha256 is kept."""

from __future__ import annotations

import hashlib
import secrets
from typing import Protocol

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from perfatlas.auth.models import ApiToken
from perfatlas.auth.permissions import SCOPE_PERMISSIONS, Principal, Scope
from perfatlas.core.errors import Forbidden, Invalid, NotFound
from perfatlas.core.models import utcnow

SCOPES: tuple[str, ...] = tuple(Scope)
TOKEN_PREFIX = "pa_"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(
    session: Session, *, name: str, scope: str, agent: str | None = None
) -> tuple[ApiToken, str]:
    """Returns the stored row and the token itself, which is shown once and never stored."""
    row, token = issue_token(session, name=name, scope=scope, agent=agent)
    session.commit()
    return row, token


def issue_token(
    session: Session, *, name: str, scope: str, agent: str | None = None
) -> tuple[ApiToken, str]:
    """Adds a token in the caller's transaction (an agent's enrollment commits it with the
    agent); returns the row and the token itself."""
    if scope not in SCOPES:
        raise Invalid("scope", f"{scope!r} is not a scope; one of {', '.join(SCOPES)}")
    if (scope == Scope.AGENT) != (agent is not None):
        raise Invalid("agent", "an agent token names its agent, and only an agent token does")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken(
        name=name, scope=scope, agent_name=agent, token_hash=hash_token(token), prefix=token[:10]
    )
    session.add(row)
    session.flush()
    return row, token


class TokenFacts(Protocol):
    """What a principal is made of: an ApiToken, or a row of those columns."""

    id: int
    name: str
    scope: str
    agent_name: str | None


def principal_of(row: TokenFacts) -> Principal:
    scope = Scope(row.scope)
    return Principal(
        kind="agent" if scope == Scope.AGENT else "token",
        name=row.name,
        permissions=SCOPE_PERMISSIONS[scope],
        token_id=row.id,
        scope=scope,
        agent=row.agent_name,
    )


def authenticate(session: Session, *, token: str) -> Principal | None:
    # Core, not the ORM entity: every request passes here, and loading an object cost more
    # than the lookup itself.
    tokens = ApiToken.__table__.c
    row = (
        session.connection()
        .execute(
            select(
                tokens.id, tokens.name, tokens.scope, tokens.agent_name, tokens.last_used_at
            ).where(tokens.token_hash == hash_token(token), tokens.revoked_at.is_(None))
        )
        .first()
    )
    if row is None:
        return None
    now = utcnow()
    # Touch last_used_at at most once a minute, so reads do not turn into writes.
    if row.last_used_at is None or (now - row.last_used_at).total_seconds() > 60:
        session.execute(update(ApiToken).where(ApiToken.id == row.id).values(last_used_at=now))
        session.commit()
    return principal_of(row)


def check_agent(principal: Principal, *, agent: str, field: str) -> None:
    """An agent's token uploads only as that agent."""
    if not principal.may_act_as(agent):
        raise Forbidden(
            f"{field}: the token {principal.name!r} belongs to agent {principal.agent!r} and "
            f"cannot upload as {agent!r}"
        )


def check_runs_agents(principal: Principal, agents: list[str], *, field: str = "runs") -> None:
    """Every run's agent is one the principal may upload as (field names the first that is not)."""
    for index, agent in enumerate(agents):
        check_agent(principal, agent=agent, field=f"body.{field}[{index}].agent")


def list_tokens(session: Session) -> list[ApiToken]:
    return list(session.scalars(select(ApiToken).order_by(ApiToken.id)))


def revoke_token(session: Session, *, token_id: int) -> ApiToken:
    row = session.get(ApiToken, token_id) if 0 < token_id < 2**31 else None
    if row is None:
        raise NotFound(f"no token with id {token_id}")
    if row.revoked_at is None:
        row.revoked_at = utcnow()
        session.commit()
    return row


def revoke_agent_tokens(session: Session, *, agent: str) -> int:
    """Revoke every token of this agent, in the caller's transaction."""
    revoked = session.execute(
        update(ApiToken)
        .where(ApiToken.agent_name == agent, ApiToken.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    return int(revoked.rowcount)  # type: ignore[attr-defined]


def revoke_by_name(session: Session, *, name: str) -> int:
    revoked = session.execute(
        update(ApiToken)
        .where(ApiToken.name == name, ApiToken.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    session.commit()
    return int(revoked.rowcount)  # type: ignore[attr-defined]
