"""Imports every model so that Base.metadata is complete (Alembic, tests)."""

from perfatlas.auth.models import ApiToken
from perfatlas.core.models import Base
from perfatlas.runs.models import Agent, Environment, Result, Run, Series

__all__ = ["Agent", "ApiToken", "Base", "Environment", "Result", "Run", "Series"]
