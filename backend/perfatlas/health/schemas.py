"""Health and readiness answers."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field


class Health(BaseModel):
    status: Literal["ok", "down"]
    version: str
    database: str = Field(description="the database's dialect (postgresql, sqlite)")
    down: list[str] = Field(default_factory=list, description="what does not answer")
    since: dt.datetime | None = Field(default=None, description="when it stopped answering")


class Part(BaseModel):
    name: Literal["database", "broker", "worker", "fold_backlog", "check_backlog"]
    ok: bool
    detail: str = Field(description="what was found, for a person")
    since: dt.datetime | None = Field(
        default=None, description="when it went down, or since when the oldest waiting item waits"
    )
    age_seconds: float | None = Field(
        default=None, description="the heartbeat's or the oldest waiting item's age"
    )


class Ready(BaseModel):
    """Whether this deployment does all its work: 503 with the same body when not."""

    status: Literal["ready", "not_ready"]
    parts: list[Part]
