"""Every code block of README.md and docs/*.md, run as a reader would, against a server started
as `make up` starts it (conftest.py): shell blocks with bash in the pages' order (the server's
address and the token substituted for the ones the docs show), JSON blocks sent to the route
they are the body of. Each must succeed (the docs' curl commands use -f: a non-2xx answer is a
failure), and where a block stores or reads something its values are checked (checks.py)."""

from __future__ import annotations

import json
import re
import subprocess
import time
import traceback
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.docs import checks
from tests.docs.blocks import BACKGROUND, Block, every_block, listed
from tests.docs.conftest import DocsServer

SHELLS = ("sh", "bash", "shell")
ADDRESS = re.compile(r"\b(?:127\.0\.0\.1|localhost|perfatlas):8000\b")
TOKEN_LINE = re.compile(r"^export TOKEN=pa_\.\.\..*\n", re.M)

# Slow (a server, the worker, fio and a study run for minutes): not in `make test-fast`.
pytestmark = [pytest.mark.timeout(1800), pytest.mark.slow]


def script(block: Block, server: DocsServer) -> str:
    """The block as it runs here: this server's address, the `make up` token (already in
    $TOKEN) where the docs write `pa_...`."""
    text = TOKEN_LINE.sub("", block.text)
    text = ADDRESS.sub(f"127.0.0.1:{server.port}", text)
    return text.replace("pa_...", server.token)


def run_shell(block: Block, server: DocsServer) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script(block, server)], cwd=server.cwd,
        env=server.env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def start_background(block: Block, server: DocsServer) -> None:
    log = (server.root / f"background-{len(server.background)}.log").open("wb")
    proc = subprocess.Popen(
        ["bash", "-c", "exec " + script(block, server)], cwd=server.cwd, env=server.env,
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    server.background.append(proc)


def json_route(body: dict[str, Any]) -> tuple[str, int]:
    """The route a JSON example is the body of, by its fields, and the status it answers."""
    if "source_url" in body and "columns" in body:
        return "/references", 200
    if "slug" in body and "blocks" in body:
        return "/reports", 201
    raise AssertionError(f"a JSON example of no known route (fields {sorted(body)})")


def post_json(block: Block, server: DocsServer) -> None:
    body = json.loads(block.text)
    path, status = json_route(body)
    answer = httpx.post(
        f"{server.url}/api/v1{path}", json=body, timeout=60,
        headers={"Authorization": f"Bearer {server.token}"},
    )  # fmt: skip
    assert answer.status_code == status, f"POST {path}: {answer.status_code} {answer.text}"
    checks.after_json(path, body, answer.json(), server)


def test_every_block_runs_as_documented(docs_server: DocsServer) -> None:
    failures: list[str] = []
    ran = 0

    seconds: dict[str, float] = {}

    def attempt(block: Block, step: Callable[[], None]) -> None:
        start = time.monotonic()
        try:
            step()
        except (Exception, pytest.fail.Exception):  # each block's failure, all reported
            failures.append(f"{block}:\n{traceback.format_exc(limit=-2)}")
        finally:
            seconds[str(block)] = time.monotonic() - start

    for block in every_block():
        if listed(block):
            continue
        if block.lang == "json":
            attempt(block, lambda b=block: post_json(b, docs_server))
            ran += 1
            continue
        assert block.lang in SHELLS, f"{block}: a ```{block.lang} block neither run nor listed"
        if block.first.startswith(BACKGROUND):
            start_background(block, docs_server)
            ran += 1
            continue

        def shell(b: Block = block) -> None:
            checks.before(b, docs_server)
            done = run_shell(b, docs_server)
            assert done.returncode == 0, (
                f"exit {done.returncode}\n--- stdout\n{done.stdout[-3000:]}\n"
                f"--- stderr\n{done.stderr[-3000:]}"
            )
            checks.after(b, done.stdout, docs_server)

        attempt(block, shell)
        ran += 1
    slowest = sorted(seconds.items(), key=lambda kv: -kv[1])[:5]
    print(f"{ran} blocks run; slowest:", *(f"{s:6.1f} s  {b}" for b, s in slowest), sep="\n")
    assert not failures, f"{len(failures)} of {ran} blocks failed:\n\n" + "\n\n".join(failures)
    assert ran >= 30, ran  # every page's blocks were found
