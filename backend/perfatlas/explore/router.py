"""Explore, the catalog and the agents list, and the explore CSV export."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from perfatlas.api.deps import ReadPrincipal, SessionDep
from perfatlas.explore import catalog as catalog_service
from perfatlas.explore import service
from perfatlas.explore.schemas import Catalog, ExploreRead

router = APIRouter(tags=["explore"])

FilterQuery = Annotated[
    list[str],
    Query(description="dimension:value, repeatable; several values of one dimension mean any"),
]
X_DOC = (
    "the x axis: time, a built-in dimension (agent, host, fs_type, kernel, ...), a parameter "
    "or label name (param.NAME / label.NAME to be explicit), or env.KEY"
)


def _csv(rows: Iterable[Iterable[Any]], filename: str) -> Response:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerows(rows)
    return Response(
        content=buffer.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.get("/explore", operation_id="explore", response_model=ExploreRead)
def explore(
    session: SessionDep,
    _: ReadPrincipal,
    workload: str,
    metric: str,
    x: Annotated[str, Query(description=X_DOC)] = "time",
    group: Annotated[str | None, Query(description="one trace per value of this dimension")] = None,
    filter: FilterQuery = [],  # noqa: B006
) -> ExploreRead:
    """A metric against any dimension, one trace per group: median with min/max and p5/p95."""
    return service.explore(
        session, workload=workload, metric=metric, x=x, group=group, filters=filter
    )


@router.get("/explore.csv", operation_id="explore_csv", response_class=Response)
def explore_csv(
    session: SessionDep,
    _: ReadPrincipal,
    workload: str,
    metric: str,
    x: Annotated[str, Query(description=X_DOC)] = "time",
    group: str | None = None,
    filter: FilterQuery = [],  # noqa: B006
) -> Response:
    """What explore plots, as CSV: one row per point."""
    data = service.explore(
        session, workload=workload, metric=metric, x=x, group=group, filters=filter
    )
    header = [group or "group", x, "n", "median", "mean", "min", "max", "p5", "p95", "unit", "runs"]
    rows: list[list[Any]] = [header]
    for trace in data.traces:
        for p in trace.points:
            rows.append(
                [trace.group, p.x, p.n, p.median, p.mean, p.min, p.max, p.p5, p.p95, data.unit,
                 " ".join(str(r) for r in p.runs)]
            )  # fmt: skip
    return _csv(rows, f"{workload}-{metric}-by-{x}.csv")


@router.get("/catalog", operation_id="catalog", response_model=Catalog)
def catalog(session: SessionDep, _: ReadPrincipal, workload: str | None = None) -> Catalog:
    """Workloads with their metrics, parameters and labels (and the values seen): what to explore."""
    return catalog_service.catalog(session, workload=workload)
