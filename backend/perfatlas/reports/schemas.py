"""Report bodies: the report, its blocks (each the query of its page), and the blocks' data."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from perfatlas.compare.schemas import CompareRead, GroupCompareRead
from perfatlas.core.significance import DEFAULT_MIN_EFFECT_PCT
from perfatlas.explore.schemas import ExploreRead
from perfatlas.series.schemas import SeriesPoints

SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,63}$"
MAX_BLOCKS = 50
Text = Annotated[str, Field(max_length=200)]
Filters = Annotated[
    list[Annotated[str, Field(max_length=300)]],
    Field(default_factory=list, max_length=50, description="dimension:value, as Explore's"),
]


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: Text | None = Field(default=None, description="a caption above the block")
    empty_note: Annotated[str, Field(max_length=500)] | None = Field(
        default=None,
        description="why the block may have no runs (a part of a study that needs root, say), "
        "shown beside the reason the data gives when a group, a plot or a table has none",
    )


class ExploreBlock(_Block):
    """Explore's query (GET /explore) and how its page draws it."""

    kind: Literal["explore"]
    workload: Text
    metric: Annotated[str, Field(max_length=2000)] = Field(
        description="one metric; several, comma-separated, with group=metric"
    )
    x: Text = "time"
    group: Text | None = None
    filter: Filters
    view: Literal["lines", "box", "points"] = "lines"
    logx: bool = False
    logy: bool = False
    # Explore's own settings (GET /explore's order, split, pool and exact): the block's data is
    # the page's answer to all of them, and "Open" takes them back to the page. Reports stored
    # before they were blocks' settings read them as left out: the page's defaults.
    order: list[Annotated[str, Field(max_length=2000)]] = Field(
        default_factory=list, max_length=50,
        description="dimension:value,value,... as Explore's `order` (`*` the others)",
    )  # fmt: skip
    split: list[Text] = Field(
        default_factory=list, max_length=20,
        description="dimensions to split traces by besides the default split; `none`: no "
        "default split (Explore's `split`)",
    )  # fmt: skip
    pool: list[Text] = Field(
        default_factory=list, max_length=20,
        description="parameters and durability facts left pooled (Explore's `pool`)",
    )  # fmt: skip
    exact: bool = Field(default=False, description="exact medians however many results")


class HeatmapBlock(_Block):
    """The heatmap page's query: metric over x and y; with diff, b against a in percent."""

    kind: Literal["heatmap"]
    workload: Text
    metric: Text
    x: Text
    y: Text
    filter: Filters
    diff: Text | None = Field(default=None, description="a dimension whose a and b are compared")
    a: Text | None = None
    b: Text | None = None


class CompareBlock(_Block):
    """Compare's query: runs side by side (`runs`, the first the baseline, one column each), or
    groups (`workload`, `by`, `values`: one column per group, the first the baseline)."""

    kind: Literal["compare"]
    runs: list[uuid_mod.UUID] | None = Field(default=None, max_length=20)
    workload: Text | None = None
    by: Text | None = None
    values: list[Text] | None = Field(default=None, max_length=20)
    filter: Filters
    pair_ignore: list[Text] | None = None
    metric: list[Text] = Field(
        default_factory=list, max_length=100, description="names or globs; every metric if empty"
    )
    min_effect: float = Field(default=DEFAULT_MIN_EFFECT_PCT, ge=0, le=1000)


class SeriesBlock(_Block):
    """A series' history (the series page)."""

    kind: Literal["series"]
    series_id: int = Field(ge=1)
    limit: int = Field(default=1000, ge=1, le=10_000, description="the newest points shown")


class MarkdownBlock(_Block):
    kind: Literal["markdown"]
    text: str = Field(max_length=100_000)


Block = Annotated[
    ExploreBlock | HeatmapBlock | CompareBlock | SeriesBlock | MarkdownBlock,
    Field(discriminator="kind"),
]


class ReportWrite(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: Annotated[str, Field(min_length=1, max_length=200)]
    notes: str = Field(default="", max_length=200_000, description="markdown (no raw HTML)")
    blocks: list[Block] = Field(default_factory=list, max_length=MAX_BLOCKS)
    pinned_at: dt.datetime | None = Field(
        default=None, description="null: live; a time: only runs started before it"
    )


class ReportCreate(ReportWrite):
    slug: Annotated[str, Field(pattern=SLUG_PATTERN)] = Field(
        description="the report's address: lower-case letters, digits and dashes"
    )


class ReportUpdate(BaseModel):
    """What changes; what is left out stays. pinned_at: null makes the report live again."""

    model_config = ConfigDict(extra="forbid")
    title: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    notes: str | None = Field(default=None, max_length=200_000)
    blocks: list[Block] | None = Field(default=None, max_length=MAX_BLOCKS)
    pinned_at: dt.datetime | None = None


class ReportSummary(BaseModel):
    slug: str
    title: str
    blocks: int
    pinned_at: dt.datetime | None
    created_at: dt.datetime
    updated_at: dt.datetime


class ReportList(BaseModel):
    items: list[ReportSummary]


class ReportRead(BaseModel):
    slug: str
    title: str
    notes: str
    blocks: list[Block]
    pinned_at: dt.datetime | None
    created_at: dt.datetime
    updated_at: dt.datetime


class BlockData(BaseModel):
    """One block's data, as its page's route answers the same query (pinned: before the date)."""

    index: int
    kind: str
    explore: ExploreRead | None = None
    heatmap: list[ExploreRead] | None = Field(
        default=None, description="one explore answer, or two (a then b) for a difference"
    )
    compare: CompareRead | None = None
    groups: GroupCompareRead | None = None
    series: SeriesPoints | None = None
    error: str | None = Field(
        default=None, description="why there is no data now (runs gone, or none before the pin)"
    )


class ReportData(BaseModel):
    report: ReportRead
    blocks: list[BlockData]
