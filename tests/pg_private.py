"""A PostgreSQL cluster of a test's own, to stop and start under a running server: stopping the
shared one would stop every other test."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import _free_port, patient, skip_unless_able

PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"))), None)


def _as_postgres(*argv: str, check: bool = True) -> None:
    subprocess.run(["runuser", "-u", "postgres", "--", *argv], check=check, capture_output=True)


@dataclass
class PrivatePostgres:
    data: Path
    port: int

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of its `postgres` database."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *args: str, check: bool = True) -> None:
        assert PG_BIN is not None
        _as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), *args, check=check)

    def start(self) -> None:
        self._ctl("-w", "-l", str(self.data / "log"), "-o",
                  f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1", "start")  # fmt: skip

    def stop(self) -> None:
        """As an operator's `pg_ctl stop -m fast`: sessions cut, connections refused."""
        self._ctl("-m", "fast", "-w", "stop")


@contextlib.contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    if PG_BIN is None or os.geteuid() != 0 or shutil.which("runuser") is None:
        skip_unless_able("a private PostgreSQL needs its binaries and root (runuser postgres)")
    assert PG_BIN is not None
    # Not under pytest's tmp_path, whose parents the postgres user may not enter.
    data = Path(tempfile.mkdtemp(prefix="perfatlas-pg-"))
    data.chmod(0o700)
    shutil.chown(data, "postgres")
    server = PrivatePostgres(data=data, port=_free_port())
    _as_postgres(str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
    server.start()
    try:
        yield server
    finally:
        server._ctl("-m", "immediate", "stop", check=False)
        shutil.rmtree(data, ignore_errors=True)


@dataclass
class Served:
    base: str  # http://127.0.0.1:PORT/api/v1
    token: str  # an admin token
    log: Path
    proc: subprocess.Popen[bytes]

    def status(self, path: str) -> int | None:
        try:
            return httpx.get(f"{self.base}{path}", timeout=5).status_code
        except httpx.TransportError:
            return None

    def wait_for(self, check: Callable[[], object], what: str, seconds: float = 60) -> None:
        seconds = patient(seconds)
        deadline = time.monotonic() + seconds
        while not check():
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            if time.monotonic() > deadline:
                pytest.fail(f"{what}: not within {seconds} s; server log:\n"
                            f"{self.log.read_text()[-3000:]}")  # fmt: skip
            time.sleep(0.2)


@contextlib.contextmanager
def serve_on(pg: PrivatePostgres, log: Path) -> Iterator[Served]:
    """`perfatlas serve` on the private cluster's database, migrated, with an admin token; its
    background work goes nowhere (memory://): these tests are about the database."""
    from perfatlas.auth.service import create_token
    from perfatlas.cli import run_migrations
    from perfatlas.core.db import get_engine, session_factory

    run_migrations(pg.url)
    with session_factory(get_engine(pg.url))() as session:
        token = create_token(session, name="private", scope="admin")[1]
    get_engine(pg.url).dispose()
    port = _free_port()
    env = {
        **os.environ, "PERFATLAS_DATABASE_URL": pg.url, "PERFATLAS_PORT": str(port),
        "PERFATLAS_BROKER_URL": "memory://", "PERFATLAS_DETECT_ON_INGEST": "false",
    }  # fmt: skip
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "perfatlas", "serve", "--no-migrate"], env=env, stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    served = Served(f"http://127.0.0.1:{port}/api/v1", token, log, proc)
    try:
        served.wait_for(lambda: served.status("/health") == 200, "the server")
        yield served
    finally:
        proc.terminate()
        proc.wait(timeout=20)
