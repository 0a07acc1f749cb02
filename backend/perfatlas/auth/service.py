"""Creating, checking and revoking API tokens. Tokens are random; only their sha256 is kept."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from perfatlas.auth.models import ApiToken
from perfatlas.core.errors import NotFound
from perfatlas.core.models import utcnow

Scope = Literal["read", "upload", "admin"]
SCOPES: tuple[Scope, ...] = ("read", "upload", "admin")
# A scope grants itself and every scope before it in this order.
_RANK = {scope: i for i, scope in enumerate(SCOPES)}
TOKEN_PREFIX = "pa_"


@dataclass(frozen=True, slots=True)
class Principal:
    token_id: int | None
    name: str
    scope: Scope | None  # None: anonymous reader under PERFATLAS_PUBLIC_READ

    def allows(self, needed: Scope) -> bool:
        return self.scope is not None and _RANK[self.scope] >= _RANK[needed]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(session: Session, *, name: str, scope: Scope) -> tuple[ApiToken, str]:
    """Returns the stored row and the token itself, which is shown once and never stored."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken(name=name, scope=scope, token_hash=hash_token(token), prefix=token[:10])
    session.add(row)
    session.commit()
    return row, token


def authenticate(session: Session, *, token: str) -> Principal | None:
    row = session.scalar(
        select(ApiToken).where(
            ApiToken.token_hash == hash_token(token), ApiToken.revoked_at.is_(None)
        )
    )
    if row is None:
        return None
    now = utcnow()
    # Touch last_used_at at most once a minute, so reads do not turn into writes.
    if row.last_used_at is None or (now - row.last_used_at).total_seconds() > 60:
        session.execute(update(ApiToken).where(ApiToken.id == row.id).values(last_used_at=now))
        session.commit()
    return Principal(token_id=row.id, name=row.name, scope=row.scope)  # type: ignore[arg-type]


def list_tokens(session: Session) -> list[ApiToken]:
    return list(session.scalars(select(ApiToken).order_by(ApiToken.id)))


def revoke_token(session: Session, *, token_id: int) -> ApiToken:
    row = session.get(ApiToken, token_id)
    if row is None:
        raise NotFound(f"no token with id {token_id}")
    if row.revoked_at is None:
        row.revoked_at = utcnow()
        session.commit()
    return row


def revoke_by_name(session: Session, *, name: str) -> int:
    revoked = session.execute(
        update(ApiToken)
        .where(ApiToken.name == name, ApiToken.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    session.commit()
    return int(revoked.rowcount)  # type: ignore[attr-defined]
