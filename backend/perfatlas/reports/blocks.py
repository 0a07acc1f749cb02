"""Each block's data, from the same service its page's route calls, with the report's pin as a
time filter; and the validation of a block, which is asking for its data."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy.orm import Session

from perfatlas.compare import service as compare_service
from perfatlas.compare.export import patterns
from perfatlas.core.config import Settings
from perfatlas.core.errors import DomainError, Invalid, NotFound
from perfatlas.explore import service as explore_service
from perfatlas.explore.schemas import ExploreRead
from perfatlas.reports.schemas import (
    Block,
    BlockData,
    CompareBlock,
    ExploreBlock,
    HeatmapBlock,
    MarkdownBlock,
    SeriesBlock,
)
from perfatlas.runs import service as runs_service
from perfatlas.series import service as series_service
from perfatlas.series.schemas import SeriesPoints, SeriesRead

TIME = "time:"
# The series page's columns, versions too: hover names the points' versions on a report too.
SERIES_FIELDS = ("run", "p5", "p95", "versions")


@dataclass(frozen=True)
class PageSettings:
    """What the pages' routes read from the server's settings, so that a block answers as its
    page does: explore's default order and exact threshold, the labels naming versions."""

    value_order: str = ""
    exact_results: int = explore_service.EXACT_RESULTS
    version_names: tuple[str, ...] = ()

    @classmethod
    def of(cls, settings: Settings) -> PageSettings:
        return cls(
            value_order=settings.value_order, exact_results=settings.explore_exact_results,
            version_names=tuple(settings.series_ignore_labels),
        )  # fmt: skip


def _instant(text: str) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None  # explore's own check names it
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def pin_filters(filters: list[str], pinned_at: dt.datetime | None) -> list[str]:
    """The filters with every time range ending at the pin at the latest (several ranges of
    one dimension mean any: each is cut, not one added beside them)."""
    if pinned_at is None:
        return list(filters)
    pin = pinned_at.astimezone(dt.UTC).isoformat()
    others = [f for f in filters if not f.startswith(TIME)]
    ranges = [f[len(TIME) :] for f in filters if f.startswith(TIME)]
    if not ranges:
        return [*others, f"{TIME}..{pin}"]
    cut = []
    for item in ranges:
        start, sep, end = item.partition("..")
        end_at = _instant(end) if sep and end else None
        if sep and (not end or (end_at is not None and end_at > pinned_at)):
            item = f"{start}..{pin}"
        cut.append(f"{TIME}{item}")
    return [*others, *cut]


def _explore(
    session: Session, block: ExploreBlock, pinned: dt.datetime | None, pages: PageSettings
) -> ExploreRead:
    return explore_service.explore(
        session, workload=block.workload, metric=block.metric, x=block.x,
        group=block.group or None, filters=pin_filters(block.filter, pinned),
        exact=block.exact, exact_results=pages.exact_results, order=block.order,
        default_order=pages.value_order, split=block.split, pool=block.pool,
    )  # fmt: skip


def heatmap_filters(block: HeatmapBlock) -> list[list[str]]:
    """The explore filters behind a heatmap: one grid, or a and b (frontend heatmapQueries)."""
    if block.diff and block.a and block.b:
        others = [f for f in block.filter if not f.startswith(f"{block.diff}:")]
        return [[*others, f"{block.diff}:{block.a}"], [*others, f"{block.diff}:{block.b}"]]
    return [list(block.filter)]


def _heatmap(
    session: Session, block: HeatmapBlock, pinned: dt.datetime | None, pages: PageSettings
) -> list[Any]:
    answers = []
    for filters in heatmap_filters(block):
        try:
            answers.append(
                explore_service.explore(
                    session,
                    workload=block.workload,
                    metric=block.metric,
                    x=block.x,
                    group=block.y,
                    filters=pin_filters(filters, pinned),
                    exact_results=pages.exact_results,
                    default_order=pages.value_order,
                )
            )
        except Invalid as exc:
            field = exc.extra["errors"][0]["field"]
            # The heatmap's rows are explore's group.
            message = exc.extra["errors"][0]["message"]
            raise Invalid("y" if field == "group" else field, message) from exc
    return answers


