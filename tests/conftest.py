"""Test fixtures: a real PostgreSQL database per session, migrated once; tables emptied per test.

PERFATLAS_TEST_PG (default postgresql+psycopg://postgres@127.0.0.1:5432) names the server;
each pytest process gets its own databases, so parallel runs never share rows."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from perfatlas.auth.service import create_token
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.main import create_app
from perfatlas.models import Base
from tests.databases import (
    db_name,
    drop_database,
    drop_templates,
    migrated_database,
)

REPO = Path(__file__).resolve().parents[1]
# Every table of the schema, emptied after each test that used the shared database (a table
# left off a hand-kept list kept its rows from one test to the next).
TABLES = tuple(Base.metadata.tables)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    name = db_name("api")
    url = migrated_database(name)
    yield url
    get_engine(url).dispose()
    drop_database(name)


# The least a test waits for a state before it fails: a budget costs nothing when the state
# comes, and with every core busy (tests/load/busy.py, other test runs) a worker's pass or a
# server's start that takes a second when idle took past a minute (issue 41).
PATIENCE_S = 180.0


def patient(seconds: float) -> float:
    """A wait's budget: the one asked for, and at least PATIENCE_S."""
    return max(seconds, PATIENCE_S)


REDIS_URL = os.environ.get("PERFATLAS_TEST_REDIS", "redis://127.0.0.1:6379/0")
# Uploads in tests queue their detection tasks here, on the real Redis; no worker consumes this
# queue (tests that need a worker start one on a queue of their own), and it is deleted at the end.
IDLE_QUEUE = f"perfatlas-test-idle-{os.getpid()}"


@pytest.fixture(scope="session")
def settings(pg_url: str) -> Iterator[Settings]:
    yield Settings(
        database_url=pg_url, public_read=False, max_body_bytes=2 * 1024 * 1024,
        broker_url=REDIS_URL, queue=IDLE_QUEUE,
    )  # fmt: skip
    delete_redis_queue(IDLE_QUEUE)


def delete_redis_queue(name: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    keys = [*client.scan_iter(match=f"{name}*"), *client.scan_iter(match=f"_kombu.binding*{name}*")]
    if keys:
        client.delete(*keys)
    client.close()


# The tables written since they were last emptied: any row written (kept, deleted or rolled
# back) gave the table a page, and TRUNCATE leaves none; a sequence drawn from (a failed
# insert may draw without writing) has a last value until RESTART IDENTITY clears it.
_WRITTEN = text("""
    SELECT c.relname FROM pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
      AND c.relname = ANY(:tables)
      AND (pg_relation_size(c.oid) > 0 OR EXISTS (
          SELECT 1 FROM pg_depend d JOIN pg_class s ON s.oid = d.objid
          JOIN pg_sequences q ON q.schemaname = current_schema() AND q.sequencename = s.relname
          WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass
            AND d.refobjid = c.oid AND s.relkind = 'S' AND q.last_value IS NOT NULL))
""")


@pytest.fixture
def engine(settings: Settings) -> Iterator[Engine]:
    """The session's PostgreSQL database, emptied after the test: every table it wrote
    truncated, identities restarted (tests share the database, and the app under test and a
    test's own sessions each commit on connections of their own, so a rollback cannot undo
    them). A table nothing wrote is left as it is: truncating costs a few milliseconds a table
    even when empty."""
    engine = get_engine(settings.effective_database_url)
    yield engine
    with engine.begin() as conn:
        written = conn.scalars(_WRITTEN, {"tables": list(TABLES)}).all()
        if written:
            conn.execute(text(f"TRUNCATE {', '.join(written)} RESTART IDENTITY CASCADE"))


@dataclass
class Tokens:
    read: str
    upload: str
    admin: str


@pytest.fixture
def tokens(engine: Engine) -> Tokens:
    factory = session_factory(engine)
    made = {}
    for scope in ("read", "upload", "admin"):
        with factory() as session:
            made[scope] = create_token(session, name=f"test-{scope}", scope=scope)[1]
    return Tokens(**made)


@pytest.fixture
def client(settings: Settings, engine: Engine) -> Iterator[TestClient]:
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def upload_headers(tokens: Tokens) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens.upload}"}


