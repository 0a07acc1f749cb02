"""What the agents list and the catalog count, kept by ingest rather than counted over every
run at each read: the runs of each agent and workload (`run_counts`) and each parameter's and
label's value seen with a workload (`catalog_values`). Both grow with the agents, workloads and
distinct values, not with the runs: counting every run took the agents list 42 ms and the whole
catalog about 500 ms at 100,000 runs (1 M results), and ten times that at ten times the runs.
On PostgreSQL the same statement keeps the days each value was seen (runs/value_days.py), for
the runs list's filters.

Written in the transaction that inserts the runs, after touch_agents (runs/seen.py): the
count of an agent's runs is updated only by a transaction that holds that agent's row already,
so concurrent uploads wait for nothing more than before; values are inserted in key order, so
that two uploads adding the same new values wait for each other in one order, never in a cycle.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, cast

import orjson
from sqlalchemy import Table, func, select, text
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.core.canonical import canonical_json
from perfatlas.runs import value_days
from perfatlas.runs.heads import RunHead
from perfatlas.runs.models import CatalogValue, RunCount

# The kinds of a value, as both the catalog and the days of the values name them.
PARAMETER, LABEL = value_days.PARAMETER, value_days.LABEL

_COUNTS = cast(Table, RunCount.__table__)
_VALUES = cast(Table, CatalogValue.__table__)

# PostgreSQL: all three in one statement of three parameters, whatever the batch holds (the
# rows as JSON arrays), prepared once per connection like the rest of an upload (a statement
# of its own for the days cost a round trip more: 0.7 ms on a slow machine). The counts
# never wait: an agent's count rows are written only under its agent's row, which this
# transaction holds already. The values and the days are each taken in key order, and
# PostgreSQL runs a statement's inserts in an order fixed by its text (the main one, then those
# of the WITH, the last first), the same for every upload: two uploads adding the same new
# values and days wait for each other in one order, never in a cycle.
_PG_TALLY = text(
    "WITH counted AS ("
    " INSERT INTO run_counts (agent_id, workload, runs)"
    " SELECT agent_id, workload, runs FROM jsonb_to_recordset(CAST(:counts AS jsonb))"
    " AS c(agent_id integer, workload text, runs bigint)"
    " ON CONFLICT (agent_id, workload) DO UPDATE SET runs = run_counts.runs + excluded.runs),"
    f" noted AS ({value_days.PG_NOTE})"
    " INSERT INTO catalog_values (workload, kind, name, value)"
    " SELECT workload, kind, name, value FROM jsonb_to_recordset(CAST(:values AS jsonb))"
    " AS v(workload text, kind text, name text, value text)"
    " ON CONFLICT DO NOTHING"
)


def count_runs(session: Session, runs: Sequence[RunHead], agent_ids: Mapping[str, int]) -> None:
    """Adds these runs, inserted in this transaction, to their agents' and workloads' counts,
    their parameters' and labels' values to the catalog and, on PostgreSQL, the days of their
    values to runs/value_days.py's."""
    counts = Counter((agent_ids[run.agent], run.workload) for run in runs)
    # The runs of one configuration on one day share their documents: each is taken apart once
    # a batch.
    documents: dict[tuple[str, dt.date, str, str, bytes, bytes], RunHead] = {}
    for run in runs:
        key = (run.workload, run.started_at.astimezone(dt.UTC).date(), run.status, run.target,
               canonical_json(run.parameters), canonical_json(run.labels))  # fmt: skip
        documents.setdefault(key, run)
    connection = session.connection()
    on_pg = connection.dialect.name == "postgresql"
    values: set[tuple[str, str, str, str]] = set()
    # (kind, name, the value's JSON, workload, day): value_days.PG_NOTE writes it as text
    # (kept on PostgreSQL only).
    days: set[tuple[str, str, str, str, dt.date]] = set()
    for (workload, day, status, target, _, _), run in documents.items():
        for kind, document in ((PARAMETER, run.parameters), (LABEL, run.labels)):
            for name, value in document.items():
                text_of = canonical_json(value).decode()
                values.add((workload, kind, name, text_of))
                if on_pg:
                    days.add((kind, name, text_of, workload, day))
        if on_pg:
            days.add((value_days.STATUS, "", orjson.dumps(status).decode(), workload, day))
            days.add((value_days.TARGET, "", orjson.dumps(target).decode(), workload, day))
    count_rows = [
        {"agent_id": agent_id, "workload": workload, "runs": n}
        for (agent_id, workload), n in sorted(counts.items())
    ]
    value_rows = [
        {"workload": w, "kind": k, "name": n, "value": v} for w, k, n, v in sorted(values)
    ]
    if on_pg:
        day_rows = [
            {"kind": k, "name": n, "value": orjson.Fragment(v), "workload": w, "day": d}
            for k, n, v, w, d in days
        ]
        connection.execute(
            _PG_TALLY,
            {
                "counts": orjson.dumps(count_rows).decode(),
                "values": orjson.dumps(value_rows).decode(),
                "days": orjson.dumps(day_rows).decode(),
            },
        )
        return
    count = sqlite.insert(_COUNTS)
    connection.execute(
        count.on_conflict_do_update(
            index_elements=[_COUNTS.c.agent_id, _COUNTS.c.workload],
            set_={"runs": _COUNTS.c.runs + count.excluded.runs},
        ),
        count_rows,
    )
    if value_rows:
        connection.execute(sqlite.insert(_VALUES).on_conflict_do_nothing(), value_rows)


