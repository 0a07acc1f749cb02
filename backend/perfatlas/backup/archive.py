"""The whole database as one portable archive, and back: `perfatlas export FILE` and `perfatlas
import FILE`. A zip of one JSON-lines file per table (every row, in key order) and a manifest
with the schema's revision and each table's row count. It reads and writes through the models'
tables, so an archive made on SQLite imports into PostgreSQL and the other way round: the way
from the embedded default to a production database without losing history.

Left out: secrets and what belongs to one running deployment. API tokens and enrollment tokens
are not exported (only their hashes are stored, useless elsewhere); agents come back without
their enrollment, so each enrolls again under its own name and keeps its history; the worker's
heartbeat and waiting check requests are the old server's state."""

from __future__ import annotations

import base64
import datetime as dt
import json
import uuid as uuid_mod
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Date, DateTime, Engine, LargeBinary, Table, Uuid, func, select, text
from sqlalchemy.engine import Connection

from perfatlas.core.errors import Conflict, Invalid
from perfatlas.models import Base

FORMAT = "perfatlas-archive"
VERSION = 1
LEFT_OUT = frozenset({"api_tokens", "agent_enrollment_tokens", "worker_heartbeats",
                      "detection_requests"})  # fmt: skip
CHUNK = 1000
# Columns cleared on the way out: an agent's enrollment belongs to the token it was given here.
CLEARED = {"agents": ("enrolled_at", "heartbeat_at")}

Progress = Callable[[str, int], None]


def tables() -> list[Table]:
    """Every table exported, parents before children (foreign keys)."""
    return [t for t in Base.metadata.sorted_tables if t.name not in LEFT_OUT]


def _encode(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, uuid_mod.UUID):
        return str(value)
    if isinstance(value, bytes | memoryview):
        return base64.b64encode(bytes(value)).decode()
    return value


def _decoder(table: Table) -> Callable[[dict[str, Any]], dict[str, Any]]:
    kinds: dict[str, Callable[[Any], Any]] = {}
    for column in table.columns:
        kind = column.type
        if isinstance(kind, DateTime) or getattr(kind, "impl", None).__class__ is DateTime:
            kinds[column.name] = dt.datetime.fromisoformat
        elif isinstance(kind, Date):
            kinds[column.name] = dt.date.fromisoformat
        elif isinstance(kind, Uuid):
            kinds[column.name] = uuid_mod.UUID
        elif isinstance(kind, LargeBinary):
            kinds[column.name] = base64.b64decode

    def decode(row: dict[str, Any]) -> dict[str, Any]:
        return {k: (kinds[k](v) if v is not None and k in kinds else v) for k, v in row.items()}

    return decode


def _revision(conn: Connection) -> str | None:
    try:
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except Exception:  # not migrated
        return None


def _rows(conn: Connection, table: Table) -> Iterator[dict[str, Any]]:
    keys = list(table.primary_key.columns) or list(table.columns)
    result = conn.execution_options(stream_results=True, yield_per=CHUNK).execute(
        select(table).order_by(*keys)
    )
    cleared = CLEARED.get(table.name, ())
    for row in result.mappings():
        yield {k: (None if k in cleared else _encode(v)) for k, v in row.items()}


def export_archive(engine: Engine, path: Path, progress: Progress | None = None) -> dict[str, int]:
    """Writes the archive (to a temporary name, renamed when complete); the rows per table."""
    counts: dict[str, int] = {}
    partial = path.with_name(path.name + ".partial")
    with engine.connect() as conn, zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
        # One snapshot for every table: a run and its results, as they were at one moment.
        if conn.dialect.name == "postgresql":
            conn.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"))
        revision = _revision(conn)
        for table in tables():
            n = 0
            with zf.open(f"tables/{table.name}.jsonl", "w", force_zip64=True) as out:
                for row in _rows(conn, table):
                    out.write(json.dumps(row, separators=(",", ":")).encode() + b"\n")
                    n += 1
            counts[table.name] = n
            if progress:
                progress(table.name, n)
        manifest = {
            "format": FORMAT, "version": VERSION, "revision": revision,
            "dialect": conn.dialect.name, "created_at": dt.datetime.now(dt.UTC).isoformat(),
            "tables": counts, "left_out": sorted(LEFT_OUT),
        }  # fmt: skip
        zf.writestr("manifest.json", json.dumps(manifest, indent=2))
    partial.replace(path)
    return counts


def _manifest(zf: zipfile.ZipFile) -> dict[str, Any]:
    try:
        manifest: dict[str, Any] = json.loads(zf.read("manifest.json"))
    except (KeyError, ValueError) as exc:
        raise Invalid("file", "not a PerfAtlas archive (no manifest.json)") from exc
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise Invalid("file", f"not a PerfAtlas archive of version {VERSION}")
    return manifest


def import_archive(engine: Engine, path: Path, progress: Progress | None = None) -> dict[str, int]:
    """Loads an archive into a migrated, empty database, all in one transaction."""
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise Invalid("file", f"cannot read {path}: {exc}") from exc
    with zf, engine.begin() as conn:
        manifest = _manifest(zf)
        revision = _revision(conn)
        if revision != manifest["revision"]:
            raise Invalid(
                "file", f"the archive is of schema revision {manifest['revision']}, this database "
                f"of {revision}: run `perfatlas migrate` on the server that made it, or here",
            )  # fmt: skip
        for table in tables():
            if conn.execute(select(func.count()).select_from(table)).scalar():
                raise Conflict(f"the database is not empty ({table.name} has rows): import "
                               "into a new database")  # fmt: skip
        counts: dict[str, int] = {}
        for table in tables():
            name = f"tables/{table.name}.jsonl"
            if name not in zf.namelist():
                raise Invalid("file", f"the archive has no {name}")
            decode = _decoder(table)
            batch: list[dict[str, Any]] = []
            n = 0
            with zf.open(name) as lines:
                for line in lines:
                    batch.append(decode(json.loads(line)))
                    if len(batch) == CHUNK:
                        conn.execute(table.insert(), batch)
                        n += len(batch)
                        batch = []
            if batch:
                conn.execute(table.insert(), batch)
                n += len(batch)
            if n != manifest["tables"].get(table.name):
                raise Invalid("file", f"{name} holds {n} rows, the manifest says "
                              f"{manifest['tables'].get(table.name)}: the archive is damaged")  # fmt: skip
            counts[table.name] = n
            if progress:
                progress(table.name, n)
        if conn.dialect.name == "postgresql":
            _advance_sequences(conn)
    return counts


def _advance_sequences(conn: Connection) -> None:
    """Ids were inserted as they were: each table's id sequence moves past the largest."""
    for table in tables():
        for column in table.primary_key.columns:
            if column.autoincrement is True or (
                column.autoincrement == "auto" and len(table.primary_key.columns) == 1
                and column.type.python_type is int
            ):  # fmt: skip
                sequence = conn.execute(
                    text("SELECT pg_get_serial_sequence(:t, :c)"),
                    {"t": table.name, "c": column.name},
                ).scalar()
                if sequence:
                    conn.execute(
                        text(f"SELECT setval(:s, COALESCE((SELECT max({column.name}) FROM "
                             f"{table.name}), 0) + 1, false)"), {"s": sequence},
                    )  # fmt: skip