@pytest.fixture
def read_headers(tokens: Tokens) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens.read}"}


# ---- a real server process, for tests that cross a process boundary (the agent) -----------


@dataclass
class LiveServer:
    url: str
    upload_token: str
    read_token: str
    admin_token: str
    database_url: str
    log: Path | None = None  # the server's output


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serve(suffix: str, log_dir: Path, **settings: str) -> Iterator[LiveServer]:
    """`perfatlas serve` in its own process on a new PostgreSQL database of its own; `settings`
    are more environment variables (PERFATLAS_…) for it."""
    name = db_name(suffix)
    url = migrated_database(name)
    port = _free_port()
    env = {
        **os.environ, "PERFATLAS_DATABASE_URL": url, "PERFATLAS_PORT": str(port),
        "PERFATLAS_BROKER_URL": REDIS_URL, "PERFATLAS_QUEUE": IDLE_QUEUE, **settings,
    }  # fmt: skip
    factory = session_factory(get_engine(url))
    tokens = {}
    for scope in ("read", "upload", "admin"):
        with factory() as session:
            tokens[scope] = create_token(session, name=f"live-{scope}", scope=scope)[1]
    get_engine(url).dispose()
    log = (log_dir / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "perfatlas", "serve", "--no-migrate"], env=env, stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + patient(30)
    while True:
        try:
            if httpx.get(f"{base}/api/v1/health", timeout=5).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"perfatlas serve did not start; see {log.name}")
        time.sleep(0.1)
    try:
        yield LiveServer(
            url=base, upload_token=tokens["upload"], read_token=tokens["read"],
            admin_token=tokens["admin"], database_url=url, log=log_dir / "server.log",
        )  # fmt: skip
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        drop_database(name)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """`perfatlas serve` in its own process on its own PostgreSQL database."""
    with serve("live", tmp_path_factory.mktemp("live")) as server:
        yield server


# ---- markers (registered in pyproject.toml) ----------------------------------------------
# Given from where a test lives and what it uses, so that a new test gets them as its
# neighbours do; `make test-fast` runs the tests that have none of them.
BROWSER_DIR = REPO / "tests" / "e2e"
# Fixtures that mount filesystems (tests/agent/conftest.py); a module that imports
# private_postgres (tests/pg_private.py) starts a cluster as the postgres user.
ROOT_FIXTURES = frozenset({"tmpfs_root", "tmpfs_target", "small_tmpfs", "loopfs", "private_loop"})
# Fixtures and helpers that start processes and wait on them: a Celery worker with its beat
# (tests/backend/alerts/conftest.py), `perfatlas serve` on a database of its own, the agent's
# CLI running its workloads, its daemon waited for (tests/agent); a module that starts its own otherwise says so with
# `pytestmark = pytest.mark.slow`.
SLOW_FIXTURES = frozenset({"worker", "worker_client", "live_server"})
SLOW_HELPERS = ("serve", "run_agent", "agent_cmd", "EmbeddedServer", "wait_for")


def pytest_sessionfinish() -> None:
    drop_templates()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(BROWSER_DIR):
            item.add_marker(pytest.mark.browser)
        module = getattr(item, "module", None)
        if ROOT_FIXTURES.intersection(getattr(item, "fixturenames", ())) or hasattr(
            module, "private_postgres"
        ):
            item.add_marker(pytest.mark.root)
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())) or any(
            hasattr(module, name) for name in SLOW_HELPERS
        ):
            item.add_marker(pytest.mark.slow)


def skip_unless_able(reason: str) -> None:
    """For a test this machine cannot run (not root, a tool missing): a skip with the reason on
    a developer's machine, but a failure in CI (CI=true), where `make test` installs everything
    and runs as root, so that a broken install step cannot pass as skipped tests."""
    if os.environ.get("CI"):
        pytest.fail(f"CI cannot run this test: {reason}", pytrace=False)
    pytest.skip(reason)
