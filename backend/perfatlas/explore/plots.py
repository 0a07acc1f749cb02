"""A plot as the API answers it: explore's JSON body, kept for the next reader of the same
request (answers.py), and the same plot as CSV (export.py)."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import Response
from pydantic import BaseModel, ConfigDict
from sqlalchemy.orm import Session

from perfatlas.core.config import Settings
from perfatlas.core.csv import csv_response
from perfatlas.explore import answers, export, service
from perfatlas.explore.answers import Outcome
from perfatlas.explore.schemas import ExploreRead


class Plot(BaseModel):
    """What one explore request asks for, as the routes read it from the query: built in the
    route, so JSON and CSV ask the service alike."""

    model_config = ConfigDict(frozen=True)

    workload: str
    metric: Sequence[str]
    x: str
    group: str | None
    filters: Sequence[str]
    exact: bool
    order: Sequence[str]
    split: Sequence[str]
    pool: Sequence[str]


def _explore(session: Session, settings: Settings, plot: Plot) -> ExploreRead:
    return service.explore(
        session, workload=plot.workload, metric=plot.metric, x=plot.x, group=plot.group,
        filters=plot.filters, exact=plot.exact, exact_results=settings.explore_exact_results,
        order=plot.order, default_order=settings.value_order, split=plot.split, pool=plot.pool,
    )  # fmt: skip


def explore_json(session: Session, settings: Settings, plot: Plot) -> tuple[bytes, Outcome]:
    """Explore's answer as its JSON body, and whether it was kept from before (`hit`), computed
    (`miss`) or computed with the keeping off (`off`)."""
    # The settings that change the answer are part of what is asked.
    request = (plot.model_dump_json(), settings.explore_exact_results, settings.value_order)
    return answers.answer(
        session, request, megabytes=settings.explore_cache_mb,
        compute=lambda: _explore(session, settings, plot),
    )  # fmt: skip


def explore_csv(session: Session, settings: Settings, plot: Plot) -> Response:
    """What explore plots, as a CSV download: one row per point."""
    data = _explore(session, settings, plot)
    rows = export.csv_rows(data)
    return csv_response(rows, f"{plot.workload}-{'-'.join(data.metric.split(','))}-by-{plot.x}.csv")
