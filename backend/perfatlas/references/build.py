"""A reference table becomes runs: one per column, one result per row that has a value.

A run's uuid comes from the source, the workload and the column (with its agent, target,
labels and parameters), so posting the same table again is a retry; the same column with
other values is a conflict (409), not a second run."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import ValidationError

from perfatlas.core.errors import Invalid
from perfatlas.core.measurement import ResultCreate, RunCreate
from perfatlas.imports.common import Parsed, run_uuid
from perfatlas.references.schemas import ReferenceColumn, ReferenceCreate


def reference_runs(table: ReferenceCreate) -> Parsed:
    """The table's runs; without started_at they are timeless (imports.service keeps the time
    of their first import)."""
    started_at = table.started_at or dt.datetime.now(dt.UTC)
    runs = []
    for index, column in enumerate(table.columns):
        try:
            runs.append(_run(table, index, column, started_at))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in error.get("loc", ()))
            raise Invalid(
                f"body.columns[{index}]", f"{where or 'run'}: {error.get('msg', 'invalid')}"
            ) from None
    return Parsed(runs=runs, timeless=table.started_at is None)


def _run(
    table: ReferenceCreate, index: int, column: ReferenceColumn, started_at: dt.datetime
) -> RunCreate:
    agent = column.agent or table.agent
    target = column.target or column.name
    labels = table.labels | column.labels
    parameters = table.parameters | column.parameters
    results = [
        ResultCreate(
            metric=row.metric, unit=row.unit, direction=row.direction, value=row.values[index]
        )
        for row in table.rows
        if row.values[index] is not None
    ]
    meta: dict[str, Any] = {
        "reference": True,
        "source_url": table.source_url,
        "description": table.description,
        "column": column.name,
    }
    if table.title:
        meta["title"] = table.title
    if table.note:
        meta["note"] = table.note
    record = {
        "source_url": table.source_url,
        "workload": table.workload,
        "column": column.name,
        "parameters": parameters,
    }
    return RunCreate(
        uuid=run_uuid("reference", record, agent=agent, target=target, labels=labels),
        workload=table.workload,
        agent=agent,
        target=target,
        parameters=parameters,
        labels=labels,
        started_at=started_at,
        meta=meta,
        results=results,
    )
