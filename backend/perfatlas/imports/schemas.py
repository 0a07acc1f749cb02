"""What an import answers: the batch outcome, and the values it could not read."""

from __future__ import annotations

from pydantic import BaseModel, Field

from perfatlas.runs.schemas import BatchRead


class SkippedValue(BaseModel):
    job: str = Field(description="the fio job the value belongs to")
    field: str = Field(description="where it is in the job's JSON, such as read.clat_ns.mean")
    value: str = Field(description="what the file holds there, as JSON")


class ImportRead(BatchRead):
    skipped: list[SkippedValue] = Field(
        description="values that should be numbers but are not (NaN, text): not stored"
    )
