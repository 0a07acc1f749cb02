"""Explore by filesystem in a real browser: three filesystems, three different values, and a
point whose numbers need care drawn hollow, with its reason on hover and under the plot."""

from __future__ import annotations

import datetime as dt
import statistics
import uuid
from typing import Any

from tests.conftest import LiveServer
from tests.e2e.conftest import shot, upload_runs, use_token
from tests.factories import run_body

WORKLOAD = "fs_smallfile"
METRIC = "create.ops_per_s"
T0 = dt.datetime(2026, 10, 20, 9, 0, tzinfo=dt.UTC)
# Files created per second, five repetitions per run, three runs per filesystem.
LEVELS = {"ext4": 21000.0, "xfs": 17500.0, "tmpfs": 96000.0}
SHORT = "xfs"  # one xfs run had a create phase under 0.5 s


def _runs() -> list[dict[str, Any]]:
    runs = []
    for fs, level in LEVELS.items():
        for i in range(3):
            samples = [round(level * (1 + 0.03 * (j - 2) + 0.01 * i), 1) for j in range(5)]
            runs.append(
                run_body(
                    uuid=str(uuid.uuid4()), workload=WORKLOAD, agent="lab-1",
                    target=f"/mnt/{fs}", started_at=(T0 + dt.timedelta(hours=len(runs))).isoformat(),
                    parameters={"nfiles": 10000, "size": 4096},
                    environment={"hostname": "lab-1", "kernel": "6.1.0-18-amd64", "fs_type": fs,
                                 "cores": 2},
                    meta={"short_phases": ["create"]} if fs == SHORT and i == 0 else {},
                    results=[{"metric": METRIC, "unit": "ops/s", "samples": samples}],
                )
            )  # fmt: skip
    return runs


def test_explore_by_filesystem_shows_each_value_and_marks_a_flagged_point(
    page: Any, ui_server: LiveServer
) -> None:
    runs = _runs()
    upload_runs(ui_server, runs)
    use_token(page, ui_server.read_token)
    page.goto(f"{ui_server.url}/explore?workload={WORKLOAD}&metric={METRIC}&x=fs_type")
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')?.data?.[0]?.x?.length === 3"
    )
    trace = page.evaluate(
        """() => { const t = document.querySelector('.js-plotly-plot').data[0];
            return {x: Array.from(t.x), y: Array.from(t.y), symbol: Array.from(t.marker.symbol),
                    minus: Array.from(t.error_y.arrayminus)}; }"""
    )
    want = {
        fs: statistics.median(
            statistics.median(r["results"][0]["samples"])
            for r in runs
            if r["environment"]["fs_type"] == fs
        )
        for fs in LEVELS
    }
    plotted = dict(zip(trace["x"], trace["y"], strict=True))
    assert plotted == want
    assert len(set(plotted.values())) == 3
    # Five repetitions per run: every point has a spread below its median.
    assert all(m > 0 for m in trace["minus"])
    symbols = dict(zip(trace["x"], trace["symbol"], strict=True))
    # tmpfs is memory-backed: a diamond (its fsync reaches no stable storage).
    assert symbols == {"ext4": "circle", "tmpfs": "diamond", "xfs": "circle-open"}

    legend = page.get_by_test_id("explore-flags")
    assert "short phase" in legend.inner_text() and "1 point" in legend.inner_text()
    assert "under 0.5 s" in legend.inner_text()

    index = trace["x"].index(SHORT)
    point = page.locator(".js-plotly-plot .scatterlayer .trace .points path").nth(index)
    box = point.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hover = page.wait_for_selector(".hoverlayer .hovertext")
    assert hover is not None
    text = hover.text_content() or ""
    assert "short phase" in text and "3 runs, 15 repetitions" in text
    shot(page, "36-explore-fs-type-flagged", full_page=False)

    # The heatmap of the same runs (filesystem by target) marks the flagged cell too.
    page.goto(f"{ui_server.url}/heatmap?workload={WORKLOAD}&metric={METRIC}&x=fs_type&y=target")
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')?.data?.[0]?.type === 'heatmap'"
    )
    cell = page.evaluate(
        """() => { const d = document.querySelector('.js-plotly-plot').data[0];
            return {x: Array.from(d.x), y: Array.from(d.y), z: d.z, text: d.text}; }"""
    )
    for row, target in enumerate(cell["y"]):
        for col, fs in enumerate(cell["x"]):
            if target != f"/mnt/{fs}":
                assert cell["z"][row][col] is None
                continue
            assert cell["z"][row][col] == want[fs]
            assert cell["text"][row][col] == (" ⚠" if fs == SHORT else "")
    shot(page, "37-heatmap-flagged-cell", full_page=False)
