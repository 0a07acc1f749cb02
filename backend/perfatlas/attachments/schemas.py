"""Bodies of the attachments API."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field


class AttachmentRead(BaseModel):
    name: str
    media_type: str
    size: int = Field(description="bytes")
    sha256: str = Field(description="hex digest of the content; also the download's ETag")
    created_at: dt.datetime
    url: str = Field(description="where to download it (the API path, token needed)")


class AttachmentList(BaseModel):
    items: list[AttachmentRead]
    total_bytes: int
