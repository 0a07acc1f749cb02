"""The catalog: workloads, their metrics, and the parameters and labels seen with their values."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from perfatlas.explore.schemas import Catalog, CatalogMetric, CatalogWorkload
from perfatlas.runs.dimensions import BUILTIN, TIME
from perfatlas.runs.models import Run, Series

MAX_VALUES = 200


def _sort_values(values: set[Any]) -> list[Any]:
    def key(value: Any) -> tuple[int, Any]:
        if isinstance(value, bool):
            return (1, str(value))
        if isinstance(value, int | float):
            return (0, value)
        return (2, str(value))

    return sorted(values, key=key)[:MAX_VALUES]


def _keys_and_values(documents: list[dict[str, Any]]) -> dict[str, list[Any]]:
    seen: dict[str, set[Any]] = defaultdict(set)
    for document in documents:
        for key, value in (document or {}).items():
            seen[key].add(value)
    return {key: _sort_values(values) for key, values in sorted(seen.items())}


def catalog(session: Session, *, workload: str | None = None) -> Catalog:
    query = select(Run.workload, func.count()).group_by(Run.workload).order_by(Run.workload)
    if workload:
        query = query.where(Run.workload == workload)
    workloads = []
    for name, runs in session.execute(query).all():
        metrics = session.execute(
            select(Series.metric, Series.unit, Series.direction)
            .where(Series.workload == name)
            .distinct()
            .order_by(Series.metric)
        ).all()
        # Distinct documents, not rows: a sweep has few parameter sets and label sets.
        parameters = list(
            session.scalars(select(Run.parameters).where(Run.workload == name).distinct())
        )
        labels = list(session.scalars(select(Run.labels).where(Run.workload == name).distinct()))
        workloads.append(
            CatalogWorkload(
                name=name,
                runs=runs,
                metrics=[CatalogMetric(name=m, unit=u, direction=d) for m, u, d in metrics],
                parameters=_keys_and_values(parameters),
                labels={k: [str(v) for v in vs] for k, vs in _keys_and_values(labels).items()},
            )
        )
    return Catalog(workloads=workloads, dimensions=[TIME, *BUILTIN])
