"""Bodies of the attachments API."""

from __future__ import annotations

from pydantic import BaseModel

from perfatlas.runs.schemas import AttachmentRead


class AttachmentList(BaseModel):
    items: list[AttachmentRead]
    total_bytes: int
