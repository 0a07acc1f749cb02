"""The model registry: imports every domain's models so that Base.metadata is complete
(Alembic, tests). It lives outside core/, which knows no domain."""

from perfatlas.agents.models import Agent, EnrollmentToken
from perfatlas.alerts.models import Alert, AlertRule, DetectionRequest, Incident
from perfatlas.attachments.models import Attachment
from perfatlas.auth.models import ApiToken
from perfatlas.core.models import Base
from perfatlas.health.models import WorkerHeartbeat
from perfatlas.jobs.models import Job
from perfatlas.notifications.models import Channel, Notification
from perfatlas.reports.models import Report
from perfatlas.rollups.models import ExploreRollup, RunVariant
from perfatlas.runs.models import (
    CatalogValue,
    Environment,
    Result,
    RollupPending,
    Run,
    RunCount,
    Series,
)
from perfatlas.schedules.models import Schedule

__all__ = [
    "Agent",
    "Alert",
    "AlertRule",
    "ApiToken",
    "Attachment",
    "Base",
    "CatalogValue",
    "Channel",
    "DetectionRequest",
    "EnrollmentToken",
    "Environment",
    "ExploreRollup",
    "Incident",
    "Job",
    "Notification",
    "Report",
    "Result",
    "RollupPending",
    "Run",
    "RunCount",
    "RunVariant",
    "Schedule",
    "Series",
    "WorkerHeartbeat",
]
