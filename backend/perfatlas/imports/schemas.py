"""What an import answers: the batch outcome, and the values it could not read."""

from __future__ import annotations

from pydantic import BaseModel, Field

from perfatlas.core.measurement import ColdMethod, FsyncPolicy, WriteCache
from perfatlas.runs.schemas import BatchRead


class SkippedValue(BaseModel):
    job: str = Field(description="the fio job the value belongs to")
    field: str = Field(description="where it is in the job's JSON, such as read.clat_ns.mean")
    value: str = Field(description="what the file holds there, as JSON")


class ImportRead(BatchRead):
    skipped: list[SkippedValue] = Field(
        description="values that should be numbers but are not (NaN, text): not stored"
    )


class ImportDurability(BaseModel):
    """Durability facts an import may give (query parameters); a tool's output says nothing of
    the device's write cache or how caches were made cold, so those are stored as unknown."""

    fsync_policy: FsyncPolicy | None = None
    o_direct: bool | None = None
    sync_mount: bool | None = None
    write_cache: WriteCache | None = None
    flush_to_device: bool | None = None
    memory_backed: bool | None = None
    cold_method: ColdMethod | None = None
