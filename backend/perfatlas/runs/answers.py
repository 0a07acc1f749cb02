"""A stored run as the API answers it: its summary (the runs list), and the whole run with its
results, trust notes and attachments."""

from __future__ import annotations

from collections.abc import Collection

from perfatlas.core import trust
from perfatlas.runs.models import Run
from perfatlas.runs.schemas import (
    AttachmentRead,
    EnvironmentRead,
    ResultRead,
    RunRead,
    RunSummary,
    TrustNote,
)


def to_summary(run: Run) -> RunSummary:
    return RunSummary(
        uuid=run.uuid, workload=run.workload, agent=run.agent.name, target=run.target,
        parameters=run.parameters, labels=run.labels, started_at=run.started_at,
        finished_at=run.finished_at, status=run.status, fsync_policy=run.fsync_policy,
        o_direct=run.o_direct, sync_mount=run.sync_mount, write_cache=run.write_cache,
        flush_to_device=run.flush_to_device, memory_backed=run.memory_backed,
        cold_method=run.cold_method, environment_id=run.environment_id, job_id=run.job_id,
        reference=run.reference,
    )  # fmt: skip


def to_read(
    run: Run, tentative: Collection[str] = (), files: list[AttachmentRead] | None = None
) -> RunRead:
    return RunRead(
        **to_summary(run).model_dump(),
        environment=EnvironmentRead.model_validate(run.environment) if run.environment else None,
        meta=run.meta,
        results=[ResultRead.model_validate(r) for r in run.results],
        trust=[
            TrustNote(flag=flag, reason=reason, metrics=metrics)
            for flag, reason, metrics in trust.notes(
                [(r.metric, r.flags) for r in run.results], tentative
            )
        ],
        attachments=files or [],
    )
