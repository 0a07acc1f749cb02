"""The catalog: workloads, their metrics, and the parameters and labels seen with their values."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.core.natural import natural_sorted
from perfatlas.explore.schemas import Catalog, CatalogMetric, CatalogWorkload
from perfatlas.runs.dimensions import BUILTIN, TIME
from perfatlas.runs.models import Series
from perfatlas.runs.tallies import (
    LABEL,
    PARAMETER,
    agents_by_workload,
    runs_by_workload,
    values_seen,
)

MAX_VALUES = 200


def _sort_values(values: set[Any]) -> list[Any]:
    # Natural order (2.1.9 < 2.1.10 < 2.2.0-rc1 < 2.2.0, numbers as numbers, words last): the
    # order the pickers list them in and explore plots them in.
    return natural_sorted(values)[:MAX_VALUES]


def _keys_and_values(seen: dict[str, list[Any]]) -> dict[str, list[Any]]:
    return {key: _sort_values(set(values)) for key, values in sorted(seen.items())}


def catalog(session: Session, *, workload: str | None = None) -> Catalog:
    """From what ingest keeps (runs/tallies.py): its size grows with the workloads, metrics and
    distinct values, not with the runs."""
    runs = runs_by_workload(session, workload=workload or None)
    seen = values_seen(session, workload=workload or None)
    agents = agents_by_workload(session, workload=workload or None)
    metrics: dict[str, list[CatalogMetric]] = {}
    query = select(Series.workload, Series.metric, Series.unit, Series.direction).distinct()
    if workload:
        query = query.where(Series.workload == workload)
    for name, metric, unit, direction in session.execute(
        query.order_by(Series.workload, Series.metric, Series.unit, Series.direction)
    ):
        metrics.setdefault(name, []).append(
            CatalogMetric(name=metric, unit=unit, direction=direction)
        )
    workloads = []
    for name, count in runs.items():
        values = seen.get(name, {PARAMETER: {}, LABEL: {}})
        workloads.append(
            CatalogWorkload(
                name=name,
                runs=count,
                metrics=metrics.get(name, []),
                parameters=_keys_and_values(values[PARAMETER]),
                labels={
                    k: [str(v) for v in vs] for k, vs in _keys_and_values(values[LABEL]).items()
                },
                agents=natural_sorted(agents.get(name, [])),
            )
        )
    return Catalog(workloads=workloads, dimensions=[TIME, *BUILTIN])
