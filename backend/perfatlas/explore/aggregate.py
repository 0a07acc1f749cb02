"""The numbers behind each explore point, from the results that match.

A point summarises the runs (one result each) that share its x and group value:
  median   the median of the runs' values (a run's value: the median of its repetitions)
  n        the number of runs; repetitions: the number of samples behind them
  mean     the mean of every repetition (pooled)
  min/max  the smallest and largest repetition (pooled)
  p5/p95   the 5th percentile of the runs' own p5 and the 95th of their p95: for one run,
           the spread of its repetitions; for several, that spread widened by the runs'
           differences
  flags    the union of the results' trust flags (runs/trust.py), with whether one of their
           series has a tentative alert
Percentiles interpolate linearly (as PostgreSQL's percentile_cont: runs/stats.py's quantile).
Every figure comes from the per-result summaries stored at ingest, so PostgreSQL answers
from one covering index (ix_results_workload_metric) without reading the samples; parameters
and the target come from the results' series unless runs are joined anyway (explore/dims.py
`reading`)."""

from __future__ import annotations

import math
import uuid as uuid_mod
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Float, LargeBinary, Select, and_, cast, false, func, literal, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.agents.models import Agent
from perfatlas.runs.dimensions import AGENTS, ENVIRONMENTS, RUNS, SERIES
from perfatlas.runs.models import Environment, Result, Run, Series
from perfatlas.runs.stats import quantile
from perfatlas.runs.trust import CONFIRMING

RUNS_PER_POINT = 20


@dataclass
class Cell:
    x: Any
    group: Any
    n: int
    repetitions: int
    median: float
    mean: float
    min: float
    max: float
    p5: float
    p95: float
    flags: int
    tentative: bool
    runs: list[uuid_mod.UUID]


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


# Each result of a point as PostgreSQL's binary forms (float8send, timestamptz_send, uuid_send)
# put end to end: value, p5, p95, start (microseconds), run uuid; big-endian.
_PACKED = np.dtype(
    [("value", ">f8"), ("p5", ">f8"), ("p95", ">f8"), ("started", ">i8"), ("hi", ">u8"),
     ("lo", ">u8")]
)  # fmt: skip


def _packed() -> ColumnElement[bytes]:
    parts: list[ColumnElement[Any]] = [
        func.float8send(Result.value), func.float8send(Result.p5), func.float8send(Result.p95),
        func.timestamptz_send(Result.started_at), func.uuid_send(Result.run_uuid),
    ]  # fmt: skip
    record = parts[0]
    for part in parts[1:]:
        record = record.op("||", return_type=LargeBinary)(part)
    return func.string_agg(record, literal(b"", LargeBinary), type_=LargeBinary)


def _unpack(buffer: bytes) -> np.ndarray[Any, Any]:
    if len(buffer) % _PACKED.itemsize:
        raise ValueError(
            f"packed results of {len(buffer)} bytes, not records of {_PACKED.itemsize}"
        )
    return np.frombuffer(buffer, dtype=_PACKED)


def _quantile(values: np.ndarray[Any, Any], q: float) -> float:
    # quantile reads the values at floor(q * (n - 1)) and the next: partitioning puts those two
    # in place without sorting the rest.
    at = math.floor(q * (len(values) - 1))
    return quantile(np.partition(values, [at, min(at + 1, len(values) - 1)]), q)


def _newest(rows: np.ndarray[Any, Any]) -> list[uuid_mod.UUID]:
    """The point's newest runs, newest first (ties by uuid)."""
    if len(rows) > RUNS_PER_POINT:
        started = rows["started"]
        nth = len(rows) - RUNS_PER_POINT
        rows = rows[started >= np.partition(started, nth)[nth]]
    newest = rows[np.lexsort((rows["lo"], rows["hi"], rows["started"]))[::-1][:RUNS_PER_POINT]]
    halves = zip(newest["hi"].tolist(), newest["lo"].tolist(), strict=True)
    return [uuid_mod.UUID(int=(hi << 64) | lo) for hi, lo in halves]


