"""The tests' databases: PostgreSQL databases on the test server (PERFATLAS_TEST_PG) and SQLite
files, with the schema at head copied from a template each pytest process migrates once.

Migrating from nothing took ~1 s on PostgreSQL and ~0.4 s on SQLite on a quiet 2-core machine,
and the suite asked for about 150 fresh databases (a live server's, a SQLite variant of a
query test's); `CREATE DATABASE … TEMPLATE` takes ~0.2 s and a file copy a few milliseconds.
The migrations themselves are tested from nothing (tests/backend/migrations) and by every
server started as `make up` starts it."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from perfatlas.cli import run_migrations

PG_SERVER = os.environ.get("PERFATLAS_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432")


def admin_dsn() -> str:
    return PG_SERVER.replace("postgresql+psycopg://", "postgresql://") + "/postgres"


def db_name(suffix: str) -> str:
    """A database name of this pytest process' own: parallel runs never share rows."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return f"perfatlas_test_{worker}_{os.getpid()}_{suffix}"


def _admin(*statements: str) -> None:
    try:
        with psycopg.connect(admin_dsn(), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)  # type: ignore[arg-type]
    except psycopg.OperationalError as exc:
        pytest.exit(
            f"PostgreSQL at {PG_SERVER} does not answer ({exc}); `make test` starts it",
            returncode=3,
        )


def create_database(name: str) -> str:
    """A fresh, empty database on the test server; returns its SQLAlchemy URL."""
    _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"')
    return f"{PG_SERVER}/{name}"


def drop_database(name: str) -> None:
    _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# This process' templates, made on first use: the PostgreSQL database's name, the SQLite file.
_pg_template: str | None = None
_sqlite_template: Path | None = None


def migrated_database(name: str) -> str:
    """A new database on the test server with the schema at head (a copy of this process'
    template); returns its SQLAlchemy URL."""
    global _pg_template
    if _pg_template is None:
        template = db_name("template")
        url = create_database(template)
        run_migrations(url)  # its engine disposed: nobody may be connected to a template
        _pg_template = template
    _admin(
        f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
        f'CREATE DATABASE "{name}" TEMPLATE "{_pg_template}"',
    )
    return f"{PG_SERVER}/{name}"


def migrate(url: str) -> None:
    """The schema at head in the database at `url`: a new SQLite file is copied from this
    process' template; any other database is migrated."""
    global _sqlite_template
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        run_migrations(url)
        return
    path = Path(parsed.database)
    assert not path.exists(), f"{path} exists: migrate() makes a new database"
    if _sqlite_template is None:
        template = Path(tempfile.gettempdir()) / f"{db_name('template')}.db"
        template.unlink(missing_ok=True)
        template_url = f"sqlite:///{template}"
        run_migrations(template_url)
        conn = sqlite3.connect(template)
        try:  # all of it in the file itself, none in its WAL
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
        _sqlite_template = template
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_sqlite_template, path)


def drop_templates() -> None:
    """At the end of the process (tests/conftest.py's pytest_sessionfinish)."""
    global _pg_template, _sqlite_template
    if _pg_template is not None:
        drop_database(_pg_template)
        _pg_template = None
    if _sqlite_template is not None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{_sqlite_template}{suffix}").unlink(missing_ok=True)
        _sqlite_template = None
