"""A run across domains: one upload stored with those beside it and its detection asked for, a
batch of them (a large one from its bytes: large_batch.py), and a stored run as the API answers
it, with its attachments and the metrics whose series have a tentative change (alerts)."""

from __future__ import annotations

import uuid as uuid_mod

from fastapi import BackgroundTasks
from sqlalchemy.orm import Session

from perfatlas.alerts.queries import tentative_series
from perfatlas.attachments import export as attachments_export
from perfatlas.attachments import service as attachments
from perfatlas.auth.permissions import Principal
from perfatlas.auth.service import check_runs_agents
from perfatlas.core.config import Settings
from perfatlas.core.errors import body_invalid, validated_json
from perfatlas.core.measurement import RunBatchCreate, RunCreate
from perfatlas.flows import large_batch
from perfatlas.flows.after_ingest import batch_stored, detect_after_ingest
from perfatlas.flows.group_commit import GroupCommit
from perfatlas.runs import service
from perfatlas.runs.answers import to_read
from perfatlas.runs.schemas import BatchRead, RunRead


def upload_run(
    session: Session,
    settings: Settings,
    background: BackgroundTasks,
    groups: GroupCommit,
    body: RunCreate,
) -> tuple[RunRead, bool]:
    """Store one run with the uploads beside it (a retry with the same uuid and body finds it
    stored); the run as stored, and whether this upload created it."""
    (outcome,), requested = groups.store(session, settings, [body])
    if outcome.created:
        background.add_task(detect_after_ingest, settings, 1, requested)
    run = service.get_run(session, run_uuid=outcome.uuid)
    files = [] if outcome.created else attachments.of_run(session, run_id=run.id, run_uuid=run.uuid)
    read = to_read(run, files=files)
    session.close()  # here, not in the event loop: the read's transaction ends in a round trip
    return read, outcome.created


def upload_batch(
    session: Session,
    settings: Settings,
    background: BackgroundTasks,
    groups: GroupCommit,
    *,
    principal: Principal,
    raw: bytes | bytearray,
) -> BatchRead:
    """Store a batch's runs, all or nothing (those stored already are not duplicated), as the
    principal may upload them (a 422 for a body at fault, naming each field): a large body from
    its bytes a chunk of runs at a time (large_batch.py), a small one validated whole and
    stored with the uploads beside it (group_commit.py)."""
    try:
        large = large_batch.prepare(raw, large=settings.large_batch_bytes)
    except large_batch.BatchInvalid as exc:
        raise body_invalid(exc.errors) from None
    if large is not None:
        check_runs_agents(principal, large.agents)
        outcomes, requested = large_batch.store(session, settings, large)
    else:
        runs = validated_json(RunBatchCreate, raw).runs
        check_runs_agents(principal, [run.agent for run in runs])
        outcomes, requested = groups.store(session, settings, runs)
        del runs
    del large
    return batch_stored(settings, background, outcomes, requested)


def read_run(session: Session, *, run_uuid: uuid_mod.UUID) -> RunRead:
    """One run with its environment, every result with its samples, its trust notes and its
    attachments."""
    run = service.get_run(session, run_uuid=run_uuid)
    tentative = tentative_series(session, [r.series_id for r in run.results])
    files = attachments.of_run(session, run_id=run.id, run_uuid=run.uuid)
    return to_read(run, [r.metric for r in run.results if r.series_id in tentative], files)


def export_run(session: Session, *, run_uuid: uuid_mod.UUID) -> bytes:
    """The run (as read_run answers it) and its attachments as one zip."""
    read = read_run(session, run_uuid=run_uuid)
    return attachments_export.archive(
        session, run_uuid=run_uuid, run_json=read.model_dump_json(indent=1).encode()
    )