def grouped_sql(session: Session, query: Query) -> Iterator[Cell]:
    """PostgreSQL: one row per point with its plain aggregates, and the point's results packed
    (_PACKED) so that its percentiles (interpolated as percentile_cont does) and newest runs
    are taken here. Ordered aggregates (percentile_cont, array_agg ORDER BY) would make
    PostgreSQL sort every row by point and then each point's rows four more times; without
    them it hashes the rows into points, in about half the time at 1,000,000 results."""
    assert query.x is not None
    keys = [query.x.label("x")]
    if query.group is not None:
        keys.append(query.group.label("g"))
    columns = [
        *keys,
        func.count().label("n"),
        func.sum(Result.n).label("repetitions"),
        (func.sum(Result.mean * Result.n) / cast(func.sum(Result.n), Float)).label("mean"),
        func.min(Result.min).label("min"),
        func.max(Result.max).label("max"),
        func.bit_or(Result.flags).label("flags"),
        func.bool_or(tentative_of(query)).label("tentative"),
        _packed().label("packed"),
    ]
    statement = select_results(query, columns).group_by(*[k.element for k in keys])
    for row in session.execute(statement):
        m = row._mapping
        rows = _unpack(m["packed"])
        if len(rows) != m["n"]:  # every packed column is NOT NULL: one record per result
            raise ValueError(f"{len(rows)} packed results for a point of {m['n']}")
        yield Cell(
            x=m["x"], group=m["g"] if query.group is not None else None, n=m["n"],
            repetitions=int(m["repetitions"]), median=_quantile(rows["value"], 0.5),
            mean=m["mean"], min=m["min"], max=m["max"], p5=_quantile(rows["p5"], 0.05),
            p95=_quantile(rows["p95"], 0.95), flags=int(m["flags"]),
            tentative=bool(m["tentative"]), runs=_newest(rows),
        )  # fmt: skip


class _Acc:
    __slots__ = ("flags", "hi", "lo", "p5s", "p95s", "reps", "runs", "tent", "total", "values")

    def __init__(self) -> None:
        self.values: list[float] = []
        self.p5s: list[float] = []
        self.p95s: list[float] = []
        self.reps = 0
        self.total: list[float] = []
        self.lo = math.inf
        self.hi = -math.inf
        self.flags = 0
        self.tent = False
        self.runs: list[uuid_mod.UUID] = []


def grouped_python(session: Session, query: Query) -> Iterator[Cell]:
    """SQLite: the same numbers from a streamed aggregation in Python."""
    assert query.x is not None
    group = query.group if query.group is not None else false()
    columns = [
        query.x, group, Result.value, Result.n, Result.mean, Result.min, Result.max, Result.p5,
        Result.p95, Result.flags, tentative_of(query), Result.run_uuid,
    ]  # fmt: skip
    statement = select_results(query, columns).order_by(
        Result.started_at.desc(), Result.run_id.desc()
    )
    cells: dict[tuple[Any, Any], _Acc] = {}
    for x, g, value, n, mean, lo, hi, p5, p95, flags, tent, run_uuid in session.execute(
        statement
    ).yield_per(5000):
        acc = cells.get((x, g))
        if acc is None:
            acc = cells[(x, g)] = _Acc()
        acc.values.append(value)
        acc.p5s.append(p5)
        acc.p95s.append(p95)
        acc.reps += n
        acc.total.append(mean * n)
        acc.lo = min(acc.lo, lo)
        acc.hi = max(acc.hi, hi)
        acc.flags |= flags
        acc.tent = acc.tent or bool(tent)
        if len(acc.runs) < RUNS_PER_POINT:
            acc.runs.append(run_uuid)
    for (x, g), acc in cells.items():
        acc.values.sort()
        acc.p5s.sort()
        acc.p95s.sort()
        yield Cell(
            x=x, group=g if query.group is not None else None, n=len(acc.values),
            repetitions=acc.reps, median=quantile(acc.values, 0.5),
            mean=math.fsum(acc.total) / acc.reps, min=acc.lo, max=acc.hi,
            p5=quantile(acc.p5s, 0.05), p95=quantile(acc.p95s, 0.95), flags=acc.flags,
            tentative=acc.tent, runs=acc.runs,
        )  # fmt: skip


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
            flags=flags, tentative=bool(tent), runs=[run_uuid],
        )  # fmt: skip
