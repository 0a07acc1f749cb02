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
