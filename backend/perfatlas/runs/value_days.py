"""The days on which each value of the runs' labels, parameters, status and target was seen with a
workload (`run_value_days`), kept by ingest: a runs list filtered on such a value walks only
the days that hold it.

The list walks the runs newest first until it has a page. For a value that is common among the
newest runs that is quick, but for one that is rare, old or absent it was every run stored: 190
ms for an old version label at 200,000 runs, and ten times that at ten times the runs. With the
days a value was seen, the walk covers those days (`stretches`): a version label of last year
walks last year's days, and a value never seen walks nothing. A value spread thinly over the
whole history still walks until it has a page, as before, which costs what its rarity costs; so
does one seen on more than STRETCHES_WALKED stretches of days apart, whose oldest stretches are
walked as one, the days between them included.

PostgreSQL only: each value is written as the text PostgreSQL's `->>` gives the filter (from
its JSON, `#>> '{}'`), and on SQLite, the embedded default for a small history, the list walks
the runs. Written in the transaction that inserts the runs, by runs/tallies.py's statement, in
key order. Runs stored by an API process older than migration 0020 once it has run are not
here: stop the API for the migration (as its text says).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import cast

from sqlalchemy import Table, intersect, select
from sqlalchemy.engine import Connection

from perfatlas.runs.models import RunValueDay

LABEL, PARAMETER, STATUS, TARGET = "label", "parameter", "status", "target"
# The characters of a value kept (a primary key's entry must fit a btree page): a longer
# value's days are those of every value beginning with the same 200, more than its own.
KEPT = 200
# The day stretches walked one by one, newest first; past them, the rest in one walk. A value
# seen on many days apart is rare there, and one walk over its remaining history costs less
# than a statement per stretch.
STRETCHES_WALKED = 8

_DAYS = cast(Table, RunValueDay.__table__)

# Each value of an upload's runs on each day, as its JSON (runs/tallies.py count_runs takes
# them apart), written as the text `->>` gives the runs list's filter (a JSON null matches no
# filter: left out). Run by runs/tallies.py, in the statement that keeps the catalog's values.
PG_NOTE = (
    "INSERT INTO run_value_days (kind, name, value, workload, day)"
    " SELECT DISTINCT kind, name, left(value #>> '{}', 200), workload, day"
    " FROM jsonb_to_recordset(CAST(:days AS jsonb))"
    " AS d(kind text, name text, value jsonb, workload text, day date)"
    " WHERE value #>> '{}' IS NOT NULL"
    " ORDER BY 1, 2, 3, 4, 5"
    " ON CONFLICT DO NOTHING"
)


def stretches(
    connection: Connection,
    wanted: Sequence[tuple[str, str, Sequence[str]]],
    *,
    workload: str | None = None,
    latest: dt.datetime | None = None,
    earliest: dt.datetime | None = None,
) -> list[tuple[dt.datetime, dt.datetime | None]]:
    """Where the runs matching every one of `wanted` (kind, name, any of these values) can be:
    spans of whole days [start, end), newest first (end None: past the last day Python
    knows), at most STRETCHES_WALKED + 1 of them; none when no run can match. `latest` and
    `earliest` bound the days read (a run at `latest` or before, at `earliest` or after)."""
    c = _DAYS.c
    selects = []
    for kind, name, values in wanted:
        query = select(c.day).where(
            c.kind == kind, c.name == name, c.value.in_(sorted({v[:KEPT] for v in values}))
        )
        if workload is not None:
            query = query.where(c.workload == workload)
        if latest is not None:
            query = query.where(c.day <= latest.astimezone(dt.UTC).date())
        if earliest is not None:
            query = query.where(c.day >= earliest.astimezone(dt.UTC).date())
        selects.append(query)
    statement = selects[0].distinct() if len(selects) == 1 else intersect(*selects)
    days = sorted((row[0] for row in connection.execute(statement)), reverse=True)
    spans: list[list[dt.date]] = []  # [first day, last day], newest first
    for day in days:
        if spans and spans[-1][0] - day == dt.timedelta(days=1):
            spans[-1][0] = day
        else:
            spans.append([day, day])
    if len(spans) > STRETCHES_WALKED + 1:
        spans = [*spans[:STRETCHES_WALKED], [spans[-1][0], spans[STRETCHES_WALKED][1]]]
    return [(_midnight(first), _day_after(last)) for first, last in spans]


def _midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), dt.UTC)


def _day_after(day: dt.date) -> dt.datetime | None:
    return None if day == dt.date.max else _midnight(day + dt.timedelta(days=1))
