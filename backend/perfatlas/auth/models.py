"""API tokens: only a hash of each token is stored."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from perfatlas.core.models import Base, UTCDateTime, utcnow


class ApiToken(Base):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    scope: Mapped[str] = mapped_column(String(16))
    # An agent token's agent (scope "agent"): it may upload only as this agent.
    agent_name: Mapped[str | None] = mapped_column(String(128))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # The first characters, shown in listings so a person can tell tokens apart.
    prefix: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_used_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
