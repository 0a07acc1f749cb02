"""A reference run's page says first that its numbers are published figures, and from where."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import LiveServer
from tests.e2e.conftest import shot
from tests.e2e.test_ui import login

TABLE = (
    Path(__file__).resolve().parents[2]
    / "backend" / "perfatlas" / "references" / "tables" / "seed000_coda_nfs_xfs.json"
)  # fmt: skip


def test_reference_run_page_names_its_source(page: Any, ui_server: LiveServer) -> None:
    table = json.loads(TABLE.read_text())
    table["agent"] = "reference-e2e"  # its own agent: other tests' runs stay apart
    response = httpx.post(
        f"{ui_server.url}/api/v1/references",
        json=table,
        headers={"Authorization": f"Bearer {ui_server.upload_token}"},
    )
    assert response.status_code == 200, response.text
    nfs = response.json()["runs"][1]["uuid"]

    login(page, ui_server)
    page.goto(f"{ui_server.url}/runs/{nfs}")
    banner = page.get_by_test_id("reference-banner")
    banner.wait_for()
    text = banner.inner_text()
    assert "Reference figures from codawiki.cse.chalmers.se" in text
    assert "(column “NFS”)" in text and "1000 small PHP files" in text
    link = banner.locator("a")
    assert link.get_attribute("href") == table["source_url"]
    # The trust notes name the flag too, and the results carry its mark.
    notes = page.get_by_test_id("trust-notes").inner_text()
    assert "reference figures" in notes and "never used by detection" in notes
    row = page.get_by_test_id("results-table").locator("tr", has_text="create.seconds").first
    assert "reference figures" in row.locator(".trust-mark").all_inner_texts()
    assert "2.89" in row.inner_text()  # 2.891 s, shown to 3 significant digits
    shot(page, "33-reference-run")

    page.goto(f"{ui_server.url}/runs?agent=reference-e2e")
    page.get_by_text("reference", exact=True).first.wait_for()
