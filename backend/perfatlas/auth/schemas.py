"""Request and response bodies of the tokens API."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, StringConstraints

from perfatlas.auth.permissions import Scope

TokenName = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=r"^[^\x00]*$")]


class TokenCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: TokenName = Field(description="who or what will use it")
    scope: Scope = Field(
        description="read; upload (also triage); admin (everything); agent (read, and upload "
        "only as its agent)"
    )
    agent: TokenName | None = Field(
        default=None, description="the agent an agent token belongs to (scope agent only)"
    )


class TokenRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    scope: str
    agent: str | None = Field(validation_alias=AliasChoices("agent_name", "agent"))
    prefix: str = Field(description="the token's first characters, to tell tokens apart")
    created_at: dt.datetime
    last_used_at: dt.datetime | None = Field(description="updated at most once a minute")
    revoked_at: dt.datetime | None


class TokenCreated(TokenRead):
    token: str = Field(description="the token itself: shown only in this response")


class TokenList(BaseModel):
    items: list[TokenRead]
