"""A run's head: what ingest reads of a run besides the rows it writes of it."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from dataclasses import dataclass
from typing import Any, NamedTuple

from perfatlas.core.canonical import content_hash
from perfatlas.core.measurement import RunCreate


class ResultHead(NamedTuple):
    metric: str
    unit: str
    direction: str


@dataclass(frozen=True, slots=True)
class RunHead:
    """What ingest reads of a run before and after writing its rows: its keys and dimensions,
    not its samples, meta or environment (a large batch keeps only these of every run while
    its rows are written a chunk of runs at a time: flows/large_batch.py)."""

    uuid: uuid_mod.UUID
    workload: str
    agent: str
    agent_version: str | None
    target: str
    parameters: dict[str, Any]
    labels: dict[str, str]
    started_at: dt.datetime
    status: str
    job_id: int | None
    results: tuple[ResultHead, ...]
    environment_hash: str | None


def head_of(run: RunCreate) -> RunHead:
    return RunHead(
        uuid=run.uuid, workload=run.workload, agent=run.agent, agent_version=run.agent_version,
        target=run.target, parameters=run.parameters, labels=run.labels,
        started_at=run.started_at, status=run.status, job_id=run.job_id,
        results=tuple(ResultHead(r.metric, r.unit, r.direction or "") for r in run.results),
        environment_hash=content_hash(run.environment) if run.environment else None,
    )  # fmt: skip
