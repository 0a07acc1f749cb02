"""Ingest: new runs with their results, series and environments, in the caller's transaction;
a retry of a stored run is a no-op, the same uuid with another body a conflict."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.core import metrics
from perfatlas.core.db import key_in
from perfatlas.core.durability import stored_facts
from perfatlas.core.errors import Conflict, Invalid
from perfatlas.core.measurement import RunCreate, column_int
from perfatlas.core.models import utcnow
from perfatlas.core.trust import CONFIRMING, REFERENCE
from perfatlas.jobs.enums import JobKind
from perfatlas.jobs.models import Job
from perfatlas.runs.copy_writer import chunks, insert_pending, insert_results, insert_runs
from perfatlas.runs.heads import RunHead, head_of
from perfatlas.runs.keys import body_hash, series_digest, series_key, series_parts
from perfatlas.runs.models import Environment, Run, Series
from perfatlas.runs.seen import touch_agents
from perfatlas.runs.tallies import count_runs

# Environment keys copied into columns, so that filters and group-bys use plain columns.
_ENV_TEXT_KEYS = ("hostname", "kernel", "os", "cpu_model", "fs_type", "device", "device_model")


@dataclass(frozen=True, slots=True)
class Ingested:
    uuid: uuid_mod.UUID
    run_id: int
    created: bool
    # The series its results went to (a new run's; none for a retry).
    series_ids: tuple[int, ...] = ()


def _ids_by(session: Session, column: Any, id_column: Any, keys: Sequence[Any]) -> dict[Any, int]:
    """Ids by key of the stored rows with these keys. `column` and `id_column` are a table's
    own columns (Table.c): a Core select skips the ORM's compile and result steps, which were
    most of a small upload's lookups."""
    found: dict[Any, int] = {}
    connection = session.connection()
    for condition in key_in(session, column, keys):
        found.update(connection.execute(select(column, id_column).where(condition)).all())
    return found


def _upsert_ids(
    session: Session, model: Any, key: str, rows: dict[Any, dict[str, Any]]
) -> dict[Any, int]:
    """Ids of the rows with these keys, inserting the missing ones (concurrent inserts of the
    same key are harmless: ON CONFLICT DO NOTHING, then read back)."""
    table = model.__table__
    column = table.c[key]
    found = _ids_by(session, column, table.c.id, list(rows))
    # In key order: concurrent uploads inserting the same new keys wait for each other in
    # the same order, never in a cycle.
    missing = [rows[k] for k in sorted(rows) if k not in found]
    if missing:
        dialect = session.get_bind().dialect.name
        ins = postgresql.insert(model) if dialect == "postgresql" else sqlite.insert(model)
        for chunk in chunks(missing):
            session.execute(ins.on_conflict_do_nothing(), list(chunk))
        found.update(_ids_by(session, column, table.c.id, [row[key] for row in missing]))
    return found


def _environment_row(data: dict[str, Any], digest: str) -> dict[str, Any]:
    row: dict[str, Any] = {"hash": digest, "data": data, "created_at": utcnow()}
    for key in _ENV_TEXT_KEYS:
        value = data.get(key)
        row[key] = str(value)[:255] if value is not None else None
    row["cores"] = column_int(data.get("cores"))
    row["ram_bytes"] = column_int(data.get("ram_bytes"))
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
    runs = Run.__table__.c  # Core, as _ids_by
    connection = session.connection()
    for condition in key_in(session, runs.uuid, uuids):
        for run_uuid, run_id, digest in connection.execute(
            select(runs.uuid, runs.id, runs.body_hash).where(condition)
        ):
            existing[run_uuid] = (run_id, digest)
    return existing


def _confirm_jobs(session: Session, job_ids: set[int]) -> set[int]:
    """Which of these jobs are confirmation jobs: their runs stay out of the series' history."""
    if not job_ids:
        return set()
    return set(
        session.scalars(
            select(Job.id).where(Job.id.in_(sorted(job_ids)), Job.kind == JobKind.confirm.value)
        )
    )


# Runs' full bodies for the new runs' rows, a list at a time, in the order of the heads asked
# for: the runs themselves when they are all in memory, or each chunk validated again from the
# request's bytes (flows/large_batch.py).
LoadRuns = Callable[[Sequence[RunHead]], Iterable[Sequence[RunCreate]]]


