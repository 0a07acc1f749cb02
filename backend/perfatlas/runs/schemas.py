"""Request and response bodies of the runs API (the ingest contract agents and importers use)."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
)

from perfatlas.core.trust import flag_names
from perfatlas.core.units import Direction


# A file kept with a run: attachments/ stores them, a run's answer lists them.
class AttachmentRead(BaseModel):
    name: str
    media_type: str
    size: int = Field(description="bytes")
    sha256: str = Field(description="hex digest of the content; also the download's ETag")
    created_at: dt.datetime
    url: str = Field(description="where to download it (the API path, token needed)")


class ResultRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    metric: str
    unit: str
    direction: Direction
    value: float
    samples: list[float]
    n: int
    mean: float
    stdev: float
    min: float
    max: float
    p5: float
    p50: float
    p95: float
    p99: float
    series_id: int
    flags: list[str] = Field(
        description="trust flags: short_phase, busy, few_repetitions, confirming, reference"
    )

    @field_validator("flags", mode="before")
    @classmethod
    def _flag_names(cls, value: Any) -> Any:
        return flag_names(value) if isinstance(value, int) else value


class EnvironmentRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    hash: str
    data: dict[str, Any]


class DurabilityFacts(BaseModel):
    """A run's durability and cache facts as stored (runs/durability.py)."""

    fsync_policy: str | None
    o_direct: bool | None
    sync_mount: bool | None
    write_cache: str | None
    flush_to_device: bool | None
    memory_backed: bool | None
    cold_method: str | None


class RunSummary(DurabilityFacts):
    uuid: uuid_mod.UUID
    workload: str
    agent: str
    target: str
    parameters: dict[str, Any]
    labels: dict[str, str]
    started_at: dt.datetime
    finished_at: dt.datetime | None
    status: str
    environment_id: int | None
    job_id: int | None
    reference: bool = Field(
        description="published figures entered by hand (meta.source_url says where from): "
        "never used by detection or as an alert's baseline"
    )


class TrustNote(BaseModel):
    flag: str
    reason: str
    metrics: list[str] = Field(description="the metrics it applies to")


class RunRead(RunSummary):
    environment: EnvironmentRead | None
    meta: dict[str, Any]
    results: list[ResultRead]
    trust: list[TrustNote] = Field(description="why some of this run's numbers need care")
    attachments: list[AttachmentRead] = Field(
        default_factory=list,
        description="files kept with the run (script, raw latencies, tool output), with where "
        "to download each",
    )


class RunPage(BaseModel):
    items: list[RunSummary]
    next_cursor: str | None = Field(description="pass as cursor to get the next page")
    total: int | None = Field(
        default=None,
        description="how many runs match, on every page, when the only filters are workload "
        "and agent (counted at ingest); null with any other filter, which would take a count "
        "over the runs",
    )


class BatchItem(BaseModel):
    uuid: uuid_mod.UUID
    created: bool = Field(description="false when the run was already stored (a retry)")


class BatchRead(BaseModel):
    created: int
    existing: int
    runs: list[BatchItem]


class SeriesRef(BaseModel):
    """What identifies a series: everything but time and version labels."""

    id: int
    workload: str
    metric: str
    unit: str
    direction: str
    agent: str
    target: str
    parameters: dict[str, Any]
    labels: dict[str, str]
