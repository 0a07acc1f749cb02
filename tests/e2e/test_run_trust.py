"""The run page says first why its numbers need care, and folds the raw record away."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import httpx

from tests.conftest import LiveServer
from tests.e2e.conftest import shot
from tests.e2e.test_ui import login
from tests.factories import result, run_body


def test_run_page_shows_trust_notes_and_durability(page: Any, ui_server: LiveServer) -> None:
    started = dt.datetime(2026, 10, 20, 9, 0, tzinfo=dt.UTC)
    busy_rep = {"warmup": False, "before": {"loadavg_1m": 7.5}, "after": {"loadavg_1m": 8.0}}
    body = run_body(
        uuid=str(uuid.uuid4()),
        workload="trust_smallfile",
        agent="lab-trust",
        target="/mnt/tmpfs",
        started_at=started.isoformat(),
        fsync_policy="file",
        environment={"hostname": "lab-trust", "kernel": "6.1", "fs_type": "tmpfs", "cores": 2},
        meta={"short_phases": ["create"], "reps": [busy_rep] * 3, "summary": {"x": 1}},
        results=[
            result("create.ops_per_s", [9000.0, 9100.0, 8900.0]),
            result("create.seconds", [0.11, 0.1, 0.12], unit="s"),
            result("delete.ops_per_s", [20000.0, 21000.0]),
        ],
    )
    response = httpx.post(
        f"{ui_server.url}/api/v1/runs",
        json=body,
        headers={"Authorization": f"Bearer {ui_server.upload_token}"},
    )
    assert response.status_code == 201, response.text

    login(page, ui_server)
    page.goto(f"{ui_server.url}/runs/{body['uuid']}")
    notes = page.get_by_test_id("trust-notes")
    notes.wait_for()
    text = notes.inner_text()
    assert "short phase" in text and "create.ops_per_s, create.seconds" in text
    assert "busy machine" in text and "every metric" in text
    assert "few repetitions" in text and "delete.ops_per_s" in text
    # The marks sit on the metrics they concern, with the reason on hover.
    table = page.get_by_test_id("results-table")
    create_row = table.locator("tr", has_text="create.seconds")
    assert create_row.locator(".trust-mark").all_inner_texts() == ["short phase", "busy machine"]
    title = create_row.locator(".trust-mark").first.get_attribute("title") or ""
    assert "under 0.5 s" in title
    # Memory media: the fsync per file reached no stable storage, and the page says so.
    facts = page.locator(".card", has_text="Durability and cache").inner_text()
    assert "on memory" in facts and "fsync file" in facts
    # The raw meta is folded: its repetition snapshots are not on the page until asked for.
    raw = page.get_by_test_id("raw-meta")
    assert raw.get_attribute("open") is None
    reps = raw.locator("dt", has_text="reps")
    assert reps.count() == 1 and not reps.is_visible()
    shot(page, "32-run-trust")
    raw.locator("summary").click()
    reps.wait_for()
