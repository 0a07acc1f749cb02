"""Which runs a group comparison reads, found from explore's rollups instead of every result.

A comparison needs the samples of the runs in its groups. Finding those runs by scanning every
result of the workload costs what the workload stores (seconds at 10 M results). Explore's
rollups know the same thing in a size that grows with series and variants: a rollup row is one
series and one variant (the run's labels, environment, status, durability), so the groups'
dimension and filters select rollup rows on their series and variants, and the records of the
rows selected name their runs. The runs not folded yet are read in the same statement, as
explore reads them (one snapshot: a run is folded or pending, never both, never neither).

The runs found are candidates, never the answer: the comparison's own query reads their results
with every condition applied (a time filter, which the variants cannot judge, only there), so
its answer is the one the scan gave. A dimension that the rollups do not hold (none today) makes
`candidate_runs` answer None: the comparison scans as before."""

from __future__ import annotations

import uuid as uuid_mod
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Integer, LargeBinary, cast, null, select, union_all
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.util import find_tables

from perfatlas.agents.models import Agent
from perfatlas.core.db import BINARY_RESULTS, key_in
from perfatlas.core.records import unpack
from perfatlas.explore.rolled import NotRolledUp, on_variant
from perfatlas.rollups.models import ExploreDigest, ExploreRollup, RunVariant
from perfatlas.runs.models import Environment, Result, RollupPending, Run, Series


def known_metrics(session: Session, workload: str, history: ColumnElement[bool]) -> list[str]:
    """The metrics of the workload's history: the folded ones from the digests (one row per
    series and variant), the rest from the pending runs' results (`history` keeps a confirmation
    job's runs out, which the fold leaves out too)."""
    folded = select(ExploreDigest.metric).where(ExploreDigest.workload == workload)
    pending = (
        select(Result.metric)
        .join(RollupPending, RollupPending.run_id == Result.run_id)
        .where(Result.workload == workload, history)
    )
    return sorted(set(session.scalars(union_all(folded, pending))))


def candidate_runs(
    session: Session,
    *,
    workload: str,
    metrics: Sequence[str],
    by: ColumnElement[Any],
    values: Sequence[str],
    conditions: Sequence[ColumnElement[bool]],
) -> set[int] | None:
    """The ids of every run with a result that the comparison may read (a superset), or None
    when `by` cannot be judged on the rollups' side."""
    try:
        chosen: list[ColumnElement[Any]] = [on_variant(by).in_(values)]
    except NotRolledUp:
        return None
    for condition in conditions:
        try:
            chosen.append(on_variant(condition))
        except NotRolledUp:  # judged by the comparison's own query
            continue
    # Each condition goes to the side it reads: the series (parameters, the target) or the
    # variants (labels, the agent, the environment, durability). Two small id lists then pick
    # the rollup rows by their key. (One join with the conditions in its WHERE clause had the
    # planner take a filter on JSON for one row in a hundred and probe every series once per
    # variant: 60 ms at 200,000 results.)
    on_series: list[ColumnElement[bool]] = []
    on_variants: list[ColumnElement[bool]] = []
    for condition in chosen:
        tables = {table.name for table in find_tables(condition, check_columns=True)}
        if tables <= {Series.__tablename__}:
            on_series.append(condition)
        elif Series.__tablename__ not in tables:
            on_variants.append(condition)
        # else: a condition across both sides, judged by the comparison's own query
    series = select(Series.id).where(
        Series.workload == workload, Series.metric.in_(sorted(metrics)), *on_series
    )
    variants = (
        select(RunVariant.id)
        .join(Agent, Agent.id == RunVariant.agent_id)
        .outerjoin(Environment, Environment.id == RunVariant.environment_id)
        .where(*on_variants)
    )
    folded = select(ExploreRollup.records, cast(null(), Integer).label("run_id")).where(
        ExploreRollup.series_id.in_(series), ExploreRollup.variant_id.in_(variants)
    )
    pending = (
        select(cast(null(), LargeBinary).label("records"), RollupPending.run_id)
        .join(Run, Run.id == RollupPending.run_id)
        .where(Run.workload == workload)
    )
    pg = session.get_bind().dialect.name == "postgresql"
    options = {BINARY_RESULTS: True} if pg else {}
    ids: set[int] = set()
    halves: set[tuple[int, int]] = set()
    for records, run_id in session.execute(union_all(folded, pending), execution_options=options):
        if records is None:
            ids.add(run_id)
            continue
        rows = unpack(records)
        halves.update(zip(rows["hi"].tolist(), rows["lo"].tolist(), strict=True))
    uuids = [uuid_mod.UUID(int=(hi << 64) | lo) for hi, lo in halves]
    for condition in key_in(session, Run.uuid, uuids):
        ids.update(session.scalars(select(Run.id).where(condition)))
    return ids
