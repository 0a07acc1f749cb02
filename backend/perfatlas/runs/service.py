"""Ingest (idempotent, all-or-nothing) and reads of runs, results and series."""

from __future__ import annotations

import base64
import datetime as dt
import uuid as uuid_mod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
import psycopg
from sqlalchemy import Select, and_, any_, bindparam, case, func, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from perfatlas.core import pgarrays
from perfatlas.core.canonical import canonical_json, content_hash
from perfatlas.core.errors import Conflict, Invalid, NotFound
from perfatlas.core.models import utcnow
from perfatlas.runs.dimensions import json_text
from perfatlas.runs.durability import stored_facts
from perfatlas.runs.models import Agent, Environment, Result, Run, Series
from perfatlas.runs.schemas import RunCreate
from perfatlas.runs.stats import Summary, summarize_columns
from perfatlas.runs.trust import result_flags, run_flags

# Environment keys copied into columns, so that filters and group-bys use plain columns.
_ENV_TEXT_KEYS = ("hostname", "kernel", "os", "cpu_model", "fs_type", "device", "device_model")
_CHUNK = 1000
_INGEST_ATTEMPTS = 3
RESULT_COLUMNS = (
    "run_id", "series_id", "workload", "started_at", "run_uuid", "environment_id", "agent_id",
    "flags", "metric", "unit", "direction", "value", "samples", "n", "mean", "stdev", "min", "max",
    "p5", "p50", "p95", "p99",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Ingested:
    uuid: uuid_mod.UUID
    run_id: int
    created: bool


def body_hash(run: RunCreate) -> str:
    return content_hash(run.model_dump(mode="json"))


def series_key(
    run: RunCreate, *, metric: str, unit: str, ignore_labels: Iterable[str]
) -> dict[str, Any]:
    ignored = set(ignore_labels)
    labels = {
        k: v for k, v in run.labels.items() if k not in ignored and not k.endswith("_version")
    }
    return {
        "workload": run.workload,
        "metric": metric,
        "unit": unit,
        "agent": run.agent,
        "target": run.target,
        "parameters": run.parameters,
        "labels": labels,
    }


def _chunks(items: Sequence[Any], size: int = _CHUNK) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _key_in(session: Session, column: Any, keys: Sequence[Any]) -> Iterable[Any]:
    """`column IN keys` conditions: one `= ANY(array)` on PostgreSQL (one parameter, however
    many keys: a thousand-item IN costs more to build and bind than to run), else chunks."""
    if session.get_bind().dialect.name == "postgresql":
        yield column == any_(bindparam("keys", list(keys), type_=postgresql.ARRAY(column.type)))
        return
    for chunk in _chunks(list(keys)):
        yield column.in_(chunk)


def _ids_by(session: Session, column: Any, id_column: Any, keys: Sequence[Any]) -> dict[Any, int]:
    found: dict[Any, int] = {}
    for condition in _key_in(session, column, keys):
        found.update(session.execute(select(column, id_column).where(condition)).all())
    return found


def _upsert_ids(
    session: Session, model: Any, key: str, rows: dict[Any, dict[str, Any]]
) -> dict[Any, int]:
    """Ids of the rows with these keys, inserting the missing ones (concurrent inserts of the
    same key are harmless: ON CONFLICT DO NOTHING, then read back)."""
    column = getattr(model, key)
    found = _ids_by(session, column, model.id, list(rows))
    # In key order: concurrent uploads inserting the same new keys wait for each other in
    # the same order, never in a cycle.
    missing = [rows[k] for k in sorted(rows) if k not in found]
    if missing:
        dialect = session.get_bind().dialect.name
        ins = postgresql.insert(model) if dialect == "postgresql" else sqlite.insert(model)
        for chunk in _chunks(missing):
            session.execute(ins.on_conflict_do_nothing(), list(chunk))
        found.update(_ids_by(session, column, model.id, [row[key] for row in missing]))
    return found


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _environment_row(data: dict[str, Any], digest: str) -> dict[str, Any]:
    row: dict[str, Any] = {"hash": digest, "data": data, "created_at": utcnow()}
    for key in _ENV_TEXT_KEYS:
        value = data.get(key)
        row[key] = str(value)[:255] if value is not None else None
    row["cores"] = _as_int(data.get("cores"))
    row["ram_bytes"] = _as_int(data.get("ram_bytes"))
    rotational = data.get("rotational")
    row["rotational"] = rotational if isinstance(rotational, bool) else None
    mount_options = data.get("mount_options")
    if isinstance(mount_options, list):
        mount_options = ",".join(str(o) for o in mount_options)
    row["mount_options"] = str(mount_options)[:1024] if mount_options is not None else None
    return row


def _existing_runs(
    session: Session, uuids: Sequence[uuid_mod.UUID]
) -> dict[uuid_mod.UUID, tuple[int, str]]:
    existing: dict[uuid_mod.UUID, tuple[int, str]] = {}
    for condition in _key_in(session, Run.uuid, uuids):
        for run_uuid, run_id, digest in session.execute(
            select(Run.uuid, Run.id, Run.body_hash).where(condition)
        ):
            existing[run_uuid] = (run_id, digest)
    return existing


def ingest(
    session: Session, *, runs: Sequence[RunCreate], ignore_labels: Sequence[str]
) -> list[Ingested]:
    """Stores the runs that are new, in one transaction; a retry of a stored run is a no-op.

    The same uuid with another body is a Conflict and nothing of the request is written."""
    for attempt in range(_INGEST_ATTEMPTS):
        try:
            return _ingest(session, runs=runs, ignore_labels=ignore_labels)
        except (IntegrityError, psycopg.errors.IntegrityError):
            # Another request stored one of these uuids between our check and our insert
            # (COPY raises the driver's error, INSERT SQLAlchemy's). The next pass sees the
            # stored run and answers as for a retry, or as a conflict.
            session.rollback()
            if attempt == _INGEST_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def _ingest(
    session: Session, *, runs: Sequence[RunCreate], ignore_labels: Sequence[str]
) -> list[Ingested]:
    digests: dict[uuid_mod.UUID, str] = {}
    unique: list[RunCreate] = []
    for index, run in enumerate(runs):
        digest = body_hash(run)
        seen = digests.get(run.uuid)
        if seen is None:
            digests[run.uuid] = digest
            unique.append(run)
        elif seen != digest:
            raise Invalid(f"runs[{index}].uuid", f"{run.uuid} appears twice with different bodies")

    existing = _existing_runs(session, list(digests))
    conflicts = [str(u) for u, (_, digest) in existing.items() if digest != digests[u]]
    if conflicts:
        raise Conflict(
            f"run {conflicts[0]} is already stored with a different body"
            + (f" (and {len(conflicts) - 1} more)" if len(conflicts) > 1 else "")
            + "; a run uuid may be reused only for an identical retry",
            extra={"uuids": conflicts},
        )
    new = [run for run in unique if run.uuid not in existing]
    outcome = {
        u: Ingested(uuid=u, run_id=run_id, created=False) for u, (run_id, _) in existing.items()
    }
    if new:
        outcome.update(_store_new(session, new, digests, ignore_labels))
    session.commit()
    return [outcome[run.uuid] for run in unique]


def _store_new(
    session: Session,
    runs: list[RunCreate],
    digests: dict[uuid_mod.UUID, str],
    ignore_labels: Sequence[str],
) -> dict[uuid_mod.UUID, Ingested]:
    now = utcnow()
    agent_names = sorted({run.agent for run in runs})
    agent_ids = _upsert_ids(
        session,
        Agent,
        "name",
        {name: {"name": name, "labels": {}, "created_at": now} for name in agent_names},
    )
    env_hashes: dict[uuid_mod.UUID, str] = {}
    env_rows: dict[str, dict[str, Any]] = {}
    for run in runs:
        if run.environment:
            digest = content_hash(run.environment)
            env_hashes[run.uuid] = digest
            if digest not in env_rows:
                env_rows[digest] = _environment_row(run.environment, digest)
    env_ids = _upsert_ids(session, Environment, "hash", env_rows)

    series_rows: dict[str, dict[str, Any]] = {}
    result_keys: list[list[str]] = []
    # Runs of one configuration share their series: each key is hashed once per batch.
    digests_by: dict[tuple[bytes, str, str], str] = {}
    for run in runs:
        dims = series_key(run, metric="", unit="", ignore_labels=ignore_labels)
        run_part = canonical_json(dims)
        keys = []
        for result in run.results:
            memo = (run_part, result.metric, result.unit)
            known = digests_by.get(memo)
            if known is not None:
                keys.append(known)
                continue
            digest = content_hash({**dims, "metric": result.metric, "unit": result.unit})
            digests_by[memo] = digest
            series_rows.setdefault(
                digest,
                {
                    "key_hash": digest,
                    "workload": run.workload,
                    "metric": result.metric,
                    "unit": result.unit,
                    "direction": result.direction,
                    "agent_id": agent_ids[run.agent],
                    "target": run.target,
                    "parameters": dims["parameters"],
                    "labels": dims["labels"],
                    "created_at": now,
                },
            )
            keys.append(digest)
        result_keys.append(keys)
    series_ids = _upsert_ids(session, Series, "key_hash", series_rows)

    run_rows: list[dict[str, Any]] = [
        {
            "uuid": run.uuid,
            "body_hash": digests[run.uuid],
            "agent_id": agent_ids[run.agent],
            "environment_id": env_ids.get(env_hashes.get(run.uuid, "")),
            "workload": run.workload,
            "target": run.target,
            "parameters": run.parameters,
            "labels": run.labels,
            "started_at": run.started_at,
            "finished_at": run.finished_at,
            "status": run.status,
            "job_id": run.job_id,
            "fsync_policy": run.fsync_policy,
            "o_direct": run.o_direct,
            "sync_mount": run.sync_mount,
            "cold_method": run.cold_method,
            **stored_facts(
                write_cache=run.write_cache,
                memory_backed=run.memory_backed,
                flush_to_device=run.flush_to_device,
                environment=run.environment,
            ),
            "meta": run.meta,
            "created_at": now,
        }
        for run in runs
    ]
    run_ids = _insert_runs(session, run_rows)

    env_of_run: list[int | None] = [row["environment_id"] for row in run_rows]
    series_of_results = [[series_ids[key] for key in keys] for keys in result_keys]
    _insert_results(session, runs, run_ids, env_of_run, series_of_results, agent_ids)
    # Last: the update locks the agents' rows until the commit, and concurrent uploads from
    # the same agents wait for that lock (taken in name order, so they cannot deadlock).
    _touch_agents(session, runs, agent_ids)
    return {
        run.uuid: Ingested(uuid=run.uuid, run_id=run_id, created=True)
        for run, run_id in zip(runs, run_ids, strict=True)
    }


def _touch_agents(session: Session, runs: list[RunCreate], agent_ids: dict[str, int]) -> None:
    """Last seen is the time of the agent's last upload (the server's clock, never moved back);
    its version is that of its newest run, so a late upload of an old run does not change it."""
    now = utcnow()
    newest: dict[str, tuple[dt.datetime, str | None]] = {}
    for run in runs:
        prev = newest.get(run.agent)
        if prev is None or run.started_at >= prev[0]:
            newest[run.agent] = (run.started_at, run.agent_version or (prev[1] if prev else None))
    for name in sorted(newest):
        started, version = newest[name]
        agent_id = agent_ids[name]
        later = or_(Agent.last_seen_at.is_(None), Agent.last_seen_at < now)
        values: dict[str, Any] = {"last_seen_at": case((later, now), else_=Agent.last_seen_at)}
        if version:
            # This batch's runs are inserted already: the version changes when its newest run is
            # the agent's newest (max over ix_runs_agent_id_started_at, one index probe).
            stored_newest = (
                select(func.max(Run.started_at)).where(Run.agent_id == agent_id).scalar_subquery()
            )
            values["version"] = case((stored_newest <= started, version), else_=Agent.version)
        session.execute(update(Agent).where(Agent.id == agent_id).values(**values))


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
        return canonical_json(value).decode().translate(_COPY_ESCAPES)
    return str(value)


def _copy_text(session: Session, table: str, columns: Sequence[str], text: str) -> None:
    raw = session.connection().connection.driver_connection
    with (
        raw.cursor() as cur,  # type: ignore[union-attr]
        cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
    ):
        copy.write(text)


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


def _insert_runs(session: Session, rows: list[dict[str, Any]]) -> list[int]:
    if session.get_bind().dialect.name != "postgresql":
        ids: list[int] = []
        for chunk in _chunks(rows):
            returned = session.execute(
                insert(Run).returning(Run.id, sort_by_parameter_order=True), list(chunk)
            )
            ids.extend(returned.scalars())
        return ids
    ids = list(
        session.scalars(
            select(func.nextval("runs_id_seq")).select_from(func.generate_series(1, len(rows)))
        )
    )
    columns = ["id", *rows[0]]
    _copy_rows(
        session, "runs", columns, [[i, *row.values()] for i, row in zip(ids, rows, strict=True)]
    )
    return ids


def _insert_results(
    session: Session,
    runs: list[RunCreate],
    run_ids: list[int],
    env_ids: list[int | None],
    series_ids: list[list[int]],
    agent_ids: dict[str, int],
) -> None:
    """Every result of the runs, with its summary (computed for the whole batch at once)."""
    # The schema guarantees samples or a value.
    samples = [r.samples or [r.value or 0.0] for run in runs for r in run.results]
    if not samples:
        return
    stats = summarize_columns(samples)
    given = [r.value for run in runs for r in run.results]
    values = [p50 if v is None else v for v, p50 in zip(given, stats["p50"], strict=True)]
    flags: list[int] = []
    for run in runs:
        bits, short = run_flags(run.meta, _as_int(run.environment.get("cores")))
        flags.extend(result_flags(r.metric, len(r.samples) or 1, bits, short) for r in run.results)
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
    # escaping; the run's own fields are rendered once per run, the numbers a column at a
    # time, and the lines joined in C.
    heads: list[str] = []
    for run, run_id, env_id, sids in zip(runs, run_ids, env_ids, series_ids, strict=True):
        run_fields = "\t".join(
            [
                _copy_field(v)
                for v in (run.workload, run.started_at, run.uuid, env_id, agent_ids[run.agent])
            ]
        )
        for result, series_id in zip(run.results, sids, strict=True):
            heads.append(
                f"{run_id}\t{series_id}\t{run_fields}\t{flags[len(heads)]}\t{result.metric}"
                f"\t{result.unit}\t{result.direction}"
            )
    fields = [
        heads,
        map(repr, values),
        [orjson.dumps(s).decode() for s in samples],
        *(map(repr, stats[f]) for f in Summary._fields),
    ]
    text = "\n".join(map("\t".join, zip(*fields, strict=True))) + "\n"
    _copy_text(session, "results", RESULT_COLUMNS, text)


# ---- reads -------------------------------------------------------------------------------


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


def encode_cursor(started_at: dt.datetime, run_id: int) -> str:
    return base64.urlsafe_b64encode(f"{started_at.isoformat()}|{run_id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[dt.datetime, int]:
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
        stamp, run_id = text.rsplit("|", 1)
        return dt.datetime.fromisoformat(stamp), int(run_id)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Invalid("cursor", "not a cursor this API gave out") from exc


def parse_pairs(field: str, values: Sequence[str]) -> dict[str, list[str]]:
    """`k:v` filters (repeated; several values of one key mean any of them)."""
    pairs: dict[str, list[str]] = {}
    for item in values:
        key, sep, value = item.partition(":")
        if not sep or not key:
            raise Invalid(field, f"{item!r} is not of the form name:value")
        pairs.setdefault(key, []).append(value)
    return pairs


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
    query: Select[Any] = select(Run)
    if workload:
        query = query.where(Run.workload == workload)
    if agent:
        query = query.join(Agent, Agent.id == Run.agent_id).where(Agent.name == agent)
    if status:
        query = query.where(Run.status == status)
    if target:
        query = query.where(Run.target == target)
    dialect = session.get_bind().dialect.name
    for key, wanted in parse_pairs("label", labels).items():
        query = query.where(json_text(Run.labels, key, dialect).in_(wanted))
    for key, wanted in parse_pairs("param", params).items():
        query = query.where(json_text(Run.parameters, key, dialect).in_(wanted))
    if since:
        query = query.where(Run.started_at >= since)
    if until:
        query = query.where(Run.started_at < until)
    if cursor:
        c_started, c_id = decode_cursor(cursor)
        query = query.where(
            or_(Run.started_at < c_started, and_(Run.started_at == c_started, Run.id < c_id))
        )
    query = query.order_by(Run.started_at.desc(), Run.id.desc()).limit(limit + 1)
    rows = list(session.scalars(query))
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor(rows[-1].started_at, rows[-1].id)
    return rows, next_cursor


def list_series(
    session: Session,
    *,
    workload: str | None = None,
    metric: str | None = None,
    agent: str | None = None,
    limit: int = 50,
    cursor: int | None = None,
) -> tuple[list[tuple[Series, int, dt.datetime | None]], int | None]:
    query = select(Series)
    if workload:
        query = query.where(Series.workload == workload)
    if metric:
        query = query.where(Series.metric == metric)
    if agent:
        query = query.join(Agent, Agent.id == Series.agent_id).where(Agent.name == agent)
    if cursor is not None:
        query = query.where(Series.id > cursor)
    rows = list(session.scalars(query.order_by(Series.id).limit(limit + 1)))
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = rows[-1].id
    counts = {
        series_id: (n, last)
        for series_id, n, last in session.execute(
            select(Result.series_id, func.count(), func.max(Result.started_at))
            .where(Result.series_id.in_([s.id for s in rows]))
            .group_by(Result.series_id)
        )
    }
    return [(s, *counts.get(s.id, (0, None))) for s in rows], next_cursor


def get_series(session: Session, *, series_id: int) -> Series:
    series = session.get(Series, series_id)
    if series is None:
        raise NotFound(f"no series with id {series_id}")
    return series


POINT_COLUMNS = ("t", "run", "value", "n", "min", "max", "p5", "p95", "environment_id")
# Every point has its time and value; the other columns can be left out (`fields`).
OPTIONAL_POINT_COLUMNS = tuple(c for c in POINT_COLUMNS if c not in ("t", "value"))
_POINT_SOURCES: dict[str, Any] = {
    "t": Result.started_at, "run": Result.run_uuid, "value": Result.value, "n": Result.n,
    "min": Result.min, "max": Result.max, "p5": Result.p5, "p95": Result.p95,
    "environment_id": Result.environment_id,
}  # fmt: skip
# How each column comes out of `array_send(array_agg(column))` on PostgreSQL.
_PG_POINT_DECODERS: dict[str, Any] = {
    "t": pgarrays.timestamps, "run": pgarrays.uuids, "value": pgarrays.floats,
    "n": pgarrays.ints, "min": pgarrays.floats, "max": pgarrays.floats, "p5": pgarrays.floats,
    "p95": pgarrays.floats, "environment_id": pgarrays.ints,
}  # fmt: skip
# The columns are written with these options: numpy arrays as JSON arrays, and naive
# datetime64 (UTC) with its offset, as an aware datetime is written.
POINTS_JSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NAIVE_UTC
_PG_POINTS_SQL: dict[tuple[tuple[str, ...], bool, bool, bool], str] = {}


@dataclass(frozen=True, slots=True)
class SeriesPoints:
    # One sequence per field, for orjson.dumps(..., option=POINTS_JSON_OPTIONS): numpy arrays
    # and JSON fragments on PostgreSQL, lists on SQLite.
    columns: dict[str, Any]
    total: int  # points in the whole series
    last_at: dt.datetime | None


def series_points(
    session: Session,
    *,
    series_id: int,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    limit: int = 10_000,
    with_samples: bool = False,
    fields: Iterable[str] | None = None,
) -> SeriesPoints:
    """The newest `limit` points, oldest first, as columns: t, value and the `fields` asked
    for (every column when None). Read from the covering index (samples from the table)."""
    wanted = set(POINT_COLUMNS if fields is None else fields) | {"t", "value"}
    unknown = wanted - set(POINT_COLUMNS)
    if unknown:
        raise Invalid(
            "fields", f"unknown column {sorted(unknown)[0]!r}; one of {', '.join(POINT_COLUMNS)}"
        )
    names = tuple(c for c in POINT_COLUMNS if c in wanted)
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        raw = connection.connection.driver_connection
        return _pg_series_points(
            raw,  # type: ignore[arg-type]
            names,
            series_id=series_id,
            since=since,
            until=until,
            limit=limit,
            with_samples=with_samples,
        )
    sources = [_POINT_SOURCES[c] for c in names]
    if with_samples:
        names, sources = (*names, "samples"), [*sources, Result.samples]
    query = select(*sources).where(Result.series_id == series_id)
    if since:
        query = query.where(Result.started_at >= since)
    if until:
        query = query.where(Result.started_at < until)
    query = query.order_by(Result.started_at.desc()).limit(limit)
    rows = connection.execute(query).all()
    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in names]
    for column in columns:
        column.reverse()
    total, last_at = connection.execute(
        select(func.count(), func.max(Result.started_at)).where(Result.series_id == series_id)
    ).one()
    return SeriesPoints(dict(zip(names, columns, strict=True)), total, last_at)


def _pg_points_sql(names: tuple[str, ...], *, since: bool, until: bool, samples: bool) -> str:
    """One row: the series' point count and newest time, then one binary array per column of
    the newest points (newest first)."""
    key = (names, since, until, samples)
    sql = _PG_POINTS_SQL.get(key)
    if sql is None:
        columns = [_POINT_SOURCES[c].key for c in names]
        aggregates = [f"array_send(array_agg({c}))" for c in columns]
        if samples:
            columns.append("samples")
            aggregates.append("array_agg(samples::text)")
        where = ["series_id = %(series_id)s"]
        if since:
            where.append("started_at >= %(since)s")
        if until:
            where.append("started_at < %(until)s")
        sql = (
            "SELECT (SELECT count(*) FROM results WHERE series_id = %(series_id)s),"
            " (SELECT max(started_at) FROM results WHERE series_id = %(series_id)s),"
            f" {', '.join(aggregates)} FROM (SELECT {', '.join(columns)} FROM results"
            f" WHERE {' AND '.join(where)} ORDER BY started_at DESC LIMIT %(limit)s) AS newest"
        )
        _PG_POINTS_SQL[key] = sql
    return sql


def _pg_series_points(
    raw: psycopg.Connection[Any],
    names: tuple[str, ...],
    *,
    series_id: int,
    since: dt.datetime | None,
    until: dt.datetime | None,
    limit: int,
    with_samples: bool,
) -> SeriesPoints:
    sql = _pg_points_sql(
        names, since=since is not None, until=until is not None, samples=with_samples
    )
    params = {"series_id": series_id, "since": since, "until": until, "limit": limit}
    with raw.cursor(binary=True) as cur:
        row = cur.execute(sql, params).fetchone()
    assert row is not None  # an aggregate without GROUP BY always answers one row
    total, last_at, *arrays = row
    decoded = {c: _PG_POINT_DECODERS[c](data) for c, data in zip(names, arrays, strict=False)}
    t = decoded["t"]
    # Newest first, as the subquery ordered them: PostgreSQL feeds a plain aggregate over an
    # ordered subquery in that order, and all the aggregates see the same rows in the same
    # order, so the columns stay aligned. The order itself is checked rather than assumed.
    order: Any = slice(None, None, -1)
    if len(t) > 1 and bool((t[1:] > t[:-1]).any()):
        order = np.argsort(t, kind="stable")

    def arranged(column: Any) -> Any:
        if isinstance(column, list):
            return column[::-1] if isinstance(order, slice) else [column[i] for i in order]
        return np.ascontiguousarray(column[order])

    columns = {c: arranged(v) for c, v in decoded.items()}
    if "run" in columns:
        columns["run"] = orjson.Fragment(pgarrays.uuids_json(columns["run"]))
    if with_samples:
        samples = arranged(arrays[-1] or [])
        columns["samples"] = orjson.Fragment(("[" + ",".join(samples) + "]").encode())
    return SeriesPoints(columns, total, last_at.astimezone(dt.UTC) if last_at else None)
