"""What the agents list and the catalog count, kept by ingest rather than counted over every
run at each read: the runs of each agent and workload (`run_counts`) and each parameter's and
label's value seen with a workload (`catalog_values`). Both grow with the agents, workloads and
distinct values, not with the runs: counting every run took the agents list 42 ms and the whole
catalog about 500 ms at 100,000 runs (1 M results), and ten times that at ten times the runs.

Written in the transaction that inserts the runs, after touch_agents (agents/service.py): the
count of an agent's runs is updated only by a transaction that holds that agent's row already,
so concurrent uploads wait for nothing more than before; values are inserted in key order, so
that two uploads adding the same new values wait for each other in one order, never in a cycle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, cast

import orjson
from sqlalchemy import Table, func, select, text
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session

from perfatlas.core.canonical import canonical_json
from perfatlas.runs.models import CatalogValue, RunCount
from perfatlas.runs.schemas import RunCreate

PARAMETER, LABEL = "parameter", "label"

_COUNTS = cast(Table, RunCount.__table__)
_VALUES = cast(Table, CatalogValue.__table__)

# PostgreSQL: both in one statement of two parameters, whatever the batch holds (the rows as
# JSON arrays), prepared once per connection like the rest of an upload. Which of the two
# inserts PostgreSQL runs first is its own choice; neither order can deadlock, since the counts
# never wait (an agent's count rows are written only under its agent's row, which this
# transaction holds already) and the values are taken in key order.
_PG_TALLY = text(
    "WITH counted AS ("
    " INSERT INTO run_counts (agent_id, workload, runs)"
    " SELECT agent_id, workload, runs FROM jsonb_to_recordset(CAST(:counts AS jsonb))"
    " AS c(agent_id integer, workload text, runs bigint)"
    " ON CONFLICT (agent_id, workload) DO UPDATE SET runs = run_counts.runs + excluded.runs)"
    " INSERT INTO catalog_values (workload, kind, name, value)"
    " SELECT workload, kind, name, value FROM jsonb_to_recordset(CAST(:values AS jsonb))"
    " AS v(workload text, kind text, name text, value text)"
    " ON CONFLICT DO NOTHING"
)


def count_runs(session: Session, runs: Sequence[RunCreate], agent_ids: Mapping[str, int]) -> None:
    """Adds these runs, inserted in this transaction, to their agents' and workloads' counts,
    and their parameters' and labels' values to the catalog."""
    counts = Counter((agent_ids[run.agent], run.workload) for run in runs)
    # The runs of one configuration share their documents: each is taken apart once a batch.
    documents: dict[tuple[str, bytes, bytes], RunCreate] = {}
    for run in runs:
        documents.setdefault(
            (run.workload, canonical_json(run.parameters), canonical_json(run.labels)), run
        )
    values: set[tuple[str, str, str, str]] = set()
    for (workload, _, _), run in documents.items():
        for kind, document in ((PARAMETER, run.parameters), (LABEL, run.labels)):
            for name, value in document.items():
                values.add((workload, kind, name, canonical_json(value).decode()))
    count_rows = [
        {"agent_id": agent_id, "workload": workload, "runs": n}
        for (agent_id, workload), n in sorted(counts.items())
    ]
    value_rows = [
        {"workload": w, "kind": k, "name": n, "value": v} for w, k, n, v in sorted(values)
    ]
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        connection.execute(
            _PG_TALLY,
            {
                "counts": orjson.dumps(count_rows).decode(),
                "values": orjson.dumps(value_rows).decode(),
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
