"""Imports every model so that Base.metadata is complete (Alembic, tests)."""

from perfatlas.alerts.models import Alert, AlertRule, Channel, Incident, Notification
from perfatlas.auth.models import ApiToken
from perfatlas.core.models import Base
from perfatlas.runs.models import Agent, Environment, Result, Run, Series

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
