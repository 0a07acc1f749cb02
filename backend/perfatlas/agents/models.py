"""Agents: the test machines that run workloads and upload their runs."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from perfatlas.core.models import Base, JSONType, UTCDateTime, utcnow


class Agent(Base):
    __tablename__ = "agents"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    labels: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    version: Mapped[str | None] = mapped_column(String(64))
    last_seen_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Set when the agent enrolled (its daemon takes jobs); revoking it ends its tokens and jobs.
    enrolled_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    # The daemon's last heartbeat (or claim, or progress report): online when recent.
    heartbeat_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class EnrollmentToken(Base):
    """A one-time token that an agent exchanges for its own agent token (`perfatlas-agent
    enroll`). Only its hash is stored; it is spent by the first enrollment, or expires."""

    __tablename__ = "agent_enrollment_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))
    # Labels the enrolled agent gets (its own --label values are added to them).
    labels: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    used_by: Mapped[str | None] = mapped_column(String(128))
