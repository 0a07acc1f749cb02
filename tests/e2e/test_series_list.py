"""The Series and Runs pages at more than one page holds: they say how many match and which are
shown, page through all of them by their cursor, go back to the first page, and a filter starts
again from the first page. The oracle is the series and runs the uploaded bodies make."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest

from tests.conftest import LiveServer
from tests.e2e.conftest import shot, upload_runs, use_token
from tests.factories import BASE_TIME, result, run_body

WORKLOAD = "paged_series"
# Two agents, 130 series: more than the page's 100. The second agent's 60 series have 60 runs:
# more than the Runs page's 50.
METRICS = {"pager-a": 70, "pager-b": 60}
RUNS = {"pager-a": 1, "pager-b": 60}


def _rows(page: Any) -> list[tuple[str, str]]:
    """The (agent, metric) of each row of the table shown."""
    page.get_by_test_id("series-table").wait_for()
    return [
        (row.locator("td").nth(2).inner_text(), row.locator("td").nth(1).inner_text())
        for row in page.get_by_test_id("series-table").locator("tbody tr").all()
    ]


@pytest.fixture(scope="module")
def made(ui_server: LiveServer) -> set[tuple[str, str]]:
    """Uploads the runs once a server; the (agent, metric) of each series they make."""
    runs = [
        run_body(
            workload=WORKLOAD, agent=agent, environment={"hostname": agent},
            started_at=(BASE_TIME + dt.timedelta(hours=i)).isoformat(),
            results=[result(f"m{m:03d}.ops_per_s", [100.0 + m]) for m in range(count)],
        )
        for agent, count in METRICS.items()
        for i in range(RUNS[agent])
    ]  # fmt: skip
    upload_runs(ui_server, runs)
    return {(r["agent"], res["metric"]) for r in runs for res in r["results"]}


def test_series_list_pages_through_every_series(
    page: Any, ui_server: LiveServer, made: set[tuple[str, str]]
) -> None:
    use_token(page, ui_server.read_token)

    # In the order they first appeared (the list opens on the newest: test_series_versions.py).
    page.goto(f"{ui_server.url}/series?workload={WORKLOAD}&sort=id")
    count = page.get_by_test_id("series-count")
    count.filter(has_text="of 130").wait_for()
    assert count.inner_text() == (
        "Series 1–100 of 130 that match, in the order they first appeared."
    )
    first = _rows(page)
    assert len(first) == 100
    shot(page, "series-list-paged")

    page.get_by_role("button", name="Next →").click()
    page.wait_for_url(re.compile(r"cursor=\d+"))
    count.filter(has_text="101–130").wait_for()
    second = _rows(page)
    assert len(second) == 30
    # Every series once, over the two pages.
    assert set(first) | set(second) == made and len(first) + len(second) == len(made)
    assert page.get_by_role("button", name="Next →").count() == 0

    page.get_by_role("button", name="← First page").click()
    count.filter(has_text="1–100").wait_for()
    assert _rows(page) == first
    page.go_back()  # the second page again, from its address
    count.filter(has_text="101–130").wait_for()
    assert _rows(page) == second

    # A filter starts from the first page: one agent's 60 series fit on one.
    agent = page.get_by_label("agent")
    agent.fill("pager-b")
    agent.press("Enter")
    count.filter(has_text="60 series match").wait_for()
    assert "cursor" not in page.url
    assert sorted(_rows(page)) == sorted(k for k in made if k[0] == "pager-b")
    assert page.locator(".pager").count() == 0


def test_runs_list_says_how_many_match(
    page: Any, ui_server: LiveServer, made: set[tuple[str, str]]
) -> None:
    # An agent's 60 runs over two pages of 50, counted; with a label filter, which the server
    # does not count, the range alone.
    use_token(page, ui_server.read_token)
    page.goto(f"{ui_server.url}/runs?agent=pager-b")
    count = page.get_by_test_id("runs-count")
    count.filter(has_text="of 60").wait_for()
    assert count.inner_text() == "Runs 1–50 of 60 that match, newest first."
    shot(page, "runs-list-counted", full_page=False)
    page.get_by_role("link", name="Older →").click()
    count.filter(has_text="51–60 of 60").wait_for()
    assert page.get_by_test_id("runs-table").locator("tbody tr").count() == 10
    page.get_by_role("link", name="← Newest").click()
    count.filter(has_text="1–50 of 60").wait_for()
    page.goto(f"{ui_server.url}/runs?agent=pager-a")
    count.filter(has_text="1 run matches").wait_for()
    page.goto(f"{ui_server.url}/runs?agent=pager-b&label=mode:connected")
    count.filter(has_text="Runs 1–50 that match").wait_for()


def test_an_older_window_marks_its_own_change_points(page: Any, ui_server: LiveServer) -> None:
    # 1,100 runs a minute apart with a step down at run 50: the default window (all of them)
    # and the window before the newest 1,000 (runs 0 to 100) mark the step, at run 50's time,
    # with its run; the newest 1,000 hold no change.
    workload, count, step = "older_window", 1100, 50
    t0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    runs = [
        run_body(
            workload=workload, agent="window-host", environment={"hostname": "window-host"},
            started_at=(t0 + dt.timedelta(minutes=i)).isoformat(), finished_at=None,
            results=[result("create.ops_per_s", [v * 0.99, v, v * 1.01])],
        )
        for i in range(count)
        for v in [1000.0 if i < step else 700.0]
    ]  # fmt: skip
    for start in range(0, count, 550):
        upload_runs(ui_server, runs[start : start + 550], timeout=120)
    use_token(page, ui_server.read_token)
    page.goto(f"{ui_server.url}/series?workload={workload}")
    page.get_by_role("link", name="create.ops_per_s").click()
    # The whole history fits the default window (10,000): its change points are looked for
    # over all of it, and the step is marked.
    # The change points' flags: annotations that take clicks, named by what a click opens.
    flags = (
        "(document.querySelector('.js-plotly-plot')?.layout?.annotations || [])"
        ".filter(a => a.captureevents)"
    )
    marked = f"() => {flags}.length > 0 && {flags}.map(a => a.name)"
    assert page.wait_for_function(marked).json_value() == [runs[step]["uuid"]]
    # Windows of 1,000: the newest hold no change (the answer awaited, so that none drawn
    # means none).
    with page.expect_response(
        lambda r: "/change-points" in r.url and "points=1000" in r.url
    ) as newest:
        page.get_by_label("points shown").select_option("1000")
    assert newest.value.json()["change_points"] == []
    summary = page.get_by_test_id("series-summary")
    summary.filter(has_text="(the newest 1,000 shown)").wait_for()
    page.wait_for_function(f"() => {flags}.length === 0")

    page.get_by_role("button", name="← Older").click()
    summary.filter(has_text="101 shown, the oldest").wait_for()
    page.wait_for_function(f"() => {flags}.length > 0")
    older = page.evaluate(f"() => {flags}")
    assert [a["name"] for a in older] == [runs[step]["uuid"]]
    assert dt.datetime.fromisoformat(older[0]["x"]) == t0 + dt.timedelta(minutes=step)
    shot(page, "series-older-window-change-point", full_page=False)
