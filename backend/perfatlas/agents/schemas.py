"""Response bodies of the agents API."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel


class AgentRead(BaseModel):
    name: str
    labels: dict[str, Any]
    version: str | None
    last_seen_at: dt.datetime | None
    runs: int
