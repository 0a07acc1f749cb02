"""The studies' default reports (`defaults/*.json`, one per study of `perfatlas-agent study`,
each the body of POST /reports) and `install_defaults`, which stores the reference tables they
show (references/tables/) and then creates each report whose slug is not taken: a report a
user edited is never overwritten, unless `replace` is asked for."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.core.db import commit_with_retry
from perfatlas.core.errors import DomainError
from perfatlas.references.schemas import ReferenceCreate
from perfatlas.references.service import TABLES, store_reference
from perfatlas.reports.models import Report
from perfatlas.reports.schemas import ReportCreate
from perfatlas.reports.service import import_report
from perfatlas.runs.service import Ingested

DEFAULTS = Path(__file__).resolve().parent / "defaults"


@dataclass(frozen=True)
class Outcome:
    name: str  # a report's slug, or a reference table's file name
    state: str  # created, replaced, kept (the slug existed), stored, error
    detail: str = ""


def default_reports() -> list[ReportCreate]:
    return [
        ReportCreate.model_validate_json(path.read_bytes())
        for path in sorted(DEFAULTS.glob("*.json"))
    ]


def reference_tables() -> list[tuple[str, ReferenceCreate]]:
    return [
        (path.name, ReferenceCreate.model_validate(json.loads(path.read_text(encoding="utf-8"))))
        for path in sorted(TABLES.glob("*.json"))
    ]


def install_defaults(
    session: Session, *, replace: bool = False, ignore_labels: Sequence[str] = ()
) -> list[Outcome]:
    """The reference tables first (a table stored before is a retry: nothing changes), so that
    the reports' blocks that show them find their dimensions; then every default report whose
    slug is free (all of them with `replace`). A report refused (a block naming a dimension the
    runs do not have) is an error outcome; the others are still installed."""
    out: list[Outcome] = []
    for name, table in reference_tables():

        def store(t: ReferenceCreate = table) -> list[Ingested]:
            return store_reference(session, t, ignore_labels=ignore_labels)

        runs = commit_with_retry(session, store)
        made = sum(1 for r in runs if r.created)
        out.append(Outcome(name, "stored", f"{made} of {len(runs)} runs new"))
    for report in default_reports():
        taken = session.scalar(select(Report.id).where(Report.slug == report.slug))
        if taken is not None and not replace:
            out.append(Outcome(report.slug, "kept", "exists already (--replace overwrites it)"))
            continue
        try:
            _, created = import_report(session, data=report)
        except DomainError as exc:
            session.rollback()
            out.append(Outcome(report.slug, "error", str(exc)))
            continue
        out.append(Outcome(report.slug, "created" if created else "replaced"))
    return out
