"""A tool's output imported across domains: read as runs the uploader may upload, stored in one
transaction that asks for their detection, which is queued once the answer is out."""

from __future__ import annotations

import datetime as dt

from fastapi import BackgroundTasks
from sqlalchemy.orm import Session

from perfatlas.alerts.pending import Requested
from perfatlas.auth.permissions import Principal
from perfatlas.auth.service import check_agent
from perfatlas.core.config import Settings
from perfatlas.flows.after_ingest import batch_stored, commit_ingest, request_after_ingest
from perfatlas.imports import service
from perfatlas.imports.common import Parsed
from perfatlas.imports.schemas import ImportDurability, ImportRead, SkippedValue
from perfatlas.runs.service import Ingested


def import_output(
    session: Session,
    settings: Settings,
    background: BackgroundTasks,
    *,
    tool: service.Tool,
    data: bytes,
    agent: str | None,
    target: str | None,
    labels: dict[str, str],
    started_at: dt.datetime | None,
    principal: Principal,
    durability: ImportDurability,
) -> ImportRead:
    """Read the tool's output (Invalid naming `file` when it cannot be), check that the principal
    may upload as each run's agent, and store the runs (store_import)."""
    parsed = service.parse(
        tool, data, agent=agent, target=target, labels=labels, started_at=started_at
    )
    for run in parsed.runs:
        check_agent(principal, agent=run.agent, field="query.agent")
    return store_import(session, settings, background, parsed, durability)


def store_import(
    session: Session,
    settings: Settings,
    background: BackgroundTasks,
    parsed: Parsed,
    durability: ImportDurability,
) -> ImportRead:
    """Store the parsed runs (runs stored already are not duplicated) and say what was new and
    what the parser skipped."""

    def store() -> tuple[list[Ingested], Requested]:
        stored = service.store(
            session,
            parsed=parsed,
            ignore_labels=settings.series_ignore_labels,
            durability=durability.model_dump(),
        )
        return stored, request_after_ingest(session, settings, stored)

    outcomes, requested = commit_ingest(session, store)
    batch = batch_stored(settings, background, outcomes, requested)
    skipped = [SkippedValue(job=s.job, field=s.field, value=s.value) for s in parsed.skipped]
    return ImportRead(**dict(batch), skipped=skipped)
