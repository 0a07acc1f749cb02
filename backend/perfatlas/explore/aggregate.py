"""The numbers behind each explore point, and the query over the results that match (explore/
rolled.py computes the points of any x but time from the rollups and the pending runs' results;
timeline() here gives x = time, one point per run).

A point summarises the runs (one result each) that share its x and group value:
  median   the median of the runs' values (a run's value: the median of its repetitions)
  n        the number of runs; repetitions: the number of samples behind them
  mean     the mean of every repetition (pooled)
  min/max  the smallest and largest repetition (pooled)
  p5/p95   the 5th percentile of the runs' own p5 and the 95th of their p95: for one run,
           the spread of its repetitions; for several, that spread widened by the runs'
           differences
  flags    the union of the results' trust flags (core/trust.py), with whether one of their
           series has a tentative alert
Percentiles interpolate linearly (as PostgreSQL's percentile_cont: core/stats.py's quantile).
Every figure comes from the per-result summaries stored at ingest (core/records.py packs
them), never from the samples; parameters and the target come from the results' series unless
runs are joined anyway (explore/dims.py `reading`)."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, and_, false, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.agents.models import Agent
from perfatlas.core.records import Summary
from perfatlas.core.trust import CONFIRMING
from perfatlas.runs.dimensions import AGENTS, ENVIRONMENTS, RUNS, SERIES
from perfatlas.runs.models import Environment, Result, Run, Series


@dataclass(kw_only=True)
class Cell(Summary):
    """A point's summary (core.records.Summary, the one type of it) at its x and group."""

    x: Any
    group: Any
    tentative: bool


@dataclass(frozen=True)
class Query:
    """What to read: one metric of one workload, the conditions and the tables they need."""

    workload: str
    metric: str
    x: ColumnElement[Any] | None
    group: ColumnElement[Any] | None
    conditions: Sequence[ColumnElement[bool]]
    tables: frozenset[str]
    # Series with an unresolved tentative alert, among this metric's.
    tentative: Collection[int]


def select_results(query: Query, columns: Sequence[Any]) -> Select[Any]:
    statement = select(*columns).select_from(Result)
    # Joined from the result's own copies of the run's ids: only what is read is joined.
    if RUNS in query.tables:
        # The planner takes a JSON filter (labels->>'version' = ...) for 0.5 % of the runs and
        # would probe the results table once per run, ten times slower than one pass over the
        # covering index: `+ 0` leaves it no index to probe, the workload fewer runs to hash.
        statement = statement.join(
            Run, and_(Run.id == Result.run_id + 0, Run.workload == query.workload)
        )
    if SERIES in query.tables:
        # The metric's own series, which its index finds, rather than a scan of every series.
        statement = statement.join(
            Series,
            and_(
                Series.id == Result.series_id,
                Series.workload == query.workload,
                Series.metric == query.metric,
            ),
        )
    if AGENTS in query.tables:
        statement = statement.join(Agent, Agent.id == Result.agent_id)
    if ENVIRONMENTS in query.tables:
        statement = statement.outerjoin(Environment, Environment.id == Result.environment_id)
    # A confirmation job's runs are not part of any history (runs.confirming).
    return statement.where(
        Result.workload == query.workload,
        Result.metric == query.metric,
        Result.flags.op("&")(CONFIRMING) == 0,
        *query.conditions,
    )


def tentative_of(query: Query) -> ColumnElement[bool]:
    return Result.series_id.in_(sorted(query.tentative)) if query.tentative else false()


def timeline(session: Session, query: Query, *, limit: int) -> Iterator[Cell]:
    """x = time: one point per run (its result's own summary), newest first, at most `limit`.
    Ties are broken by run_id (one result per run and metric), which the covering index holds."""
    group = query.group if query.group is not None else false()
    columns = [
        Result.started_at, group, Result.n, Result.value, Result.mean, Result.min, Result.max,
        Result.p5, Result.p95, Result.flags, tentative_of(query), Result.run_uuid,
    ]  # fmt: skip
    statement = (
        select_results(query, columns)
        .order_by(Result.started_at.desc(), Result.run_id.desc())
        .limit(limit)
    )
    for started, g, n, value, mean, lo, hi, p5, p95, flags, tent, run_uuid in session.execute(
        statement
    ):
        yield Cell(
            x=started.isoformat(), group=g if query.group is not None else None, n=1,
            repetitions=n, median=value, mean=mean, min=lo, max=hi, p5=p5, p95=p95,
            flags=flags, tentative=bool(tent), runs=[run_uuid], median_low=lo, median_high=hi,
        )  # fmt: skip
