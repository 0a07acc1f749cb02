"""The series pages' versions and orders in Chromium: a 10,000-point history whose fs_version
changes every 2,500 runs and whose kernel changes once is drawn once (one plotly draw, counted
from the page's marks and plotly's own afterplot event), marks each version change on the time
axis with the new version's name, and a point's hover names its versions; the Series list opens
on the newest series with reference-only series last, marks open alerts, and sorts by them."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.alerts.models import Alert
from perfatlas.core.db import get_engine
from perfatlas.runs.models import Run, Series
from tests.conftest import REPO, LiveServer, serve
from tests.e2e.conftest import shot, upload_runs, use_token
from tests.e2e.test_dense_plots import _point_on_screen
from tests.factories import run_body

WORKLOAD = "versions_history"
METRIC = "create.ops_per_s"
POINTS = 10_000
T0 = dt.datetime(2025, 6, 1, tzinfo=dt.UTC)


def _fs_version(i: int) -> str:
    return f"2.{i // 2500}.0"


def _kernel(i: int) -> str:
    return "6.1.0" if i < 5000 else "6.8.0"


@pytest.fixture
def versions_server(tmp_path: Path) -> Iterator[LiveServer]:
    if not (REPO / "frontend" / "dist" / "index.html").is_file():
        pytest.fail("the web UI is not built: run `make ui` (make test builds it first)")
    with serve("versions", tmp_path) as server:
        yield server


def _history() -> list[dict[str, Any]]:
    return [
        run_body(
            uuid=str(uuid.UUID(int=i + 1, version=4)), workload=WORKLOAD, agent="night-a",
            labels={"fs_version": _fs_version(i)}, finished_at=None,
            started_at=(T0 + dt.timedelta(minutes=10 * i)).isoformat(),
            environment={"hostname": "night-a", "kernel": _kernel(i)},
            results=[{"metric": METRIC, "unit": "ops/s",
                      "samples": [1000.0 + i % 50, 1010.0 + i % 50, 1020.0 + i % 50]}],
        )
        for i in range(POINTS)
    ]  # fmt: skip


DRAWS = """() => ({
  starts: performance.getEntriesByName('perfatlas:plot-start').length,
  drawn: performance.getEntriesByName('perfatlas:plot-drawn').length,
  afterplot: window.__afterplots,
})"""
# plotly's own count of draws: every draw of the plot emits plotly_afterplot.
COUNT_AFTERPLOT = """
window.__afterplots = 0;
new MutationObserver(() => {
  const gd = document.querySelector('.js-plotly-plot');
  if (gd && !gd.__counted && gd.on) {
    gd.__counted = true;
    gd.on('plotly_afterplot', () => { window.__afterplots += 1; });
  }
}).observe(document, { childList: true, subtree: true, attributes: true });
"""


def test_versions_are_marked_hovered_and_the_plot_drawn_once(
    page: Any, versions_server: LiveServer
) -> None:
    server = versions_server
    runs = _history()
    for start in range(0, POINTS, 1000):
        upload_runs(server, runs[start : start + 1000], timeout=180)
    headers = {"Authorization": f"Bearer {server.read_token}"}
    (series,) = httpx.get(
        f"{server.url}/api/v1/series", params={"workload": WORKLOAD}, headers=headers
    ).json()["items"]
    use_token(page, server.read_token)
    page.add_init_script(COUNT_AFTERPLOT)

    def slow_detector(route: Any) -> None:
        # The change points answer after plotly has loaded and could draw the points, as a
        # detector over a long series on a busy server does: drawn once all the same.
        time.sleep(3)
        route.continue_()

    page.route("**/change-points*", slow_detector)
    with page.expect_response(lambda r: "/change-points" in r.url):
        page.goto(f"{server.url}/series/{series['id']}")
    page.wait_for_selector("[data-testid=plot][data-drawn='1']", timeout=60_000)
    page.wait_for_load_state("networkidle")
    # Every draw started has ended, and there was one, of the 10,000 points with their marks.
    page.wait_for_function(f"() => {{ const d = ({DRAWS})(); return d.drawn === d.starts; }}")
    assert page.evaluate(DRAWS) == {"starts": 1, "drawn": 1, "afterplot": 1}
    median = page.evaluate(
        "() => { const t = document.querySelector('.js-plotly-plot').data"
        ".find(t => t.name === 'median'); return [t.x.length, t.text[0], t.text[9999]]; }"
    )
    assert median == [POINTS, "fs_version 2.0.0 · kernel 6.1.0", "fs_version 2.3.0 · kernel 6.8.0"]
    # A mark at each change of version, at its first run's time, named by what changed.
    layout = page.evaluate(
        "() => { const l = document.querySelector('.js-plotly-plot').layout;"
        " return [l.shapes.filter(s => s.name?.startsWith('version:')).map(s => s.x0),"
        " (l.annotations || []).filter(a => a.text).map(a => [a.x, a.text])]; }"
    )
    changes = {2500: "fs_version 2.1.0", 5000: "fs_version 2.2.0 · kernel 6.8.0",
               7500: "fs_version 2.3.0"}  # fmt: skip
    want_x = [runs[i]["started_at"] for i in changes]
    assert [dt.datetime.fromisoformat(x) for x in layout[0]] == [
        dt.datetime.fromisoformat(x) for x in want_x
    ]
    assert [text for _, text in layout[1]] == list(changes.values())
    # The names are drawn on the page.
    for text in changes.values():
        assert page.locator(".annotation-text", has_text=text).count() == 1, text
    # A point's hover names its versions (point 6,000: fs_version 2.2.0 on kernel 6.8.0).
    x, y = _point_on_screen(page, 6000, "median")
    page.mouse.move(x, y)
    hover = page.locator(".hoverlayer .hovertext").first
    hover.wait_for()
    text = hover.text_content() or ""
    assert "fs_version 2.2.0" in text and "kernel 6.8.0" in text, text
    shot(page, "series-versions-hover", full_page=False)
    # Still one draw after the hover.
    assert page.evaluate(DRAWS)["starts"] == 1
    assert _names_apart(page) == 3

    # On a phone the names are placed again for the plot's width (a relayout, the points not
    # drawn again by the page): none over another, those that fit nowhere left out (the points'
    # hover names their versions), each within the page.
    overlays = page.evaluate(OVERLAYS)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function(f"() => ({OVERLAYS})() > {overlays}")
    assert 1 <= _names_apart(page) < 3
    assert page.evaluate(DRAWS)["starts"] == 1
    shot(page, "series-versions-phone", full_page=False)
    # And drawn so from the start at that width.
    page.reload()
    page.wait_for_selector("[data-testid=plot][data-drawn='1']", timeout=60_000)
    assert 1 <= _names_apart(page) < 3


OVERLAYS = "() => performance.getEntriesByName('perfatlas:overlay-drawn').length"


def _names_apart(page: Any) -> int:
    """How many version names the plot shows, once checked that no two of them overlap and
    that each is within the page's width."""
    boxes = page.evaluate(
        """() => Array.from(document.querySelectorAll('.js-plotly-plot .infolayer g.annotation'))
          .filter(g => /fs_version|kernel/.test(g.textContent || ''))
          .map(g => { const r = g.querySelector('.annotation-text').getBoundingClientRect();
                      return [r.left, r.top, r.right, r.bottom, g.textContent]; })"""
    )
    width = page.evaluate("() => document.documentElement.clientWidth")
    for i, (left, top, right, bottom, text) in enumerate(boxes):
        assert left >= 0 and right <= width, (text, left, right, width)
        for other in boxes[i + 1 :]:
            apart = right <= other[0] or other[2] <= left or bottom <= other[1] or other[3] <= top
            assert apart, (text, other[4])
    return len(boxes)


