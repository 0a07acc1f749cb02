"""The server the docs' commands run against, started as `make up` starts it: a SQLite database
under a data folder of its own, `perfatlas migrate`, an admin token (`make-up`), the default
reports, then `perfatlas serve --no-migrate --with-worker` (the first run off: the tour runs a
quick study itself). The commands run in a folder of their own that links the repository's
`.venv`, `tests`, `backend` and `agent`, so that the docs' relative paths resolve and the files
they write stay out of the repository."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.docs.blocks import REPO

# checks.py asserts what blocks did: its failures should say which values differed.
pytest.register_assert_rewrite("tests.docs.checks")

# make up's commands, after `install` and `ui-maybe`; test_docs.py checks each is in its recipe.
MAKE_UP = (
    ("migrate",),
    ("token", "create", "--scope", "admin", "--name", "make-up", "--replace", "--quiet"),
    ("report", "defaults"),
)
SERVE = ("serve", "--no-migrate", "--with-worker", "--no-first-run")
PATIENCE_S = 300.0  # a server and its worker starting on a machine whose cores are all busy


@dataclass
class DocsServer:
    url: str
    port: int
    token: str
    root: Path
    cwd: Path
    env: dict[str, str]
    background: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def get(self, path: str, **params: object) -> httpx.Response:
        return httpx.get(
            f"{self.url}/api/v1{path}", params=params,  # type: ignore[arg-type]
            headers={"Authorization": f"Bearer {self.token}"}, timeout=60,
        )  # fmt: skip


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(what: str, probe, timeout: float = PATIENCE_S):  # type: ignore[no-untyped-def]
    """Until probe() answers something truthy (a state), or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.2)


def _env(root: Path, data: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    home = root / "home"
    home.mkdir()
    env.update(
        PATH=f"{REPO / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=f"{REPO / 'backend'}{os.pathsep}{REPO / 'agent' / 'src'}",
        HOME=str(home),
        PERFATLAS_DATA_DIR=str(data),
        PERFATLAS_HOST="127.0.0.1",
        PERFATLAS_PORT=str(port),
        PERFATLAS_AGENT_CONFIG_DIR=str(root / "agent-config"),
        PERFATLAS_AGENT_SPOOL=str(root / "spool"),
        PERFATLAS_AGENT_DAEMON_SPOOL=str(root / "daemon-spool"),
        PERFATLAS_AGENT_FALLBACK_SPOOL=str(root / "fallback-spool"),
    )
    return env


@pytest.fixture(scope="session")
def docs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocsServer]:
    root = tmp_path_factory.mktemp("docs")
    data = root / "data"
    cwd = root / "cwd"
    cwd.mkdir()
    for name in (".venv", "tests", "backend", "agent"):
        (cwd / name).symlink_to(REPO / name)
    port = _free_port()
    env = _env(root, data, port)

    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "perfatlas", *args], env=env, cwd=cwd,
            capture_output=True, text=True, timeout=PATIENCE_S,
        )  # fmt: skip
        assert done.returncode == 0, f"perfatlas {' '.join(args)}: {done.stderr}"
        return done.stdout

    outputs = [cli(*command) for command in MAKE_UP]
    token = outputs[1].strip()
    assert token.startswith("pa_"), outputs[1]
    env["TOKEN"] = token
    log = (root / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "perfatlas", *SERVE], env=env, cwd=cwd, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    worker_log = data / "worker.log"

    def up() -> bool:
        assert proc.poll() is None, f"perfatlas serve exited; see {root / 'serve.log'}"
        try:
            answered = httpx.get(f"{url}/api/v1/health", timeout=5).status_code == 200
        except httpx.TransportError:
            return False
        return (
            answered and worker_log.exists() and "ready." in worker_log.read_text(errors="replace")
        )

    server = DocsServer(url=url, port=port, token=token, root=root, cwd=cwd, env=env)
    try:
        wait_for("the server and its worker to start", up)
        yield server
    finally:
        for bg in [*server.background, proc]:
            stop(bg)
        log.close()


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then whatever is left of its process group (it was started in a session of its
    own: the server's worker, a daemon's command)."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
