"""A report block's data as its page's CSV download."""

from __future__ import annotations

from typing import Any

from fastapi import Response
from sqlalchemy.orm import Session

from perfatlas.compare import export as compare_export
from perfatlas.core.csv import csv_response
from perfatlas.core.errors import NotFound
from perfatlas.explore import export as explore_export
from perfatlas.explore.schemas import ExploreRead
from perfatlas.reports.blocks import PageSettings
from perfatlas.reports.service import one_block
from perfatlas.series.schemas import SeriesPoints


def block_csv(session: Session, *, slug: str, index: int, pages: PageSettings) -> Response:
    """One block's data as its page's CSV download (NotFound for a block without data)."""
    data = one_block(session, slug=slug, index=index, pages=pages)[1]
    name = f"{slug}-block-{index}.csv"
    if data.explore is not None:
        return csv_response(explore_export.csv_rows(data.explore), name)
    if data.heatmap is not None:
        return csv_response(_heatmap_rows(data.heatmap), name)
    if data.compare is not None:
        return compare_export.runs_csv(data.compare)
    if data.groups is not None:
        return compare_export.groups_csv(data.groups)
    if data.series is not None:
        return csv_response(_series_rows(data.series), name)
    raise NotFound(data.error or f"block {index} ({data.kind}) has no data to download")


def _heatmap_rows(heatmap: list[ExploreRead]) -> list[list[Any]]:
    """One explore table, or two (a then b) under a `side` column."""
    rows: list[list[Any]] = []
    for side, answer in zip("ab", heatmap, strict=False):
        table = explore_export.csv_rows(answer)
        label = [side] if len(heatmap) > 1 else []
        rows += [(["side"] if len(heatmap) > 1 else []) + table[0]] if not rows else []
        rows += [label + row for row in table[1:]]
    return rows


def _series_rows(s: SeriesPoints) -> list[list[Any]]:
    none: list[Any] = [None] * len(s.t)
    p5, p95, runs = s.p5 or none, s.p95 or none, s.run or none
    rows: list[list[Any]] = [["t", "value", "p5", "p95", "run", "unit"]]
    rows += [
        [t.isoformat(), s.value[i], p5[i], p95[i], runs[i], s.series.unit]
        for i, t in enumerate(s.t)
    ]
    return rows