def unique_runs(
    runs: Iterable[tuple[int, uuid_mod.UUID, str]], digests: dict[uuid_mod.UUID, str]
) -> list[int]:
    """The indices of a batch's runs, given as (index, uuid, body hash), whose uuid is new to
    `digests` (which collects their hashes), in order; Invalid, naming the later one, for a
    uuid met again with another body (a run met again with the same body is left out)."""
    unique = []
    for index, run_uuid, digest in runs:
        seen = digests.get(run_uuid)
        if seen is None:
            digests[run_uuid] = digest
            unique.append(index)
        elif seen != digest:
            raise Invalid(f"runs[{index}].uuid", f"{run_uuid} appears twice with different bodies")
    return unique


def ingest(
    session: Session,
    *,
    runs: Sequence[RunCreate],
    ignore_labels: Sequence[str],
    unknown_facts: Mapping[str, str] | None = None,
    reference: bool = False,
) -> list[Ingested]:
    """Stores the runs that are new in the caller's transaction (the caller commits, and retries
    on a collision: core.db.commit_with_retry); a retry of a stored run is a no-op.

    The same uuid with another body is a Conflict and nothing of the request is written.
    `unknown_facts` are stored for durability facts a run does not give (an importer's
    "unknown"): they are the server's words, not the body's, so they are not in its hash.
    `reference` stores the new runs as reference figures (references/: runs.reference and the
    REFERENCE trust bit); their uuids are the caller's to keep apart from measured runs."""
    digests: dict[uuid_mod.UUID, str] = {}
    hashed = ((index, run.uuid, body_hash(run)) for index, run in enumerate(runs))
    unique = [runs[index] for index in unique_runs(hashed, digests)]
    by_uuid = {run.uuid: run for run in unique}
    heads = [head_of(run) for run in unique]
    environments = {
        h.environment_hash: by_uuid[h.uuid].environment for h in heads if h.environment_hash
    }
    return ingest_heads(
        session, heads=heads, digests=digests, environments=environments,
        load=lambda wanted: [[by_uuid[h.uuid] for h in wanted]], ignore_labels=ignore_labels,
        unknown_facts=unknown_facts, reference=reference,
    )  # fmt: skip


def ingest_heads(
    session: Session,
    *,
    heads: Sequence[RunHead],
    digests: Mapping[uuid_mod.UUID, str],
    environments: Mapping[str, dict[str, Any]],
    load: LoadRuns,
    ignore_labels: Sequence[str],
    unknown_facts: Mapping[str, str] | None = None,
    reference: bool = False,
) -> list[Ingested]:
    """`ingest` of the unique runs of a batch given by their heads, body hashes and
    environments (by hash); `load` gives the new ones' full runs for their rows."""
    existing = _existing_runs(session, list(digests))
    conflicts = [str(u) for u, (_, digest) in existing.items() if digest != digests[u]]
    if conflicts:
        raise Conflict(
            f"run {conflicts[0]} is already stored with a different body"
            + (f" (and {len(conflicts) - 1} more)" if len(conflicts) > 1 else "")
            + "; a run uuid may be reused only for an identical retry",
            extra={"uuids": conflicts},
        )
    new = [head for head in heads if head.uuid not in existing]
    outcome = {
        u: Ingested(uuid=u, run_id=run_id, created=False) for u, (run_id, _) in existing.items()
    }
    if new:
        # In uuid order: concurrent batches holding the same new runs insert them in the same
        # order, so one waits for the other instead of deadlocking.
        new.sort(key=lambda head: head.uuid)
        metrics.count_stored(session, runs=len(new), results=sum(len(h.results) for h in new))
        facts = unknown_facts or {}
        stored = _store_new(
            session, new, digests, environments, load, ignore_labels, facts, reference
        )
        outcome.update(stored)
    return [outcome[head.uuid] for head in heads]


