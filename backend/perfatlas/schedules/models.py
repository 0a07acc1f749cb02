"""Schedules: a spec, who runs it, and when."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Boolean, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from perfatlas.core.models import Base, JSONType, UTCDateTime, utcnow


class Schedule(Base):
    """`when` is "now", an ISO time (once) or "cron:<5 fields>" read in `timezone`.
    `next_fire_at` is the next firing due (None: a one-off that has fired, or nothing left);
    the beat pass fires every schedule whose `next_fire_at` has come and is not paused, one
    job per matching agent, and moves `next_fire_at` on in the same transaction."""

    __tablename__ = "schedules"
    __table_args__ = (Index("ix_schedules_paused_next_fire_at", "paused", "next_fire_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    # A WorkloadSpec (core/workload.py), as JSON.
    spec: Mapped[dict[str, Any]] = mapped_column(JSONType)
    # Agent names and/or label=value: an agent matches when it is one of the names given (if
    # any name is given) and has every label given.
    agents: Mapped[list[str]] = mapped_column(JSONType, default=list)
    when: Mapped[str] = mapped_column(String(128))
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    next_fire_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    last_fired_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
