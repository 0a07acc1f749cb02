"""Request and response bodies of the agents API: listing, enrollment, heartbeat."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import BaseModel, Field, StringConstraints

from perfatlas.core.schemas import Name, ShortText, StrictModel

AgentName = Annotated[
    str, StringConstraints(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.\-]+$")
]
Labels = Annotated[dict[Name, ShortText], Field(max_length=100)]
Version = Annotated[str, StringConstraints(max_length=64, pattern=r"^[^\x00]*$")]


class CurrentJob(BaseModel):
    id: int
    status: str
    percent: float | None


class AgentRead(BaseModel):
    name: str
    labels: dict[str, Any]
    version: str | None
    last_seen_at: dt.datetime | None
    runs: int
    enrolled: bool = Field(description="its daemon enrolled (perfatlas-agent enroll)")
    revoked: bool
    online: bool = Field(description="a heartbeat (or claim, or progress) within 45 s")
    heartbeat_at: dt.datetime | None
    current_job: CurrentJob | None = Field(description="the job it holds, if any")


class EnrollmentTokenCreate(StrictModel):
    labels: Labels = Field(default_factory=dict, description="labels the enrolled agent gets")
    expires_in_hours: Annotated[int, Field(ge=1, le=720)] = 24


class EnrollmentTokenCreated(BaseModel):
    token: str = Field(description="the enrollment token itself: shown only in this response")
    prefix: str
    expires_at: dt.datetime
    labels: dict[str, Any]


class EnrollIn(StrictModel):
    enrollment_token: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    name: AgentName
    labels: Labels = Field(default_factory=dict)
    version: Version | None = None


class Enrolled(BaseModel):
    name: str
    token: str = Field(description="the agent's own API token (scope agent): shown only here")
    labels: dict[str, Any]


class HeartbeatIn(StrictModel):
    version: Version | None = None
    labels: Labels | None = Field(
        default=None, description="when given, they replace the agent's labels"
    )


class HeartbeatOut(BaseModel):
    server_time: dt.datetime
