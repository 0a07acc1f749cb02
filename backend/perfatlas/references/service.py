"""Storing a reference table: the importers' ingest, with the runs marked as references (the
route's call commits; the CLI's and the default reports' commit their own)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sqlalchemy.orm import Session

from perfatlas.core.db import commit_with_retry
from perfatlas.imports.service import store
from perfatlas.references.build import reference_runs
from perfatlas.references.schemas import ReferenceCreate
from perfatlas.runs.schemas import BatchItem, BatchRead
from perfatlas.runs.service import Ingested

# The seeds' tables, shipped in the package (the studies' default reports show them).
TABLES = Path(__file__).resolve().parent / "tables"


def store_reference(
    session: Session, table: ReferenceCreate, *, ignore_labels: Sequence[str]
) -> list[Ingested]:
    """Ingests the table's runs as references (runs.reference, the REFERENCE trust bit) in the
    caller's transaction. Durability the table does not give is stored as unknown."""
    return store(
        session,
        parsed=reference_runs(table),
        ignore_labels=ignore_labels,
        durability=table.durability.model_dump(),
        reference=True,
    )


def create_reference(
    session: Session, table: ReferenceCreate, *, ignore_labels: Sequence[str]
) -> BatchRead:
    """`store_reference`, committed (retried on a serialization failure): what was new."""
    outcomes = commit_with_retry(
        session, lambda: store_reference(session, table, ignore_labels=ignore_labels)
    )
    created = sum(1 for o in outcomes if o.created)
    return BatchRead(
        created=created,
        existing=len(outcomes) - created,
        runs=[BatchItem(uuid=o.uuid, created=o.created) for o in outcomes],
    )
