"""The web UI in a real browser against a real server: the path a user takes, with screenshots."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer
from tests.e2e.conftest import shot, use_token
from tests.e2e.seed import KS, SEGSIZES, SWEEP, TAR, VERSIONS, Seeded

pytestmark = pytest.mark.usefixtures("seeded")

PLOT = ".js-plotly-plot"


def login(page: Any, server: LiveServer) -> None:
    use_token(page, server.read_token)


def plot_data(page: Any) -> list[dict[str, Any]]:
    page.wait_for_selector(f"{PLOT} .main-svg", state="attached")
    return page.evaluate(
        """() => document.querySelector('.js-plotly-plot').data.map(t => ({
            name: t.name, type: t.type, x: Array.from(t.x || []), y: Array.from(t.y || []),
            customdata: Array.from(t.customdata || []) }))"""
    )


def test_without_a_token_the_ui_explains_how_to_get_one(page: Any, ui_server: LiveServer) -> None:
    page.goto(f"{ui_server.url}/")
    page.evaluate("localStorage.clear()")
    page.reload()
    alert = page.get_by_role("alert").first
    alert.wait_for()
    assert "token" in alert.inner_text().lower()
    assert "perfatlas token create --scope read" in page.content()
    shot(page, "00-no-token")
    page.get_by_role("button", name="Set token").click()
    page.get_by_role("textbox", name="Token").fill(ui_server.read_token)
    shot(page, "01-token-dialog", full_page=False)
    page.get_by_role("button", name="Save").click()
    page.get_by_test_id("runs-table").first.wait_for()
    assert page.get_by_role("button", name="Token ✓").is_visible()


def test_overview_to_explore_to_run(page: Any, ui_server: LiveServer, seeded: Seeded) -> None:
    login(page, ui_server)
    page.goto(f"{ui_server.url}/")
    page.get_by_role("heading", name="Recent runs").wait_for()
    page.get_by_test_id("runs-table").first.wait_for()
    # A chip for every workload stored (the catalog's), not only those of the newest runs.
    catalog = httpx.get(
        f"{ui_server.url}/api/v1/catalog",
        headers={"Authorization": f"Bearer {ui_server.read_token}"},
    ).json()
    stored = sorted(w["name"] for w in catalog["workloads"])
    assert {SWEEP, TAR} <= set(stored)
    page.locator(".quick .chip").first.wait_for()
    assert page.locator(".quick .chip").all_text_contents() == stored
    shot(page, "02-overview")

    page.get_by_role("link", name="Explore", exact=True).first.click()
    page.get_by_test_id("workload").select_option(SWEEP)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=metric] option')].some(o => o.value === 'read.mb_per_s')"
    )
    page.get_by_test_id("metric").select_option("read.mb_per_s")
    page.wait_for_selector(f"{PLOT} .main-svg")
    page.get_by_test_id("x").select_option("k")  # a parameter
    page.get_by_test_id("group").select_option("version")  # a label
    page.wait_for_url(re.compile(r"x=k&group=version"))
    # Each point would pool both segment sizes: the lines are split by it (on purpose since
    # issue 40), one run behind every median, and the page says so.
    page.wait_for_function(
        "() => { const d = document.querySelector('.js-plotly-plot')?.data;"
        " return d && d.length === 6 && d.every(t => t.name.startsWith('version=')); }"
    )
    traces = plot_data(page)
    assert {t["name"] for t in traces} == {
        f"version={v} · segsize={s // 1024} KiB" for v in VERSIONS for s in SEGSIZES
    }
    for trace in traces:
        assert trace["x"] == list(KS), trace
        assert len(trace["y"]) == len(KS)
    assert all(c[1] == 1 for t in traces for c in t["customdata"])
    assert "Split by segsize" in page.get_by_test_id("explore-mixes").inner_text()
    assert "workload=tahoe_download" in page.url and "metric=read.mb_per_s" in page.url
    shot(page, "03-explore-k-by-version")

    # Fix the segment size with a filter: then one run per point, and a click opens it.
    page.get_by_label("filter dimension").fill("segsize")
    page.get_by_label("filter value").fill("131072")
    page.get_by_role("button", name="Add", exact=True).click()
    page.wait_for_url(re.compile(r"filter=segsize%3A131072|filter=segsize:131072"))
    page.wait_for_function(
        "() => { const d = document.querySelector('.js-plotly-plot')?.data;"
        " return d && d.length === 3 && d[0].customdata.every(c => c[1] === 1); }"
    )
    traces = plot_data(page)
    newest_point_run = traces[2]["customdata"][1][0]  # trunk, k=2
    point = page.locator(f"{PLOT} .scatterlayer .trace").nth(2).locator(".points path").nth(1)
    box = point.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector(".hoverlayer .hovertext")
    shot(page, "04-explore-hover", full_page=False)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_url(re.compile(r"/runs/[0-9a-f-]{36}$"))
    assert page.url.endswith(newest_point_run)
    page.get_by_test_id("results-table").wait_for()
    text = page.inner_text("main")
    assert "read.mb_per_s" in text and "version" in text and "trunk" in text
    shot(page, "05-run-detail")

    # The deep link loads by itself (the server answers index.html for UI routes).
    page.goto(
        f"{ui_server.url}/explore?workload={SWEEP}&metric=read.mb_per_s&x=k&group=version&view=box"
    )
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')?.data?.[0]?.type === 'box'"
    )
    shot(page, "06-explore-box")


def test_compare_warns_when_durability_differs(
    page: Any, ui_server: LiveServer, seeded: Seeded
) -> None:
    login(page, ui_server)
    page.goto(f"{ui_server.url}/runs?workload={TAR}")
    page.get_by_test_id("runs-table").wait_for()
    page.get_by_label(f"select run {seeded.safe_run[:8]}").check()
    page.get_by_label(f"select run {seeded.unsafe_run[:8]}").check()
    page.get_by_role("button", name=re.compile("Compare 2 runs")).click()
    page.wait_for_url(re.compile(r"/compare\?runs="))
    banner = page.get_by_test_id("durability-warning")
    banner.wait_for()
    assert "durability" in banner.inner_text().lower()
    table = page.get_by_test_id("compare-table")
    rows = table.locator("tbody tr")
    assert rows.count() == 2
    # extract.seconds fell from ~192 s to ~21 s: lower is better, so the second column is better.
    seconds = rows.filter(has_text="extract.seconds").locator("td").nth(1)
    assert seconds.get_attribute("data-tone") == "much-better"
    assert "%" in seconds.inner_text()
    shot(page, "07-compare")

    # Two groups (the safe server against the one with the ZIL disabled): every metric, same warning.
    page.goto(f"{ui_server.url}/compare?workload={TAR}&by=server&a=zfs-safe&b=zfs-zil-disabled")
    page.get_by_test_id("group-compare-table").wait_for()
    assert "fsync_policy" in page.get_by_test_id("durability-warning").inner_text()
    assert page.get_by_test_id("group-compare-table").locator("tbody tr").count() == 2
    shot(page, "07b-compare-groups")


def test_series_history_heatmap_agents_and_dark_theme(
    page: Any, ui_server: LiveServer, seeded: Seeded
) -> None:
    login(page, ui_server)
    page.goto(f"{ui_server.url}/series?workload=nightly_smallfile")
    page.get_by_test_id("series-table").wait_for()
    shot(page, "08-series-list")
    page.get_by_role("link", name="create.ops_per_s").first.click()
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')?.data?.[0]?.y?.length === 20"
    )
    # click, not check(): the box follows the URL, and the refetch it starts may re-render it
    # before Playwright reads its state back.
    page.get_by_label("every sample").click()
    page.wait_for_url("**samples=1**")
    # samples and medians (and the nightly regression's change point, drawn over them)
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')?.data?.some(t => t.name === 'samples')"
    )
    shot(page, "09-series-history")

    page.goto(
        f"{ui_server.url}/heatmap?workload={SWEEP}&metric=read.mb_per_s&x=k&y=segsize"
        "&diff=version&a=1.7.1&b=trunk"
    )
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')?.data?.[0]?.type === 'heatmap'"
    )
    z = page.evaluate("() => document.querySelector('.js-plotly-plot').data[0].z")
    assert len(z) == 2 and all(len(row) == len(KS) for row in z)
    assert all(40 < cell < 60 for row in z for cell in row)  # trunk is ~50 % faster than 1.7.1
    shot(page, "10-heatmap-diff")

    page.goto(f"{ui_server.url}/agents")
    for agent in ("lab-1", "ci-1", "nfs-client"):
        page.get_by_role("link", name=agent, exact=True).wait_for()
    shot(page, "11-agents")

    page.get_by_role("button", name="Switch to dark theme").click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.goto(f"{ui_server.url}/explore?workload={SWEEP}&metric=read.mb_per_s&x=k&group=version")
    page.wait_for_selector(f"{PLOT} .main-svg")
    shot(page, "12-explore-dark")
    page.get_by_role("button", name="Switch to light theme").click()


def test_api_errors_show_as_messages(page: Any, ui_server: LiveServer) -> None:
    login(page, ui_server)
    page.goto(f"{ui_server.url}/runs/not-a-uuid")
    page.get_by_role("alert").first.wait_for()
    assert "Could not load" in page.inner_text("main")
    page.goto(
        f"{ui_server.url}/explore?workload={SWEEP}&metric=read.mb_per_s&x=k&group=version&filter=nonsense"
    )
    page.wait_for_selector(f"{PLOT} .main-svg")
    page.goto(f"{ui_server.url}/no/such/page")
    page.get_by_role("heading", name="Page not found").wait_for()
    shot(page, "13-errors")


def test_the_server_serves_the_ui_beside_the_api(ui_server: LiveServer) -> None:
    with httpx.Client(base_url=ui_server.url, timeout=10) as client:
        deep = client.get("/explore?workload=w&metric=m&x=k")
        assert deep.status_code == 200 and '<div id="root">' in deep.text
        assert client.get("/docs").status_code == 200
        assert client.get("/openapi.json").json()["info"]["title"] == "PerfAtlas"
        missing = client.get("/api/v1/no-such-route")
        assert missing.status_code == 404 and "detail" in missing.json()
        assert client.get("/assets/no-such-chunk.js").status_code == 404
        asset = next(part for part in deep.text.split('"') if part.startswith("/assets/index-"))
        zipped = client.get(asset, headers={"Accept-Encoding": "gzip"})
        assert zipped.status_code == 200 and zipped.headers["content-encoding"] == "gzip"
        assert "immutable" in zipped.headers["cache-control"]
