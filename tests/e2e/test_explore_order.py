"""Explore in a real browser with versions whose text order is not their order (2.1.9, 2.1.10,
2.2.0-rc1, 2.2.0, trunk) on two agents, and sizes stored in bytes: the x axis as plotly draws it
(its tick labels read from the page) is in natural order, lines join the points along it, an
order asked in the address is kept, and sizes read 128 KiB on the axis and are typed as 128k."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from typing import Any

import pytest

from tests.conftest import LiveServer
from tests.e2e.conftest import shot, upload_runs, use_token
from tests.factories import result, run_body

WORKLOAD = "zfs_nightly_order"
VERSIONS = ["2.1.9", "2.1.10", "2.1.11", "2.2.0-rc1", "2.2.0", "trunk"]
AGENTS = ["zfs-a", "zfs-b"]
SEGSIZES = [4096, 131072, 4 << 20]
T0 = dt.datetime(2026, 9, 1, 8, 0, tzinfo=dt.UTC)
PLOT = ".js-plotly-plot"


def _runs() -> list[dict[str, Any]]:
    rng = random.Random(40)
    bodies = []
    for i, (agent, version, segsize) in enumerate(
        (a, v, s) for a in AGENTS for v in VERSIONS for s in SEGSIZES
    ):
        centre = 100 + 10 * VERSIONS.index(version) + (5 if agent == "zfs-b" else 0)
        bodies.append(
            run_body(
                uuid=str(uuid.UUID(int=rng.getrandbits(128))), workload=WORKLOAD, agent=agent,
                parameters={"segsize": segsize, "reads": 200}, labels={"version": version},
                started_at=(T0 + dt.timedelta(minutes=i)).isoformat(),
                results=[result("read.mb_per_s", [centre * rng.uniform(0.98, 1.02) for _ in range(3)],
                                unit="MB/s")],
            )
        )  # fmt: skip
    rng.shuffle(bodies)  # no order of the page comes from the order of the uploads
    return bodies


@pytest.fixture(scope="module")
def uploaded(ui_server: LiveServer) -> list[dict[str, Any]]:
    bodies = _runs()
    upload_runs(ui_server, bodies)
    return bodies


def _ticks(page: Any) -> list[str]:
    return page.evaluate(
        f"() => [...document.querySelectorAll('{PLOT} .xaxislayer-above .xtick text')]"
        ".map(t => t.textContent)"
    )  # fmt: skip


def _open(page: Any, server: LiveServer, query: str, traces: int) -> None:
    page.goto(f"{server.url}/explore?workload={WORKLOAD}&metric=read.mb_per_s&{query}")
    page.wait_for_function(
        f"() => document.querySelector('{PLOT}')?.data?.length === {traces}"
        f" && document.querySelectorAll('{PLOT} .xtick text').length > 0"
    )


def test_the_version_axis_in_order_with_lines(
    page: Any, ui_server: LiveServer, uploaded: list[dict[str, Any]]
) -> None:
    use_token(page, ui_server.read_token)
    _open(page, ui_server, "x=version&group=agent&split=none", traces=2)
    assert _ticks(page) == VERSIONS
    traces = page.evaluate(
        f"() => document.querySelector('{PLOT}').data.map(t => ({{name: t.name, mode: t.mode,"
        " x: Array.from(t.x)}))"
    )
    assert [t["name"] for t in traces] == [f"agent={a}" for a in AGENTS]
    assert all(t["mode"] == "lines+markers" and t["x"] == VERSIONS for t in traces)
    # The lines are drawn: one path per trace, through every point (a path's vertices).
    lines = page.evaluate(
        f"() => [...document.querySelectorAll('{PLOT} .scatterlayer .trace .js-line')]"
        ".map(p => (p.getAttribute('d') || '').split(/[ML]/).filter(s => s).length)"
    )  # fmt: skip
    assert lines == [len(VERSIONS)] * len(AGENTS)
    # The legend in the same order as the traces.
    legend = page.evaluate(
        f"() => [...document.querySelectorAll('{PLOT} .legend .traces .legendtext')]"
        ".map(t => t.textContent)"
    )  # fmt: skip
    assert legend == [f"agent={a}" for a in AGENTS]
    shot(page, "explore-order-versions-lines")

    # An order asked in the address: trunk first, the rest in natural order.
    _open(page, ui_server, "x=version&group=agent&order=version:trunk,*&split=none", traces=2)
    assert _ticks(page) == ["trunk", *VERSIONS[:-1]]
    assert "order=version" in page.url
    shot(page, "explore-order-trunk-first")


def test_sizes_as_people_write_them(
    page: Any, ui_server: LiveServer, uploaded: list[dict[str, Any]]
) -> None:
    use_token(page, ui_server.read_token)
    _open(page, ui_server, "x=segsize&group=version", traces=len(VERSIONS))
    assert _ticks(page) == ["4 KiB", "128 KiB", "4 MiB"]
    legend = page.evaluate(
        f"() => [...document.querySelectorAll('{PLOT} .legend .traces .legendtext')]"
        ".map(t => t.textContent)"
    )  # fmt: skip
    assert legend == [f"version={v}" for v in VERSIONS]
    # The hover writes the point's size too: the 128 KiB point of the first line.
    point = page.locator(f"{PLOT} .scatterlayer .trace").first.locator(".points path").nth(1)
    box = point.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector(".hoverlayer .hovertext")
    hover = page.evaluate("() => document.querySelector('.hoverlayer .hovertext').textContent")
    assert "segsize=128 KiB" in hover, hover
    shot(page, "explore-order-segsize-ticks", full_page=False)

    # The heatmap: sizes across, versions down, both in order.
    page.goto(
        f"{ui_server.url}/heatmap?workload={WORKLOAD}&metric=read.mb_per_s&x=segsize&y=version"
    )
    page.wait_for_function(f"() => document.querySelectorAll('{PLOT} .ytick text').length > 0")
    assert _ticks(page) == ["4 KiB", "128 KiB", "4 MiB"]
    rows = page.evaluate(
        f"() => [...document.querySelectorAll('{PLOT} .yaxislayer-above .ytick text')]"
        ".map(t => t.textContent)"
    )  # fmt: skip
    assert rows == VERSIONS
    cell = page.locator(f"{PLOT} .heatmaplayer").bounding_box()
    assert cell is not None
    # The middle column's lowest row: 128 KiB, 2.1.9.
    page.mouse.move(cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] * 0.95)
    page.wait_for_selector(".hoverlayer .hovertext")
    hover = page.evaluate("() => document.querySelector('.hoverlayer .hovertext').textContent")
    assert "segsize=128 KiB" in hover and "version=2.1.9" in hover, hover
    shot(page, "heatmap-order-segsize-by-version")
    # Typed as people write it: each point is then the one run of that segsize.
    _open(page, ui_server, "x=version&group=agent&filter=segsize:128k", traces=2)
    runs = page.evaluate(
        f"() => document.querySelector('{PLOT}').data.flatMap(t => t.customdata.map(c => c[4]))"
    )
    wanted = {b["uuid"] for b in uploaded if b["parameters"]["segsize"] == 131072}
    assert {r for point in runs for r in point} == wanted and all(len(p) == 1 for p in runs)
    assert _ticks(page) == VERSIONS
