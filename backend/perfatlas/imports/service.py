"""Reading a tool's output (fio.py, bonnie.py) and storing what an importer read: the same
ingest as uploads, with the times of earlier imports."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.core.errors import Invalid
from perfatlas.core.measurement import RunCreate
from perfatlas.imports.bonnie import read_bonnie
from perfatlas.imports.common import Parsed
from perfatlas.imports.errors import ImportFormatError
from perfatlas.imports.fio import read_fio
from perfatlas.runs.models import Run
from perfatlas.runs.service import Ingested, ingest

# What a tool's output cannot tell: the importer says "unknown" unless the upload gives it.
UNKNOWN_FACTS = {"fsync_policy": "unknown", "write_cache": "unknown", "cold_method": "unknown"}
Tool = Literal["fio", "bonnie"]
_READERS = {"fio": read_fio, "bonnie": read_bonnie}


def parse(
    tool: Tool,
    data: bytes,
    *,
    agent: str | None,
    target: str | None,
    labels: dict[str, str],
    started_at: dt.datetime | None,
) -> Parsed:
    """The tool's output read as runs; Invalid naming `file` when it is not the tool's output
    or holds no results."""
    try:
        parsed = _READERS[tool](
            data, agent=agent, target=target, labels=labels, started_at=started_at
        )
    except ImportFormatError as exc:
        raise Invalid("file", str(exc)) from exc
    if not parsed.runs:
        raise Invalid("file", "the file holds no results to import")
    return parsed


def store(
    session: Session,
    *,
    parsed: Parsed,
    ignore_labels: Sequence[str],
    durability: Mapping[str, Any] | None = None,
    reference: bool = False,
) -> list[Ingested]:
    """Ingests the runs; a file without a time that was imported before keeps the times of
    that import, so that importing it again is a retry (its run uuids come from the content).

    Durability facts the upload gives win over what the file says (fio's job options tell
    its fsync policy and O_DIRECT) and are part of the runs; what neither says is stored as
    unknown, which leaves the runs' bodies as the file gave them (a re-import is a retry).
    `reference`: the runs are published figures (references/), never detected on."""
    given = {k: v for k, v in (durability or {}).items() if v is not None}
    runs = [run.model_copy(update=given) for run in parsed.runs] if given else parsed.runs
    runs = _with_stored_times(session, runs) if parsed.timeless else runs
    return ingest(
        session, runs=runs, ignore_labels=ignore_labels, unknown_facts=UNKNOWN_FACTS,
        reference=reference,
    )  # fmt: skip


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