def test_series_list_opens_on_the_newest_and_marks_open_alerts(
    page: Any, versions_server: LiveServer
) -> None:
    server = versions_server
    # Three series of a few runs, the newest last; then published figures, newer than all.
    runs = [
        run_body(
            workload="list_order", agent=agent, environment={"hostname": agent},
            started_at=(T0 + dt.timedelta(days=day + i)).isoformat(), finished_at=None,
            results=[{"metric": METRIC, "unit": "ops/s", "samples": [100.0, 101.0, 102.0]}],
        )
        for agent, day, count in (("old-host", 0, 2), ("mid-host", 10, 3), ("new-host", 20, 1))
        for i in range(count)
    ]  # fmt: skip
    upload_runs(server, runs)
    table = {
        "source_url": "https://example.org/paper.pdf", "description": "Table 1",
        "workload": "list_order", "agent": "paper-2019",
        "started_at": (T0 + dt.timedelta(days=60)).isoformat(),
        "parameters": {"nfiles": 1000}, "labels": {},
        "columns": [{"name": t, "target": t} for t in ("/mnt/a", "/mnt/b")],
        "rows": [{"metric": METRIC, "unit": "ops/s", "values": [10.0, 20.0]}],
    }  # fmt: skip
    posted = httpx.post(
        f"{server.url}/api/v1/references", json=table,
        headers={"Authorization": f"Bearer {server.upload_token}"},
    )  # fmt: skip
    assert posted.status_code in (200, 201), posted.text
    # Two open alerts on the oldest series, as detection leaves them.
    with Session(get_engine(server.database_url)) as session:
        old = session.scalars(
            select(Series.id).where(
                Series.workload == "list_order", Series.agent.has(name="old-host")
            )
        ).one()
        change = session.scalars(select(Run.id).where(Run.workload == "list_order")).first()
        for kind in ("regression", "improvement"):
            session.add(Alert(series_id=old, change_run_id=change, change_at=T0, kind=kind,
                              before=1.0, after=2.0, confidence=0.9, status="open"))  # fmt: skip
        session.commit()

    def rows() -> list[tuple[str, str, str]]:
        """(agent, target, open alerts) of each row shown."""
        table = page.get_by_test_id("series-table")
        table.wait_for()
        return [
            (r.locator("td").nth(2).inner_text(), r.locator("td").nth(3).inner_text(),
             r.get_by_test_id("open-alerts").inner_text())
            for r in table.locator("tbody tr").all()
        ]  # fmt: skip

    use_token(page, server.read_token)
    page.goto(f"{server.url}/series?workload=list_order")
    count = page.get_by_test_id("series-count")
    count.filter(has_text="newest point first").wait_for()
    # Newest first, the reference figures after the measured series though newer.
    assert [(a, alerts) for a, _, alerts in rows()] == [
        ("new-host", ""),
        ("mid-host", ""),
        ("old-host", "2"),
        ("paper-2019", ""),
        ("paper-2019", ""),
    ]
    assert page.locator(".badge", has_text="reference").count() == 2
    shot(page, "series-list-newest", full_page=False)
    page.get_by_label("order").select_option("alerts")
    count.filter(has_text="most open alerts first").wait_for()
    page.wait_for_url("**sort=alerts**")
    assert [a for a, _, _ in rows()][:3] == ["old-host", "new-host", "mid-host"]
    page.get_by_label("order").select_option("points")
    count.filter(has_text="most points first").wait_for()
    assert [a for a, _, _ in rows()][:3] == ["mid-host", "old-host", "new-host"]
    shot(page, "series-list-by-points", full_page=False)
