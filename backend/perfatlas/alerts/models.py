"""Alerts (a detected change in one series), incidents (alerts with one cause) and alert
rules. The statuses are the values of alerts/enums.py."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from perfatlas.agents.models import Agent
from perfatlas.alerts.enums import AlertStatus, IncidentStatus
from perfatlas.core.models import Base, JSONType, UTCDateTime, utcnow
from perfatlas.runs.models import Run, Series


class AlertRule(Base):
    """Thresholds for the alerts of the series a rule matches; the most specific rule wins.

    Every matcher left empty matches anything; a rule with `mute` opens no alerts at all."""

    __tablename__ = "alert_rules"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    workload: Mapped[str | None] = mapped_column(String(64))
    metric: Mapped[str | None] = mapped_column(String(128))
    agent: Mapped[str | None] = mapped_column(String(128))
    label_key: Mapped[str | None] = mapped_column(String(128))
    label_value: Mapped[str | None] = mapped_column(String(256))
    series_id: Mapped[int | None] = mapped_column(ForeignKey("series.id", ondelete="CASCADE"))
    min_change_pct: Mapped[float | None] = mapped_column(Float)
    min_confidence: Mapped[float | None] = mapped_column(Float)
    mute: Mapped[bool] = mapped_column(Boolean, default=False)
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class Incident(Base):
    """Alerts that appeared together on one agent, or with one environment/label change."""

    __tablename__ = "incidents"
    __table_args__ = (
        Index("ix_incidents_status_opened_at", "status", "opened_at"),
        Index("ix_incidents_key_opened_at", "key", "opened_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # What groups the alerts: the cause (the keys that changed, with their values) or, with no
    # cause, the agent and the time of the change.
    key: Mapped[str] = mapped_column(String(64))
    # The agent, when the alerts come from one (a cause such as a new filesystem version can
    # group the alerts of several agents).
    agent_id: Mapped[int | None] = mapped_column(ForeignKey("agents.id"))
    title: Mapped[str] = mapped_column(String(512))
    cause: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    status: Mapped[str] = mapped_column(String(16), default=IncidentStatus.open)
    # Bumped on every state change, so that each change is notified once (see Notification.key).
    version: Mapped[int] = mapped_column(Integer, default=1)
    opened_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    resolved_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    agent: Mapped[Agent | None] = relationship(lazy="joined")
    alerts: Mapped[list[Alert]] = relationship(back_populates="incident", order_by="Alert.id")


class Alert(Base):
    """One change point of one series; deduplicated by (series, run at which it changed,
    kind). A `stopped` alert's change run is the series' last run before it went silent."""

    __tablename__ = "alerts"
    __table_args__ = (
        UniqueConstraint("series_id", "change_run_id", "kind"),
        Index("ix_alerts_status_change_at", "status", "change_at"),
        Index("ix_alerts_incident_id", "incident_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id", ondelete="CASCADE"))
    incident_id: Mapped[int | None] = mapped_column(ForeignKey("incidents.id"))
    # The first run after the change, and the last one before it.
    change_run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    previous_run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    change_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    kind: Mapped[str] = mapped_column(String(16))
    before: Mapped[float] = mapped_column(Float)
    after: Mapped[float] = mapped_column(Float)
    change_pct: Mapped[float | None] = mapped_column(Float)
    confidence: Mapped[float] = mapped_column(Float)
    tentative: Mapped[bool] = mapped_column(Boolean, default=True)
    points_after: Mapped[int] = mapped_column(Integer, default=0)
    cause: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    status: Mapped[str] = mapped_column(String(16), default=AlertStatus.open)
    resolution: Mapped[str | None] = mapped_column(String(16))
    note: Mapped[str | None] = mapped_column(Text)
    # Bumped on every status change (see Notification.key).
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
    status_changed_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    status_changed_by: Mapped[str | None] = mapped_column(String(128))
    resolved_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    resolved_by_run_id: Mapped[int | None] = mapped_column(
        ForeignKey("runs.id", ondelete="SET NULL")
    )

    series: Mapped[Series] = relationship(lazy="joined")
    incident: Mapped[Incident | None] = relationship(back_populates="alerts")
    change_run: Mapped[Run] = relationship(foreign_keys=[change_run_id])
    previous_run: Mapped[Run | None] = relationship(foreign_keys=[previous_run_id])
    resolved_by_run: Mapped[Run | None] = relationship(foreign_keys=[resolved_by_run_id])


class DetectionRequest(Base):
    """A series waiting for its on-upload check: one waiting row per series however many
    uploads asked, so a burst of uploads leaves at most one pending check per series.

    Uploads insert it in their own transaction and never wait for a check: a check claims a
    batch of rows in a short transaction of its own (`claimed_at`), and a claimed row is out of
    the waiting rows' unique index, so an upload during the check inserts a new waiting row
    (the check may have read the series before it). The check deletes its claimed rows with
    its outcome; a check that dies leaves them, taken again once stale (alerts/pending.py)."""

    __tablename__ = "detection_requests"
    __table_args__ = (
        Index(
            "ix_detection_requests_waiting",
            "series_id",
            unique=True,
            postgresql_where=text("claimed_at IS NULL"),
            sqlite_where=text("claimed_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id", ondelete="CASCADE"))
    requested_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    claimed_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