def _compare(
    session: Session, block: CompareBlock, pinned: dt.datetime | None, data: BlockData
) -> None:
    if block.runs is not None:
        if block.workload or block.by or block.values:
            raise Invalid("runs", "compare runs, or groups (workload, by, values), not both")
        runs = list(block.runs)
        if pinned is not None:
            # Fails as the compare route does on a run that is not there.
            runs = [
                u for u in runs if runs_service.get_run(session, run_uuid=u).started_at < pinned
            ]
            if len(runs) < 2:
                data.error = "fewer than two of its runs started before the report's pinned date"
                return
        data.compare = compare_service.compare_runs(
            session, run_uuids=runs, metrics=patterns(block.metric),
            min_effect_pct=block.min_effect,
        )  # fmt: skip
        return
    for name in ("workload", "by", "values"):
        if not getattr(block, name):
            raise Invalid(name, "a group compare needs workload, by and values (or give runs)")
    assert block.workload and block.by and block.values
    data.groups = compare_service.compare_groups(
        session, workload=block.workload, by=block.by, values=block.values,
        metrics=patterns(block.metric), filters=pin_filters(block.filter, pinned),
        pair_ignore=block.pair_ignore, min_effect_pct=block.min_effect,
    )  # fmt: skip


def _series(
    session: Session, block: SeriesBlock, pinned: dt.datetime | None, pages: PageSettings
) -> SeriesPoints:
    try:
        series = runs_service.get_series(session, series_id=block.series_id)
    except NotFound as exc:
        raise Invalid("series_id", exc.message) from exc
    points = series_service.series_points(
        session, series_id=block.series_id, until=pinned, limit=block.limit,
        fields=SERIES_FIELDS, version_names=pages.version_names,
    )  # fmt: skip
    header = SeriesRead(
        id=series.id, workload=series.workload, metric=series.metric, unit=series.unit,
        direction=series.direction, agent=series.agent.name, target=series.target,
        parameters=series.parameters, labels=series.labels, points=points.total,
        last_at=points.last_at,
    )  # fmt: skip
    # The columns are numpy arrays on PostgreSQL: through orjson as the points route sends them.
    columns = orjson.loads(orjson.dumps(points.columns, option=series_service.POINTS_JSON_OPTIONS))
    return SeriesPoints(series=header, older=points.older, **columns)


def block_data(
    session: Session, block: Block, *, index: int, pinned_at: dt.datetime | None,
    pages: PageSettings = PageSettings(),
) -> BlockData:  # fmt: skip
    """The block's data; a query its page would refuse is an Invalid naming blocks[i].field."""
    data = BlockData(index=index, kind=block.kind)
    try:
        if isinstance(block, ExploreBlock):
            data.explore = _explore(session, block, pinned_at, pages)
        elif isinstance(block, HeatmapBlock):
            data.heatmap = _heatmap(session, block, pinned_at, pages)
        elif isinstance(block, CompareBlock):
            _compare(session, block, pinned_at, data)
        elif isinstance(block, SeriesBlock):
            data.series = _series(session, block, pinned_at, pages)
        else:
            assert isinstance(block, MarkdownBlock)
    except Invalid as exc:
        error = exc.extra["errors"][0]
        raise Invalid(f"blocks[{index}].{error['field']}", error["message"]) from exc
    except NotFound as exc:
        field = "runs" if isinstance(block, CompareBlock) else "query"
        raise Invalid(f"blocks[{index}].{field}", exc.message) from exc
    return data


def live_data(
    session: Session, block: Block, *, index: int, pinned_at: dt.datetime | None,
    pages: PageSettings = PageSettings(),
) -> BlockData:  # fmt: skip
    """For reading a stored report: what its page would refuse now (a run deleted, say) is the
    block's error, not a failed page."""
    try:
        return block_data(session, block, index=index, pinned_at=pinned_at, pages=pages)
    except DomainError as exc:
        return BlockData(index=index, kind=block.kind, error=exc.message)
