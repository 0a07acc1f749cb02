"""Writing runs and results in bulk: COPY on PostgreSQL, executemany INSERT on SQLite."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain, repeat
from typing import Any

import orjson
from psycopg import Copy
from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from perfatlas.core.canonical import canonical_json
from perfatlas.core.measurement import RunCreate, column_int
from perfatlas.core.stats import Summary, summarize_columns
from perfatlas.core.trust import results_flags, run_flags
from perfatlas.runs.models import Result, RollupPending, Run

CHUNK = 1000
# In the order insert_results renders them: a run's own columns first.
RESULT_COLUMNS = (
    "run_id", "workload", "started_at", "run_uuid", "environment_id", "agent_id", "series_id",
    "flags", "metric", "unit", "direction", "value", "samples", "n", "mean", "stdev", "min", "max",
    "p5", "p50", "p95", "p99",
)  # fmt: skip


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


# COPY is several times faster than INSERT for the thousands of rows a batch carries, and it
# runs inside the request's transaction, so a failure still writes nothing. Rows are written
# in COPY's text format by hand: psycopg's per-value adaptation cost more than the COPY.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_field(value: Any) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, str):
        return value.translate(_COPY_ESCAPES)
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dict | list):
        # JSON text escapes every control character, so a backslash is all COPY needs escaped.
        return canonical_json(value).decode().replace("\\", "\\\\")
    return str(value)


@contextmanager
def _copy_into(session: Session, table: str, columns: Sequence[str]) -> Iterator[Copy]:
    """A COPY into `table` on the session's connection, ended (and checked) on exit."""
    raw = session.connection().connection.driver_connection
    with (
        raw.cursor() as cur,  # type: ignore[union-attr]
        cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
    ):
        yield copy


def _copy_text(session: Session, table: str, columns: Sequence[str], text: str) -> None:
    with _copy_into(session, table, columns) as copy:
        copy.write(text)


def _number_texts(column: Sequence[float]) -> list[str]:
    """A column of finite numbers as COPY text: each the shortest text that reads back as the
    same double, as repr gives it, but formatted in C by orjson (a tenth of repr's time, which
    was a tenth of a large upload's CPU in the API)."""
    return orjson.dumps(column).decode()[1:-1].split(",") if column else []


def _copy_column(values: Sequence[Any]) -> Iterable[str]:
    """A column's values in COPY text: a column of one plain type in one C-level pass."""
    kinds = set(map(type, values))
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind is int or kind is uuid_mod.UUID:
            return map(str, values)
        if kind is dt.datetime:
            return map(dt.datetime.isoformat, values)
        if kind is str:
            return [v.translate(_COPY_ESCAPES) for v in values]
    return map(_copy_field, values)


def _copy_rows(
    session: Session, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    fields = [_copy_column(column) for column in zip(*rows, strict=True)]
    text = "\n".join(map("\t".join, zip(*fields, strict=True))) + "\n"
    _copy_text(session, table, columns, text)


def insert_runs(session: Session, rows: list[dict[str, Any]]) -> list[int]:
    if session.get_bind().dialect.name != "postgresql":
        ids: list[int] = []
        for chunk in chunks(rows):
            returned = session.execute(
                insert(Run).returning(Run.id, sort_by_parameter_order=True), list(chunk)
            )
            ids.extend(returned.scalars())
        return ids
    ids = list(
        session.connection()
        .execute(
            select(func.nextval("runs_id_seq")).select_from(func.generate_series(1, len(rows)))
        )
        .scalars()
    )
    columns = ["id", *rows[0]]
    _copy_rows(
        session, "runs", columns, [[i, *row.values()] for i, row in zip(ids, rows, strict=True)]
    )
    return ids


def insert_pending(session: Session, run_ids: Sequence[int]) -> None:
    """Mark new runs as waiting for explore's rollups (rollups/fold.py), beside the runs."""
    if not run_ids:
        return
    if session.get_bind().dialect.name != "postgresql":
        session.execute(insert(RollupPending), [{"run_id": i} for i in run_ids])
        return
    _copy_text(session, "rollup_pending", ("run_id",), "\n".join(map(str, run_ids)) + "\n")


def insert_results(
    session: Session,
    runs: list[RunCreate],
    run_ids: list[int],
    env_ids: list[int | None],
    series_ids: list[list[int]],
    agent_ids: dict[str, int],
    run_bits: Sequence[int] = (),
) -> None:
    """Every result of the runs, with its summary (computed for the whole batch at once);
    `run_bits` are trust bits of each run's results besides the computed ones."""
    # The schema guarantees samples or a value.
    samples = [r.samples or [r.value or 0.0] for run in runs for r in run.results]
    if not samples:
        return
    stats = summarize_columns(samples)
    given = [r.value for run in runs for r in run.results]
    values = [p50 if v is None else v for v, p50 in zip(given, stats["p50"], strict=True)]
    flags: list[int] = []
    for i, run in enumerate(runs):
        bits, short = run_flags(run.meta, column_int(run.environment.get("cores")))
        flags.extend(results_flags(run.results, bits | (run_bits[i] if run_bits else 0), short))
    if session.get_bind().dialect.name != "postgresql":
        rows: list[dict[str, Any]] = []
        for run, run_id, env_id, sids in zip(runs, run_ids, env_ids, series_ids, strict=True):
            for result, series_id in zip(run.results, sids, strict=True):
                i = len(rows)
                rows.append(
                    {
                        "run_id": run_id, "series_id": series_id, "workload": run.workload,
                        "started_at": run.started_at, "run_uuid": run.uuid,
                        "environment_id": env_id, "agent_id": agent_ids[run.agent],
                        "flags": flags[i], "metric": result.metric, "unit": result.unit,
                        "direction": result.direction, "value": values[i],
                        "samples": samples[i], **{f: stats[f][i] for f in Summary._fields},
                    }
                )  # fmt: skip
        session.execute(insert(Result), rows)
        return
    # Names, units and directions match NAME_PATTERN or a fixed list, so they need no
    # escaping; the run's own fields are rendered once per run, every column is a list of
    # texts made in C-level passes, and the lines are joined in C.
    sizes = [len(run.results) for run in runs]
    run_texts = [
        "\t".join(
            map(
                _copy_field,
                (run_id, run.workload, run.started_at, run.uuid, env_id, agent_ids[run.agent]),
            )
        )
        for run, run_id, env_id in zip(runs, run_ids, env_ids, strict=True)
    ]
    run_column = list(chain.from_iterable(map(repeat, run_texts, sizes)))
    series_column = list(map(str, chain.from_iterable(series_ids)))
    flag_column = list(map(str, flags))
    names = [f"{r.metric}\t{r.unit}\t{r.direction}" for run in runs for r in run.results]
    # Rendered and sent a chunk at a time: besides the short texts above (a run's own are one
    # string shared by its results), the numbers' texts and the lines of one chunk are all that
    # is held at once (a whole batch's were 15 MB more at the API's peak), and PostgreSQL
    # stores one chunk while the next is rendered.
    with _copy_into(session, "results", RESULT_COLUMNS) as copy:
        for start in range(0, len(names), CHUNK):
            end = start + CHUNK
            fields = [
                run_column[start:end],
                series_column[start:end],
                flag_column[start:end],
                names[start:end],
                _number_texts(values[start:end]),
                [orjson.dumps(s).decode() for s in samples[start:end]],
                *(_number_texts(stats[f][start:end]) for f in Summary._fields),
            ]
            copy.write("\n".join(map("\t".join, zip(*fields, strict=True))) + "\n")