def _store_new(
    session: Session,
    heads: list[RunHead],
    digests: Mapping[uuid_mod.UUID, str],
    environments: Mapping[str, dict[str, Any]],
    load: LoadRuns,
    ignore_labels: Sequence[str],
    unknown_facts: Mapping[str, str],
    reference: bool,
) -> dict[uuid_mod.UUID, Ingested]:
    now = utcnow()
    agent_names = sorted({head.agent for head in heads})
    agent_ids = _upsert_ids(
        session,
        Agent,
        "name",
        {name: {"name": name, "labels": {}, "created_at": now} for name in agent_names},
    )
    env_rows = {
        h.environment_hash: _environment_row(environments[h.environment_hash], h.environment_hash)
        for h in heads
        if h.environment_hash is not None
    }
    env_ids = _upsert_ids(session, Environment, "hash", env_rows)

    series_rows: dict[str, dict[str, Any]] = {}
    result_keys: list[list[str]] = []
    # Runs of one configuration share their series: each key is hashed once per batch.
    digests_by: dict[tuple[tuple[bytes, bytes, bytes], str, str], str] = {}
    for head in heads:
        dims = series_key(head, metric="", unit="", ignore_labels=ignore_labels)
        parts = series_parts(dims)
        keys = []
        for result in head.results:
            memo = (parts, result.metric, result.unit)
            known = digests_by.get(memo)
            if known is not None:
                keys.append(known)
                continue
            digest = series_digest(parts, result.metric, result.unit)
            digests_by[memo] = digest
            series_rows.setdefault(
                digest,
                {
                    "key_hash": digest,
                    "workload": head.workload,
                    "metric": result.metric,
                    "unit": result.unit,
                    "direction": result.direction,
                    "agent_id": agent_ids[head.agent],
                    "target": head.target,
                    "parameters": dims["parameters"],
                    "labels": dims["labels"],
                    "created_at": now,
                },
            )
            keys.append(digest)
        result_keys.append(keys)
    series_ids = _upsert_ids(session, Series, "key_hash", series_rows)
    series_of_results = [[series_ids[key] for key in keys] for keys in result_keys]

    confirming = _confirm_jobs(session, {h.job_id for h in heads if h.job_id is not None})
    written = _Written(
        digests=digests, agent_ids=agent_ids, now=now, unknown_facts=unknown_facts,
        reference=reference, confirming=confirming,
        env_ids={h.uuid: env_ids.get(h.environment_hash or "") for h in heads},
        series_ids=dict(zip((h.uuid for h in heads), series_of_results, strict=True)),
    )  # fmt: skip
    run_ids: list[int] = []
    for runs in load(heads):
        run_ids += _write_runs(session, runs, written)
        del runs  # dropped before the next chunk is read
    if len(run_ids) != len(heads):
        raise RuntimeError(f"{len(run_ids)} runs written of {len(heads)}")
    # Last: the update locks the agents' rows until the commit, and concurrent uploads from
    # the same agents wait for that lock (taken in name order, so they cannot deadlock).
    touch_agents(
        session,
        runs=[(head.agent, head.started_at, head.agent_version) for head in heads],
        agent_ids=agent_ids,
    )
    # After the agents' rows: a count of an agent's runs is written only under that row. With
    # the counts, the catalog's values and the days of the values (runs/value_days.py).
    count_runs(session, heads, agent_ids)
    return {
        head.uuid: Ingested(uuid=head.uuid, run_id=run_id, created=True, series_ids=tuple(ids))
        for head, run_id, ids in zip(heads, run_ids, series_of_results, strict=True)
    }


@dataclass(frozen=True, slots=True)
class _Written:
    """What the rows of a batch's new runs take besides the runs themselves."""

    digests: Mapping[uuid_mod.UUID, str]
    agent_ids: dict[str, int]
    env_ids: dict[uuid_mod.UUID, int | None]
    series_ids: dict[uuid_mod.UUID, list[int]]
    confirming: set[int]
    now: dt.datetime
    unknown_facts: Mapping[str, str]
    reference: bool


def _write_runs(session: Session, runs: Sequence[RunCreate], written: _Written) -> list[int]:
    """The rows of these new runs, their results' and their pending folds'; their ids."""
    runs = list(runs)
    reference = written.reference
    run_rows: list[dict[str, Any]] = [
        {
            "uuid": run.uuid,
            "body_hash": written.digests[run.uuid],
            "agent_id": written.agent_ids[run.agent],
            "environment_id": written.env_ids[run.uuid],
            "workload": run.workload,
            "target": run.target,
            "parameters": run.parameters,
            "labels": run.labels,
            "started_at": run.started_at,
            "finished_at": run.finished_at,
            "status": run.status,
            "job_id": run.job_id,
            "confirming": run.job_id in written.confirming,
            "reference": reference,
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
            "created_at": written.now,
        }
        for run in runs
    ]
    for row in run_rows:
        for fact, unknown in written.unknown_facts.items():
            if row[fact] is None:
                row[fact] = unknown
    run_ids = insert_runs(session, run_rows)
    # Explore reads these runs' results as they are until the worker folds them into its
    # rollups; a confirmation job's runs are in no history, so never folded.
    insert_pending(
        session, [i for i, row in zip(run_ids, run_rows, strict=True) if not row["confirming"]]
    )
    run_bits = [
        (CONFIRMING if row["confirming"] else 0) | (REFERENCE if reference else 0)
        for row in run_rows
    ]
    insert_results(
        session, runs, run_ids, [row["environment_id"] for row in run_rows],
        [written.series_ids[run.uuid] for run in runs], written.agent_ids, run_bits=run_bits,
    )  # fmt: skip
    return run_ids
