"""Explore, the catalog and the agents list, and the explore CSV export."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response

from perfatlas.api.deps import ReadPrincipal, SessionDep, SettingsDep
from perfatlas.core.errors import Invalid
from perfatlas.explore import catalog as catalog_service
from perfatlas.explore import plots
from perfatlas.explore.schemas import Catalog, ExploreRead

router = APIRouter(tags=["explore"])
CACHE_HEADER = "X-Explore-Cache"

FilterQuery = Annotated[
    list[str],
    Query(description="dimension:value, repeatable; several values of one dimension mean any"),
]
X_DOC = (
    "the x axis: time, a built-in dimension (agent, host, fs_type, kernel, ...), a parameter "
    "or label name (param.NAME / label.NAME to be explicit), or env.KEY"
)


OrderQuery = Annotated[
    list[str],
    Query(
        description="dimension:value,value,... repeatable: the order of that dimension's values "
        "along x or in the legend (`*` stands for the others, in natural order; left out, they "
        "come after), e.g. `label.version:*,trunk`; over the server's PERFATLAS_VALUE_ORDER. "
        "Unordered values are in natural order: 2.1.9 < 2.1.10 < 2.2.0-rc1 < 2.2.0, words last"
    ),
]
ExactQuery = Annotated[
    bool,
    Query(
        description="exact medians and percentiles however many results the plot covers (by "
        "default a plot of more than PERFATLAS_EXPLORE_EXACT_RESULTS results has them from "
        "sketches, within 0.5 %: see `approximate` in the answer)"
    ),
]
SplitQuery = Annotated[
    list[str],
    Query(
        description="split traces by this dimension too (a parameter, label, durability fact, "
        "agent, target or fs_type), repeatable; `none`: no split but these (by default every "
        "parameter and durability fact that varies among a point's runs splits the traces)"
    ),
]
PoolQuery = Annotated[
    list[str],
    Query(
        description="leave this parameter or durability fact pooled instead of splitting by it "
        "(the answer names it in each point's `mixes`), repeatable"
    ),
]
METRIC_DOC = "the metric; several (repeated or comma-separated) with group=metric, one trace each"
MetricQuery = Annotated[list[str], Query(min_length=1, description=METRIC_DOC)]


async def _single_values(request: Request) -> None:
    """A repeated workload, x or group asks for several plots in one: say so. Several metrics
    are one plot only with group=metric (explore/service.py says so otherwise)."""
    for name in ("workload", "x", "group"):
        if len(request.query_params.getlist(name)) > 1:
            raise Invalid(name, f"one {name} at a time")


SINGLE = [Depends(_single_values)]


@router.get("/explore", operation_id="explore", response_model=ExploreRead, dependencies=SINGLE)
def explore(
    session: SessionDep,
    settings: SettingsDep,
    _: ReadPrincipal,
    workload: str,
    metric: MetricQuery,
    x: Annotated[str, Query(description=X_DOC)] = "time",
    group: Annotated[
        str | None,
        Query(description="one trace per value of this dimension, or per metric: `metric`"),
    ] = None,
    filter: FilterQuery = [],  # noqa: B006
    exact: ExactQuery = False,
    order: OrderQuery = [],  # noqa: B006
    split: SplitQuery = [],  # noqa: B006
    pool: PoolQuery = [],  # noqa: B006
) -> Response:
    """A metric against any dimension, one trace per group: the runs' median with the spread of
    their repetitions and the trust flags behind each point. An answer computed for the same
    request while the database has not changed since is served again (header
    `X-Explore-Cache: hit`)."""
    body, outcome = plots.explore_json(session, settings, plots.Plot(
        workload=workload, metric=metric, x=x, group=group, filters=filter, exact=exact,
        order=order, split=split, pool=pool,
    ))  # fmt: skip
    return Response(body, media_type="application/json", headers={CACHE_HEADER: outcome})


@router.get(
    "/explore.csv", operation_id="explore_csv", response_class=Response, dependencies=SINGLE
)
def explore_csv(
    session: SessionDep,
    settings: SettingsDep,
    _: ReadPrincipal,
    workload: str,
    metric: MetricQuery,
    x: Annotated[str, Query(description=X_DOC)] = "time",
    group: str | None = None,
    filter: FilterQuery = [],  # noqa: B006
    exact: ExactQuery = False,
    order: OrderQuery = [],  # noqa: B006
    split: SplitQuery = [],  # noqa: B006
    pool: PoolQuery = [],  # noqa: B006
) -> Response:
    """What explore plots, as CSV: one row per point (a size or duration also as people write
    it, in a column of its own beside the stored number)."""
    return plots.explore_csv(session, settings, plots.Plot(
        workload=workload, metric=metric, x=x, group=group, filters=filter, exact=exact,
        order=order, split=split, pool=pool,
    ))  # fmt: skip


@router.get("/catalog", operation_id="catalog", response_model=Catalog)
def catalog(session: SessionDep, _: ReadPrincipal, workload: str | None = None) -> Catalog:
    """Workloads with their metrics, parameters and labels (and the values seen): what to explore."""
    return catalog_service.catalog(session, workload=workload)
