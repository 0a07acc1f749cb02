"""Explore's settings through a report, in a real browser (issue 40): a view with an explicit
order, a pooled parameter, a split and exact figures, added to a report from Explore, keeps
them (the block's plot is Explore's), and "Open" on the block brings Explore back with every
one; the runs list and a run's page show sizes as people write them (128 KiB), the stored
bytes on hover. Screenshots at desktop width and at 390×844."""

from __future__ import annotations

import datetime as dt
import re
import statistics
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from tests.conftest import LiveServer
from tests.e2e.conftest import VIEWPORT, shot, upload_runs, use_token
from tests.factories import run_body

WORKLOAD = "settings_partial"
METRIC = "read.mb_per_s"
T0 = dt.datetime(2026, 10, 1, 8, 0, tzinfo=dt.UTC)
SEGSIZES = (131072, 1048576)
SYNCS = ("file", "none")
VERSIONS = ("2.1.9", "2.1.10", "2.2.0")
PHONE = {"width": 390, "height": 844}
PLOT_TRACES = """(sel) => Array.from(document.querySelector(sel).data).map((t) => ({
    name: t.name, x: Array.from(t.x), y: Array.from(t.y)}))"""


def _runs() -> list[dict[str, Any]]:
    runs = []
    for v, version in enumerate(VERSIONS):
        for s, segsize in enumerate(SEGSIZES):
            for sync in SYNCS:
                for rep in range(2):
                    mid = (100.0 + 50 * s) * (0.3 if sync == "file" else 1.0) * (1 + v / 20)
                    mid *= 0.8 if sync == "file" and version == "2.2.0" else 1.0
                    mid *= 1 + rep / 100
                    runs.append(run_body(
                        workload=WORKLOAD, agent="settings-lab", target="/mnt/ext4",
                        parameters={"segsize": segsize, "sync": sync},
                        labels={"version": version},
                        environment={**run_body()["environment"], "hostname": "settings-lab"},
                        started_at=(T0 + dt.timedelta(hours=len(runs))).isoformat(),
                        results=[{"metric": METRIC, "unit": "MB/s",
                                  "samples": [mid * 0.98, mid, mid * 1.01]}],
                    ))  # fmt: skip
    return runs


# 2.2.0 first, then the others in natural order; segsize pooled, so one line per sync.
SETTINGS = "order=version%3A2.2.0%2C*&pool=segsize&split=sync&exact=1"
QUERY = f"workload={WORKLOAD}&metric={METRIC}&x=version&{SETTINGS}"


def _plot(page: Any, selector: str) -> list[dict[str, Any]]:
    page.wait_for_function(
        f"() => document.querySelector({selector!r})?.data?.length === {len(SYNCS)}"
    )
    traces = page.evaluate(PLOT_TRACES, selector)
    return sorted(traces, key=lambda t: t["name"])


