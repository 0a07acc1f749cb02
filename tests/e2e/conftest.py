"""Browser fixtures: Debian's Chromium driven by Playwright against the session's live server."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO, LiveServer, skip_unless_able
from tests.e2e.seed import Seeded, seed

CHROMIUM = os.environ.get("PERFATLAS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# These machines reach no network: nothing may phone home, and there is no GPU or sandbox.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
VIEWPORT = {"width": 1280, "height": 860}


@pytest.fixture(scope="session")
def ui_server(live_server: LiveServer) -> LiveServer:
    if not (REPO / "frontend" / "dist" / "index.html").is_file():
        pytest.fail("the web UI is not built: run `make ui` (make test builds it first)")
    return live_server


@pytest.fixture(scope="session")
def seeded(ui_server: LiveServer) -> Seeded:
    return seed(ui_server.url, ui_server.upload_token)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    import playwright.sync_api as playwright_api  # in requirements/dev.txt

    if not Path(CHROMIUM).is_file():
        skip_unless_able(
            f"no Chromium at {CHROMIUM}: apt-get install chromium (make test does it as root)"
        )
    SCREENSHOTS.mkdir(exist_ok=True)
    profile = tempfile.mkdtemp(prefix="perfatlas-chromium-")
    with playwright_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
            viewport=VIEWPORT, locale="en-US", timezone_id="UTC",
        )  # fmt: skip
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    page = browser.new_page()  # type: ignore[attr-defined]
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    page.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def shot(page: object, name: str, full_page: bool = True) -> None:
    """Save a screenshot under tests/e2e/screenshots/ (looked at by a person, not compared)."""
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)  # type: ignore[attr-defined]


def use_token(page: object, token: str) -> None:
    """The API token the UI sends, for every page this page opens (stored as the Token dialog
    stores it)."""
    page.add_init_script(  # type: ignore[attr-defined]
        f"localStorage.setItem('perfatlas.token', {json.dumps(token)})"
    )


def upload_runs(server: LiveServer, runs: list[dict[str, Any]], timeout: float = 60) -> None:
    """Upload run bodies with the server's upload token, as one batch; fails on any error."""
    httpx.post(
        f"{server.url}/api/v1/runs/batch", json={"runs": runs},
        headers={"Authorization": f"Bearer {server.upload_token}"}, timeout=timeout,
    ).raise_for_status()  # fmt: skip