def runs_by_agent(session: Session) -> dict[int, int]:
    """Each agent's stored runs (an agent with none is not there)."""
    c = _COUNTS.c
    query = select(c.agent_id, func.sum(c.runs)).group_by(c.agent_id)
    return {agent_id: int(n) for agent_id, n in session.execute(query)}


def runs_by_workload(session: Session, *, workload: str | None = None) -> dict[str, int]:
    """Each workload's stored runs, in name order (or the one named, if it has any)."""
    c = _COUNTS.c
    query = select(c.workload, func.sum(c.runs)).group_by(c.workload).order_by(c.workload)
    if workload is not None:
        query = query.where(c.workload == workload)
    return {name: int(n) for name, n in session.execute(query)}


def agents_by_workload(session: Session, *, workload: str | None = None) -> dict[str, list[str]]:
    """The names of the agents that stored runs of each workload (or of the one named)."""
    c = _COUNTS.c
    query = (
        select(c.workload, Agent.name)
        .join(Agent, Agent.id == c.agent_id)
        .where(c.runs > 0)
        .distinct()
    )
    if workload is not None:
        query = query.where(c.workload == workload)
    found: dict[str, list[str]] = {}
    for name_of_workload, agent in session.execute(query):
        found.setdefault(name_of_workload, []).append(agent)
    return found


def runs_stored(
    session: Session, *, workload: str | None = None, agent_id: int | None = None
) -> int:
    """The stored runs of a workload, an agent, both or neither."""
    c = _COUNTS.c
    query = select(func.coalesce(func.sum(c.runs), 0))
    if workload is not None:
        query = query.where(c.workload == workload)
    if agent_id is not None:
        query = query.where(c.agent_id == agent_id)
    return int(session.scalar(query) or 0)


def values_seen(
    session: Session, *, workload: str | None = None
) -> dict[str, dict[str, dict[str, list[Any]]]]:
    """workload -> kind (PARAMETER, LABEL) -> name -> the values seen, each once as stored."""
    c = _VALUES.c
    query = select(c.workload, c.kind, c.name, c.value)
    if workload is not None:
        query = query.where(c.workload == workload)
    seen: dict[str, dict[str, dict[str, list[Any]]]] = {}
    for name_of_workload, kind, name, value in session.execute(query):
        by_kind = seen.setdefault(name_of_workload, {PARAMETER: {}, LABEL: {}})
        by_kind[kind].setdefault(name, []).append(orjson.loads(value))
    return seen
