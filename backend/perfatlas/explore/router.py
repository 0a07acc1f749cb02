"""Explore, compare and their CSV exports."""

from __future__ import annotations

import csv
import io
import re
import uuid as uuid_mod
from collections.abc import Iterable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from perfatlas.api.deps import ReadPrincipal, SessionDep
from perfatlas.core.errors import Invalid
from perfatlas.explore import catalog as catalog_service
from perfatlas.explore import service
from perfatlas.explore.schemas import AgentRead, Catalog, CompareRead, ExploreRead

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
    # The name comes from the query: a header holds only latin-1, and no quote or line break.
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", filename)
    return Response(
        content=buffer.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{safe}"'},
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


def _run_ids(runs: list[str]) -> list[uuid_mod.UUID]:
    ids: list[uuid_mod.UUID] = []
    for item in runs:
        for part in item.split(","):
            if not part.strip():
                continue
            try:
                ids.append(uuid_mod.UUID(part.strip()))
            except ValueError as exc:
                raise Invalid("runs", f"{part.strip()!r} is not a run uuid") from exc
    return ids


RunsQuery = Annotated[
    list[str],
    Query(description="run uuids, repeated or comma-separated; the first is the baseline"),
]


@router.get("/compare", operation_id="compare", response_model=CompareRead)
def compare(session: SessionDep, _: ReadPrincipal, runs: RunsQuery) -> CompareRead:
    """Runs side by side: every metric, its change against the first run, durability warnings."""
    return service.compare(session, run_uuids=_run_ids(runs))


@router.get("/compare.csv", operation_id="compare_csv", response_class=Response)
def compare_csv(session: SessionDep, _: ReadPrincipal, runs: RunsQuery) -> Response:
    """The compare table as CSV: metrics as rows, runs as columns, then the differences."""
    data = service.compare(session, run_uuids=_run_ids(runs))
    names = [str(r.uuid) for r in data.runs]
    rows: list[list[Any]] = [
        ["metric", "unit", "direction", *names, *[f"diff_pct {n}" for n in names[1:]]]
    ]
    for m in data.metrics:
        rows.append([m.metric, m.unit, m.direction, *m.values, *m.diff_pct[1:]])
    if data.warning:
        rows.append([])
        rows.append(["warning", data.warning])
    return _csv(rows, "compare.csv")


@router.get("/catalog", operation_id="catalog", response_model=Catalog)
def catalog(session: SessionDep, _: ReadPrincipal, workload: str | None = None) -> Catalog:
    """Workloads with their metrics, parameters and labels (and the values seen): what to explore."""
    return catalog_service.catalog(session, workload=workload)


@router.get("/agents", operation_id="list_agents", response_model=list[AgentRead], tags=["agents"])
def list_agents(session: SessionDep, _: ReadPrincipal) -> list[AgentRead]:
    """The machines that have uploaded runs, most recently seen first."""
    return catalog_service.list_agents(session)
