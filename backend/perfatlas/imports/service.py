"""Storing what an importer read: the same ingest as uploads, with the times of earlier imports."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.imports.common import Parsed
from perfatlas.runs.models import Run
from perfatlas.runs.schemas import RunCreate
from perfatlas.runs.service import Ingested, ingest


def store(session: Session, *, parsed: Parsed, ignore_labels: Sequence[str]) -> list[Ingested]:
    """Ingests the runs; a file without a time that was imported before keeps the times of
    that import, so that importing it again is a retry (its run uuids come from the content)."""
    runs = _with_stored_times(session, parsed.runs) if parsed.timeless else parsed.runs
    return ingest(session, runs=runs, ignore_labels=ignore_labels)


def _with_stored_times(session: Session, runs: list[RunCreate]) -> list[RunCreate]:
    stored = {
        row.uuid: (row.started_at, row.finished_at)
        for row in session.execute(
            select(Run.uuid, Run.started_at, Run.finished_at).where(
                Run.uuid.in_([run.uuid for run in runs])
            )
        )
    }
    if not stored:
        return runs
    return [
        run.model_copy(
            update={"started_at": stored[run.uuid][0], "finished_at": stored[run.uuid][1]}
        )
        if run.uuid in stored
        else run
        for run in runs
    ]
