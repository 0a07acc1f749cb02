"""A PostgreSQL of the test's own, stopped under a running `perfatlas serve`: every route
answers 503 with Retry-After (never 500), /health says what is down and since when, and the
server answers again, with nothing lost or doubled, once the database is back."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from perfatlas.auth.service import create_token
from perfatlas.cli import run_migrations
from perfatlas.core.db import get_engine, session_factory
from tests.conftest import skip_unless_able
from tests.factories import run_body

PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"))), None)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_postgres(*argv: str) -> None:
    subprocess.run(["runuser", "-u", "postgres", "--", *argv], check=True, capture_output=True)


@contextlib.contextmanager
def private_postgres() -> Iterator[tuple[str, Path, int]]:
    """A PostgreSQL cluster of this test alone (stopping the shared one would stop every other
    test): (its admin URL, its data directory, its port)."""
    if PG_BIN is None or os.geteuid() != 0 or shutil.which("runuser") is None:
        skip_unless_able("a private PostgreSQL needs its binaries and root (runuser postgres)")
    assert PG_BIN is not None
    # Not under pytest's tmp_path, whose parents the postgres user may not enter.
    data = Path(tempfile.mkdtemp(prefix="perfatlas-pg-"))
    data.chmod(0o700)
    shutil.chown(data, "postgres")
    port = _free_port()
    _as_postgres(str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
    start = [str(PG_BIN / "pg_ctl"), "-D", str(data), "-w", "-l", str(data / "log"),
             "-o", f"-p {port} -k {data} -c listen_addresses=127.0.0.1", "start"]  # fmt: skip
    _as_postgres(*start)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}", data, port
    finally:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", str(PG_BIN / "pg_ctl"), "-D", str(data),
             "-m", "immediate", "stop"], capture_output=True,
        )  # fmt: skip
        shutil.rmtree(data, ignore_errors=True)


def test_every_route_answers_503_while_the_database_is_down(tmp_path: Path) -> None:
    with private_postgres() as (server, data, pg_port):
        url = f"{server}/postgres"
        run_migrations(url)
        with session_factory(get_engine(url))() as session:
            token = create_token(session, name="down", scope="admin")[1]
        get_engine(url).dispose()
        port = _free_port()
        env = {
            **os.environ, "PERFATLAS_DATABASE_URL": url, "PERFATLAS_PORT": str(port),
            "PERFATLAS_BROKER_URL": "memory://", "PERFATLAS_DETECT_ON_INGEST": "false",
        }  # fmt: skip
        log_path = tmp_path / "server.log"
        with log_path.open("w") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "perfatlas", "serve", "--no-migrate"], env=env,
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        base = f"http://127.0.0.1:{port}/api/v1"
        headers = {"Authorization": f"Bearer {token}"}
        try:
            _wait_for(lambda: _status(f"{base}/health") == 200, proc, log_path)
            kept = run_body()
            assert httpx.post(f"{base}/runs", json=kept, headers=headers).status_code == 201

            stop = [str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]  # type: ignore[operator]
            _as_postgres(*stop)
            new = run_body()
            answers = {
                "list runs": httpx.get(f"{base}/runs", headers=headers),
                "a run": httpx.get(f"{base}/runs/{kept['uuid']}", headers=headers),
                "upload": httpx.post(f"{base}/runs", json=new, headers=headers),
                "batch": httpx.post(f"{base}/runs/batch", json={"runs": [new]}, headers=headers),
                "explore": httpx.get(f"{base}/explore", headers=headers, params={
                    "workload": "smallfile", "metric": "create.ops_per_s", "x": "agent"}),
                "agents": httpx.get(f"{base}/agents", headers=headers),
                "health": httpx.get(f"{base}/health"),
                "ready": httpx.get(f"{base}/ready"),
            }  # fmt: skip
            for name, answer in answers.items():
                assert answer.status_code == 503, (name, answer.status_code, answer.text)
                assert int(answer.headers["retry-after"]) > 0, name
            assert answers["upload"].json()["code"] == "unavailable"
            assert "retry" in answers["upload"].json()["detail"]
            health = answers["health"].json()
            assert health["status"] == "down" and health["down"] == ["database"]
            assert health["since"]
            (database,) = [p for p in answers["ready"].json()["parts"] if p["name"] == "database"]
            assert not database["ok"] and database["since"] == health["since"]

            start = [str(PG_BIN / "pg_ctl"), "-D", str(data), "-w", "-l", str(data / "log"),  # type: ignore[operator]
                     "-o", f"-p {pg_port} -k {data} -c listen_addresses=127.0.0.1", "start"]  # fmt: skip
            _as_postgres(*start)
            _wait_for(lambda: _status(f"{base}/health") == 200, proc, log_path)
            # The refused upload was not half-stored: sent again, it is created once.
            assert httpx.post(f"{base}/runs", json=new, headers=headers).status_code == 201
            assert httpx.post(f"{base}/runs", json=new, headers=headers).status_code == 200
            listed = httpx.get(f"{base}/runs", headers=headers).json()["items"]
            assert sorted(r["uuid"] for r in listed) == sorted([kept["uuid"], new["uuid"]])
        finally:
            proc.terminate()
            proc.wait(timeout=20)
        logged = log_path.read_text()
        assert "database unavailable on POST /api/v1/runs" in logged
        assert "Traceback" not in logged, logged[-3000:]


def _status(url: str) -> int | None:
    try:
        return httpx.get(url, timeout=5).status_code
    except httpx.TransportError:
        return None


def _wait_for(check, proc: subprocess.Popen[bytes], log: Path, seconds: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not check():
        assert proc.poll() is None, log.read_text()[-3000:]
        if time.monotonic() > deadline:
            pytest.fail(f"not reached in {seconds} s; server log:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
