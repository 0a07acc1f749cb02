"""Storing a reference table: the importers' ingest, with the runs marked as references."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sqlalchemy.orm import Session

from perfatlas.imports.service import store
from perfatlas.references.build import reference_runs
from perfatlas.references.schemas import ReferenceCreate
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
