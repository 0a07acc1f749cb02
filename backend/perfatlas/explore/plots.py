"""A plot as the API answers it: explore's JSON body, kept for the next reader of the same
request (answers.py), and the same plot as CSV (export.py)."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import Response
from sqlalchemy.orm import Session

from perfatlas.core.config import Settings
from perfatlas.core.csv import csv_response
from perfatlas.explore import answers, export, service
from perfatlas.explore.answers import Outcome


def explore_json(
    session: Session,
    settings: Settings,
    *,
    workload: str,
    metric: Sequence[str],
    x: str,
    group: str | None,
    filters: Sequence[str],
    exact: bool,
    order: Sequence[str],
    split: Sequence[str],
    pool: Sequence[str],
) -> tuple[bytes, Outcome]:
    """Explore's answer as its JSON body, and whether it was kept from before (`hit`), computed
    (`miss`) or computed with the keeping off (`off`)."""
    request = (workload, tuple(metric), x, group, tuple(filters), exact,
               settings.explore_exact_results, tuple(order), settings.value_order,
               tuple(split), tuple(pool))  # fmt: skip
    return answers.answer(
        session, request, megabytes=settings.explore_cache_mb,
        compute=lambda: service.explore(
            session, workload=workload, metric=metric, x=x, group=group, filters=filters,
            exact=exact, exact_results=settings.explore_exact_results, order=order,
            default_order=settings.value_order, split=split, pool=pool,
        ),
    )  # fmt: skip


def explore_csv(
    session: Session,
    settings: Settings,
    *,
    workload: str,
    metric: Sequence[str],
    x: str,
    group: str | None,
    filters: Sequence[str],
    exact: bool,
    order: Sequence[str],
    split: Sequence[str],
    pool: Sequence[str],
) -> Response:
    """What explore plots, as a CSV download: one row per point."""
    data = service.explore(
        session, workload=workload, metric=metric, x=x, group=group, filters=filters,
        exact=exact, exact_results=settings.explore_exact_results, order=order,
        default_order=settings.value_order, split=split, pool=pool,
    )  # fmt: skip
    rows = export.csv_rows(data)
    return csv_response(rows, f"{workload}-{'-'.join(data.metric.split(','))}-by-{x}.csv")
