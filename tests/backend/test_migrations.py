"""The migrations build exactly the schema the models describe, on PostgreSQL and SQLite,
and downgrade back to nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from perfatlas.cli import _alembic_config
from perfatlas.core.db import make_engine
from perfatlas.models import Base
from tests.conftest import _db_name, create_database, drop_database


def _diff(url: str) -> list[object]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


@pytest.fixture(params=["postgresql", "sqlite"])
def empty_db(request: pytest.FixtureRequest, tmp_path: Path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'migrations.db'}"
        return
    name = _db_name("migrations")
    yield create_database(name)
    drop_database(name)


def test_models_and_migrations_agree(empty_db: str) -> None:
    config = _alembic_config(empty_db)
    command.upgrade(config, "head")  # type: ignore[arg-type]
    assert _diff(empty_db) == []
    assert _tables(empty_db) == set(Base.metadata.tables)
    command.upgrade(config, "head")  # type: ignore[arg-type]  # again: a no-op
    command.downgrade(config, "base")  # type: ignore[arg-type]
    assert _tables(empty_db) == set()
    command.upgrade(config, "head")  # type: ignore[arg-type]
    assert _diff(empty_db) == []
