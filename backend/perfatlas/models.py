"""The model registry: imports every domain's models so that Base.metadata is complete
(Alembic, tests). It lives outside core/, which knows no domain."""

from perfatlas.agents.models import Agent
from perfatlas.alerts.models import Alert, AlertRule, Incident
from perfatlas.auth.models import ApiToken
from perfatlas.core.models import Base
from perfatlas.notifications.models import Channel, Notification
from perfatlas.runs.models import Environment, Result, Run, Series

__all__ = [
    "Agent",
    "Alert",
    "AlertRule",
    "ApiToken",
    "Base",
    "Channel",
    "Environment",
    "Incident",
    "Notification",
    "Result",
    "Run",
    "Series",
]
