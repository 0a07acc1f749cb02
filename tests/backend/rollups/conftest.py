"""The rollups tests' fixtures: a database of either kind, a real worker (the alerts tests')."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.core.db import get_engine, session_factory
from tests.backend.alerts.conftest import (
    mail_server,
    worker,
    worker_client,
    worker_queue,
    worker_settings,
)
from tests.databases import migrate

__all__ = ["mail_server", "worker", "worker_client", "worker_queue", "worker_settings"]


@pytest.fixture(params=["postgresql", "sqlite"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[sessionmaker[Session]]:
    """Sessions on the test PostgreSQL database (emptied after the test) or a new SQLite file."""
    if request.param == "postgresql":
        engine: Engine = request.getfixturevalue("engine")
        yield session_factory(engine)
        return
    url = f"sqlite:///{tmp_path / 'rollups.db'}"
    migrate(url)
    yield session_factory(get_engine(url))
    get_engine(url).dispose()
