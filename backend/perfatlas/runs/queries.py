"""Reading runs: one run, the runs list with filters and cursor pages, one series by id."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from collections.abc import Sequence

from sqlalchemy import ColumnElement, and_, false, func, or_, select
from sqlalchemy.orm import Session, selectinload

from perfatlas.agents.models import Agent
from perfatlas.core import units
from perfatlas.core.errors import NotFound
from perfatlas.core.pagination import decode_cursor, encode_cursor, parse_pairs
from perfatlas.runs import value_days
from perfatlas.runs.dimensions import json_text
from perfatlas.runs.models import Run, Series
from perfatlas.runs.tallies import runs_stored


def get_run(session: Session, *, run_uuid: uuid_mod.UUID) -> Run:
    run = session.scalar(select(Run).where(Run.uuid == run_uuid).options(selectinload(Run.results)))
    if run is None:
        raise NotFound(f"no run with uuid {run_uuid}")
    return run


def get_runs_by_id(session: Session, *, run_ids: Sequence[int]) -> list[Run]:
    rows = session.scalars(
        select(Run).where(Run.id.in_(run_ids)).options(selectinload(Run.results))
    )
    by_id = {run.id: run for run in rows}
    return [by_id[i] for i in run_ids]


def list_runs(
    session: Session,
    *,
    workload: str | None = None,
    agent: str | None = None,
    status: str | None = None,
    target: str | None = None,
    labels: Sequence[str] = (),
    params: Sequence[str] = (),
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> tuple[list[Run], str | None]:
    conditions: list[ColumnElement[bool]] = []
    if workload:
        conditions.append(Run.workload == workload)
    if agent:
        # The agent's id, known to the planner: an agent with few runs, or none, is read from
        # the runs' agent index (joined by name, every run newer than its own was read: 210
        # ms for an agent with no runs at 200,000 runs).
        agent_id = session.scalar(select(Agent.id).where(Agent.name == agent))
        if agent_id is None:
            return [], None
        conditions.append(Run.agent_id == agent_id)
    if since:
        conditions.append(Run.started_at >= since)
    if until:
        conditions.append(Run.started_at < until)
    c_started = None
    if cursor:
        c_started, c_id = decode_cursor(cursor)
        conditions.append(
            or_(Run.started_at < c_started, and_(Run.started_at == c_started, Run.id < c_id))
        )
    newest = (Run.started_at.desc(), Run.id.desc())
    # The filters on values: kept apart, since on PostgreSQL the runs that can match them are
    # found from the days their values were seen (runs/value_days.py).
    dialect = session.get_bind().dialect.name
    by_label, by_param = parse_pairs("label", labels), parse_pairs("param", params)
    # Sizes and durations as people write them (segsize:128k), matched as stored (131072).
    by_param = {k: units.filter_values(k, v, field="param") for k, v in by_param.items()}
    wanted = [
        *((value_days.LABEL, k, v, json_text(Run.labels, k, dialect)) for k, v in by_label.items()),
        *((value_days.PARAMETER, k, v, json_text(Run.parameters, k, dialect))
          for k, v in by_param.items()),
        *([(value_days.STATUS, "", [status], Run.status)] if status else []),
        *([(value_days.TARGET, "", [target], Run.target)] if target else []),
    ]  # fmt: skip
    if dialect != "postgresql" or not wanted:
        matching = [column.in_(values) for _, _, values, column in wanted]
        query = select(Run).where(*conditions, *matching).order_by(*newest)
        rows = list(session.scalars(query.limit(limit + 1)))
    else:
        # Each filter reckoned by the planner to hold for half the runs, as it does in the days
        # walked (they were picked for holding its values): it walks them newest first until
        # the page is full. Left bare, an old version label is reckoned rare among its own
        # days, and every run of them was read, joined and sorted (76 ms for 10,000 runs).
        ids = select(Run.id).where(
            *conditions,
            *(func.coalesce(column.in_(values), false()) for _, _, values, column in wanted),
        ).order_by(*newest)  # fmt: skip
        latest = min((t for t in (until, c_started) if t is not None), default=None)
        found: list[int] = []
        for start, end in value_days.stretches(
            session.connection(), [(kind, name, values) for kind, name, values, _ in wanted],
            workload=workload or None, latest=latest, earliest=since,
        ):  # fmt: skip
            bounded = ids.where(Run.started_at >= start)
            if end is not None:
                bounded = bounded.where(Run.started_at < end)
            found.extend(session.scalars(bounded.limit(limit + 1 - len(found))))
            if len(found) > limit:
                break
        # The page's runs, with their agents and environments, read by id once the walk has
        # found them. Joined in the walk itself, the day being walked (newer than the planner's
        # statistics, as the newest day nearly always is) was reckoned to hold a few runs, so
        # every run of it was read, joined and sorted: 68 ms for the 53,000 runs of one day.
        page = select(Run).where(Run.id.in_(found)).order_by(*newest)
        rows = list(session.scalars(page)) if found else []
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor(rows[-1].started_at, rows[-1].id)
    return rows, next_cursor


def runs_total(session: Session, *, workload: str | None, agent: str | None) -> int:
    """How many runs the runs list holds for this workload and agent (either may be None), from
    the counts kept at ingest (runs/tallies.py): what it reads grows with the agents and
    workloads, not with the runs."""
    agent_id = None
    if agent:
        agent_id = session.scalar(select(Agent.id).where(Agent.name == agent))
        if agent_id is None:
            return 0
    return runs_stored(session, workload=workload or None, agent_id=agent_id)


def get_series(session: Session, *, series_id: int) -> Series:
    series = session.get(Series, series_id)
    if series is None:
        raise NotFound(f"no series with id {series_id}")
    return series
