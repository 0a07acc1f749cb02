"""The Runs page's filters on values: a run's label leads to the runs with that label, a label's
filter is taken away by its ×, and the status narrows to the failed runs. The oracle is the
runs the uploaded bodies make, over two agents and two versions (the older version's runs all
older than the newer's: its runs come after fifty others in the list's order)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from tests.conftest import LiveServer
from tests.e2e.conftest import shot, upload_runs, use_token
from tests.factories import BASE_TIME, run_body

WORKLOAD = "filtered_runs"


def _shown(page: Any) -> list[tuple[str, str, str]]:
    """(run, labels, status) of each row of the runs table."""
    rows = page.get_by_test_id("runs-table").locator("tbody tr").all()
    return [
        (row.locator("td").nth(1).inner_text(), row.locator("td").nth(7).inner_text(),
         row.locator("td").nth(9).inner_text())
        for row in rows
    ]  # fmt: skip


def test_runs_filtered_on_a_label_and_a_status(page: Any, ui_server: LiveServer) -> None:
    runs = [
        run_body(
            workload=WORKLOAD, agent=f"filter-{'ab'[i % 2]}",
            environment={"hostname": f"filter-{'ab'[i % 2]}"},
            started_at=(BASE_TIME - dt.timedelta(days=30) + dt.timedelta(hours=i)).isoformat(),
            labels={"fs_version": "5.9" if i < 20 else "6.1", "mode": "connected"},
            status="failed" if i % 9 == 4 else "ok",
        )
        for i in range(80)
    ]  # fmt: skip
    upload_runs(ui_server, runs)
    newest = sorted(runs, key=lambda r: r["started_at"], reverse=True)

    def expect(*, version: str | None = None, status: str | None = None) -> list[str]:
        return [r["uuid"][:8] for r in newest
                if (version is None or r["labels"]["fs_version"] == version)
                and (status is None or r["status"] == status)]  # fmt: skip

    use_token(page, ui_server.read_token)
    page.goto(f"{ui_server.url}/runs?workload={WORKLOAD}")
    count = page.get_by_test_id("runs-count")
    count.filter(has_text="1–50 of 80").wait_for()
    assert [r[0] for r in _shown(page)] == expect()[:50]

    # The newest run's version label, a link: the runs with that label, the filter shown.
    page.get_by_test_id("runs-table").locator("tbody tr").first.get_by_role(
        "link", name="fs_version=6.1"
    ).click()
    page.get_by_test_id("label-filter").filter(has_text="fs_version:6.1").wait_for()
    count.filter(has_text="Runs 1–50 that match").wait_for()
    assert [r[0] for r in _shown(page)] == expect(version="6.1")[:50]
    assert "workload=filtered_runs" in page.url and "label=fs_version%3A6.1" in page.url

    # The older version, whose runs come after fifty newer ones, and its failed runs.
    page.goto(f"{ui_server.url}/runs?workload={WORKLOAD}&label=fs_version:5.9")
    count.filter(has_text="Runs 1–20 that match").wait_for()
    assert [r[0] for r in _shown(page)] == expect(version="5.9")
    page.get_by_label("status").select_option("failed")
    failed = expect(version="5.9", status="failed")
    count.filter(has_text=f"Runs 1–{len(failed)} that match").wait_for()
    shown = _shown(page)
    assert [r[0] for r in shown] == failed and len(failed) >= 2
    assert {r[2] for r in shown} == {"failed"} and all("fs_version=5.9" in r[1] for r in shown)
    shot(page, "runs-filtered-label-status", full_page=False)

    # The label's × takes its filter away and keeps the status.
    page.get_by_role("button", name="remove label fs_version:5.9").click()
    everyone_failed = expect(status="failed")
    count.filter(has_text=f"Runs 1–{len(everyone_failed)} that match").wait_for()
    assert [r[0] for r in _shown(page)] == everyone_failed
    assert page.get_by_test_id("label-filter").count() == 0 and "status=failed" in page.url
