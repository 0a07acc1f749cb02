"""A report: a titled page of markdown notes and blocks (explore, heatmap, compare, series,
markdown), live or pinned to a date."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from perfatlas.core.models import Base, JSONType, UTCDateTime, utcnow


class Report(Base):
    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    notes: Mapped[str] = mapped_column(Text, default="")
    # The blocks as their schemas dump them (reports/schemas.py Block), in order.
    blocks: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    # None: live, every run; a time: only runs started before it.
    pinned_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
