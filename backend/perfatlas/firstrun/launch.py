"""Start the first run's helper as a child of `perfatlas serve --first-run`: an admin token of
its own (`first-run`, the previous one revoked), its folder and log under the data folder.
The helper gets SIGTERM when the server goes, however it goes, and then stops its daemon and
undoes its mounts; on a clean stop the server waits for that."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from perfatlas.core.config import Settings

TOKEN_NAME = "first-run"


def start(settings: Settings, host: str, port: int, say: Callable[[str], None],
          preexec_fn: Callable[[], None]) -> subprocess.Popen[bytes] | None:  # fmt: skip
    """The helper's process, or None (turned off, or the agent not installed)."""
    if not settings.first_run:
        return None
    if importlib.util.find_spec("perfatlas_agent") is None:
        say("first run: skipped, the agent (perfatlas-agent) is not installed here")
        return None
    from perfatlas.auth.service import create_token, revoke_by_name
    from perfatlas.core.db import get_engine, session_factory

    with session_factory(get_engine(settings.effective_database_url))() as session:
        revoke_by_name(session, name=TOKEN_NAME)
        _, token = create_token(session, name=TOKEN_NAME, scope="admin")
    local = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    server = f"http://{'[' + local + ']' if ':' in local else local}:{port}"
    root = (settings.data_dir / "firstrun").resolve()
    root.mkdir(parents=True, exist_ok=True)
    log_path = settings.data_dir / "firstrun.log"
    env: dict[str, Any] = {**os.environ, "PERFATLAS_FIRST_RUN_TOKEN": token}
    with log_path.open("ab") as log:
        child = subprocess.Popen(
            [sys.executable, "-m", "perfatlas_agent", "first-run", "--server", server,
             "--dir", str(root)],
            stdout=log, stderr=subprocess.STDOUT, env=env, preexec_fn=preexec_fn,
        )  # fmt: skip
    say(f"first run: the quick studies run on this machine in the background (pid {child.pid}; "
        f"log {log_path}; progress on the Jobs page; PERFATLAS_FIRST_RUN=0 turns it off)")  # fmt: skip
    return child


def stop(child: subprocess.Popen[bytes] | None, say: Callable[[str], None]) -> None:
    """SIGTERM, and wait for its cleanup (the daemon's job abandoned, the mounts undone)."""
    if child is None or child.poll() is not None:
        return
    say("first run: stopping its daemon and undoing its mounts (up to a minute)...")
    child.terminate()
    try:
        child.wait(timeout=150)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