def test_explore_settings_kept_through_a_report_and_open(page: Any, ui_server: LiveServer) -> None:
    runs = _runs()
    upload_runs(ui_server, runs)
    use_token(page, ui_server.upload_token)
    page.goto(f"{ui_server.url}/explore?{QUERY}")
    explored = _plot(page, ".js-plotly-plot")
    # The oracle: per sync, per version in the order asked, the median of the runs' medians
    # (segsize pooled).
    order = ["2.2.0", "2.1.9", "2.1.10"]
    for sync in SYNCS:
        trace = next(t for t in explored if f"sync={sync}" in t["name"])
        assert trace["x"] == order
        plain = [
            statistics.median(
                statistics.median(r["results"][0]["samples"]) for r in runs
                if r["parameters"]["sync"] == sync and r["labels"]["version"] == version
            )
            for version in order
        ]  # fmt: skip
        assert trace["y"] == pytest.approx(plain, rel=1e-9)
    page.get_by_test_id("add-to-report").click()
    page.get_by_test_id("report-title").fill("Settings kept")
    page.get_by_test_id("add-to-report-submit").click()
    page.wait_for_url(f"{ui_server.url}/reports/settings-kept")

    block = page.get_by_test_id("block-0")
    assert _plot(page, "[data-testid=block-0] .js-plotly-plot") == explored
    # What the points pool, as Explore says it, sizes as people write them.
    mixes = block.get_by_test_id("explore-mixes").inner_text()
    assert "Split by sync" in mixes and "mixes segsize: " in mixes
    assert sorted(mixes.split("mixes segsize: ")[1].split(" split by")[0].split(", ")) == [
        "1 MiB",
        "128 KiB",
    ]
    caption = block.locator(".block-head h2").inner_text()
    assert "split by sync" in caption and "segsize pooled" in caption and "exact" in caption
    stored = httpx.get(
        f"{ui_server.url}/api/v1/reports/settings-kept",
        headers={"Authorization": f"Bearer {ui_server.read_token}"}, timeout=30,
    ).json()["blocks"][0]  # fmt: skip
    assert (stored["order"], stored["split"], stored["pool"], stored["exact"]) == (
        ["version:2.2.0,*"], ["sync"], ["segsize"], True,
    )  # fmt: skip
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, "140-report-block-settings")
    # On a phone, loaded at its width: the plot takes it, nothing scrolls sideways.
    page.set_viewport_size(PHONE)
    page.reload()
    assert _plot(page, "[data-testid=block-0] .js-plotly-plot") == explored
    page.wait_for_function(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    shot(page, "141-report-block-settings-phone")
    page.set_viewport_size(VIEWPORT)
    page.reload()
    block.locator(".js-plotly-plot").wait_for()

    # "Open": Explore with every setting of the block, drawing the same plot.
    block.get_by_role("link", name="Open").click()
    page.wait_for_url("**/explore?**")
    # Pages load lazily: the report stays on screen until Explore's code is in (its plot would
    # be read for Explore's).
    block.wait_for(state="detached")
    asked = parse_qs(urlparse(page.url).query)
    assert asked["order"] == ["version:2.2.0,*"] and asked["pool"] == ["segsize"]
    assert asked["split"] == ["sync"] and asked["exact"] == ["1"] and asked["x"] == ["version"]
    assert _plot(page, ".js-plotly-plot") == explored


def pairs(text: str) -> set[str]:
    """`k=v k2=v2` as its pairs (a value may hold a space: 128 KiB)."""
    return {p.strip() for p in re.split(r" (?=[a-z_]+=)", text)}


def test_the_runs_list_shows_sizes_as_people_write_them(page: Any, ui_server: LiveServer) -> None:
    runs = _runs()[:4]
    for r in runs:
        r["workload"] = "settings_sizes"
    upload_runs(ui_server, runs)
    use_token(page, ui_server.read_token)
    for viewport, name in ((VIEWPORT, "142-runs-sizes"), (PHONE, "143-runs-sizes-phone")):
        page.set_viewport_size(viewport)
        page.goto(f"{ui_server.url}/runs?workload=settings_sizes")
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=runs-table] tbody tr').length === 4"
        )
        cells = page.get_by_test_id("runs-table").locator("tbody tr td.params")
        texts = cells.all_inner_texts()
        newest = sorted(runs, key=lambda r: r["started_at"], reverse=True)
        human = {131072: "128 KiB", 1048576: "1 MiB"}
        # The pairs in the order the database keeps the keys: compared as sets.
        assert [pairs(t) for t in texts] == [
            {f"segsize={human[r['parameters']['segsize']]}", f"sync={r['parameters']['sync']}"}
            for r in newest
        ]
        titles = [cells.nth(i).get_attribute("title") or "" for i in range(len(texts))]
        assert [t.startswith("as stored: ") and pairs(t[11:]) for t in titles] == [
            {f"segsize={r['parameters']['segsize']}", f"sync={r['parameters']['sync']}"}
            for r in newest
        ]
        cells.first.scroll_into_view_if_needed()  # on a phone, the table scrolls in its box
        shot(page, name, full_page=False)
    page.set_viewport_size(VIEWPORT)
    # A run's page: its parameters in the same units, the stored value on hover.
    page.goto(f"{ui_server.url}/runs/{runs[0]['uuid']}")
    value = page.locator("dl.kv div", has=page.locator("dt", has_text="segsize")).locator("dd")
    value.wait_for()
    assert value.inner_text() == "128 KiB"
    assert value.get_attribute("title") == "as stored: 131072"
    value.scroll_into_view_if_needed()
    shot(page, "144-run-sizes", full_page=False)
