"""Jobs, with their lease, progress and log tail. Values of `status`, `kind` and `verdict` are
those of jobs/enums.py."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from perfatlas.core.models import Base, BigId, JSONType, UTCDateTime, utcnow
from perfatlas.jobs.enums import JobKind, JobStatus


class Job(Base):
    """One workload spec for one agent. A schedule's firing makes one job per matching agent
    (unique on schedule, firing time and agent, so a repeated firing adds nothing). The agent
    claims it under a lease (`core/leases.py` columns: status, lease_until, attempts) and
    renews the lease with every progress report; a lapsed lease puts it back in the queue, where
    another agent matching `selector` may take it unless it is `pinned` to its agent."""

    __tablename__ = "jobs"
    __table_args__ = (
        UniqueConstraint("schedule_id", "fire_at", "agent_id"),
        Index("ix_jobs_status_agent_id", "status", "agent_id"),
        Index("ix_jobs_created_at_id", "created_at", "id"),
        # The jobs list of a schedule and of an agent (flows/job_reads.py), newest first: those a
        # schedule made, those made for an agent, and those it held. (A schedule's firings are
        # read by the unique constraint's index: schedule, then firing time.)
        Index("ix_jobs_schedule_id_created_at_id", "schedule_id", "created_at", "id"),
        Index("ix_jobs_agent_id_created_at_id", "agent_id", "created_at", "id"),
        Index("ix_jobs_leased_by_id_created_at_id", "leased_by_id", "created_at", "id"),
        # An alert's confirmation jobs (confirm/), which every alerts page, alert and incident
        # reads: only confirmation jobs have an alert, a few among the fleet's run jobs.
        Index(
            "ix_jobs_alert_id",
            "alert_id",
            postgresql_where=text("alert_id IS NOT NULL"),
            sqlite_where=text("alert_id IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), default=JobKind.run)
    schedule_id: Mapped[int | None] = mapped_column(ForeignKey("schedules.id", ondelete="SET NULL"))
    # The firing this job belongs to (None for a job not made by a schedule's firing).
    fire_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    # The agent it was made for, and the one holding (or last holding) its lease.
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id"))
    leased_by_id: Mapped[int | None] = mapped_column(ForeignKey("agents.id"))
    pinned: Mapped[bool] = mapped_column(Boolean, default=False)
    # The schedule's agent selector when the job was made: names and/or label=value.
    selector: Mapped[list[str]] = mapped_column(JSONType, default=list)
    # A WorkloadSpec (core/workload.py), as JSON.
    spec: Mapped[dict[str, Any]] = mapped_column(JSONType)
    status: Mapped[str] = mapped_column(String(16), default=JobStatus.queued)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=3)
    lease_until: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    cancel_requested_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    # {"phase", "percent", "point": {param: value}, "done", "total"} as the agent last said.
    progress: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    # The last lines of the agent's log for this job (bounded; newest last).
    log_tail: Mapped[list[str]] = mapped_column(JSONType, default=list)
    error: Mapped[str | None] = mapped_column(Text)
    # A confirmation job: the alert it confirms, and its answer.
    alert_id: Mapped[int | None] = mapped_column(ForeignKey("alerts.id", ondelete="SET NULL"))
    verdict: Mapped[str | None] = mapped_column(String(16))
    # A confirmation job's plan (confirm/plan.py): its variants, rounds and time budget.
    plan: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    # A queued job not claimed by then is expired (the agent was away for its whole period).
    expires_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    started_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
