"""Reports in a real browser: a report made through the UI (an Explore view of two metrics as one
plot, added from Explore; a run compare, added from Compare; notes written in the editor)
shows the data of the runs uploaded here; its HTML export, opened with the network cut off,
holds the same traces and table values and asks for nothing."""

from __future__ import annotations

import datetime as dt
import statistics
import uuid
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import LiveServer
from tests.e2e.conftest import shot, use_token
from tests.factories import run_body

WORKLOAD = "rep_treeops"
T0 = dt.datetime(2026, 10, 25, 8, 0, tzinfo=dt.UTC)
THREADS = (1, 4, 16)


def _runs() -> list[dict[str, Any]]:
    """Serial find against a threaded walk: walk time falls with threads, find's does not."""
    runs = []
    for day in range(3):
        for threads in THREADS:
            walk = 24.0 / threads**0.5 + day * 0.5
            find = 10.0 + day * 0.25
            runs.append(
                run_body(
                    uuid=str(uuid.uuid4()),
                    workload=WORKLOAD,
                    agent="rep-lab",
                    target="/mnt/tree",
                    parameters={"threads": threads, "depth": 4},
                    labels={"fs_version": "6.1"},
                    started_at=(T0 + dt.timedelta(days=day, minutes=threads)).isoformat(),
                    results=[
                        {
                            "metric": "walk.seconds",
                            "unit": "s",
                            "samples": [walk * 0.95, walk, walk * 1.1],
                        },
                        {
                            "metric": "find.seconds",
                            "unit": "s",
                            "samples": [find * 0.9, find, find * 1.05],
                        },
                        {
                            "metric": "walk.inodes_per_s",
                            "unit": "ops/s",
                            "samples": [5000 / walk, 5000 / walk, 5000 / walk],
                        },
                    ],
                )
            )
    return runs


PLOT_TRACES = """(sel) => Array.from(document.querySelector(sel).data).map((t) => ({
    name: t.name, x: Array.from(t.x), y: Array.from(t.y)}))"""


def test_a_report_made_in_the_ui_shows_the_runs_and_exports_offline(
    page: Any, ui_server: LiveServer, tmp_path: Path
) -> None:
    runs = _runs()
    headers = {"Authorization": f"Bearer {ui_server.upload_token}"}
    response = httpx.post(
        f"{ui_server.url}/api/v1/runs/batch", json={"runs": runs}, headers=headers, timeout=60
    )
    response.raise_for_status()
    # Writing a report needs a person's token (upload or admin).
    use_token(page, ui_server.upload_token)

    # 1. Explore: walk and find on one plot against threads, added to a new report.
    query = f"workload={WORKLOAD}&metric=walk.seconds,find.seconds&group=metric&x=threads"
    page.goto(f"{ui_server.url}/explore?{query}")
    page.wait_for_function("() => document.querySelector('.js-plotly-plot')?.data?.length === 2")
    checked = page.get_by_test_id("metrics").locator("input:checked")
    assert sorted(checked.evaluate_all("(els) => els.map((e) => e.value)")) == [
        "find.seconds", "walk.seconds",
    ]  # fmt: skip
    shot(page, "70-explore-two-metrics", full_page=False)
    page.get_by_test_id("add-to-report").click()
    page.get_by_test_id("report-title").fill("Tree walks: threads vs find")
    shot(page, "71-add-to-new-report", full_page=False)
    page.get_by_test_id("add-to-report-submit").click()
    page.wait_for_url(f"{ui_server.url}/reports/tree-walks-threads-vs-find")

    # 2. Compare: the serial and the 16-thread run of the first day, added to that report.
    serial = next(r for r in runs if r["parameters"]["threads"] == 1)
    threaded = next(r for r in runs if r["parameters"]["threads"] == 16)
    page.goto(f"{ui_server.url}/compare?runs={serial['uuid']},{threaded['uuid']}")
    page.get_by_test_id("compare-table").wait_for()
    page.get_by_test_id("add-to-report").click()
    page.get_by_test_id("report-choice").select_option("tree-walks-threads-vs-find")
    page.get_by_test_id("add-to-report-submit").click()
    page.wait_for_url(f"{ui_server.url}/reports/tree-walks-threads-vs-find")

    # 3. Notes in the editor; raw HTML stays text.
    page.get_by_test_id("edit-report").click()
    notes = (
        "# Findings\n\nA threaded **walk** beats `find` from 4 threads on.\n\n"
        "- walk: 24 s serial\n- find: 10 s\n\n<script>window.pwned = 1</script>"
    )
    page.get_by_test_id("edit-notes").fill(notes)
    page.get_by_label("caption of block 2").fill("Serial against 16 threads")
    shot(page, "72-report-editor")
    page.get_by_test_id("save-report").click()
    page.wait_for_url(f"{ui_server.url}/reports/tree-walks-threads-vs-find")

    # 4. The report: notes, the plot of both metrics, the compare table; values from the API.
    page.get_by_test_id("report-notes").wait_for()
    notes_box = page.get_by_test_id("report-notes")
    assert notes_box.locator("h1").inner_text() == "Findings"
    assert notes_box.locator("strong").inner_text() == "walk"
    assert "<script>window.pwned = 1</script>" in notes_box.inner_text()
    assert page.evaluate("() => window.pwned") is None
    page.wait_for_function(
        "() => document.querySelector('[data-testid=block-0] .js-plotly-plot')?.data?.length === 2"
    )
    traces = page.evaluate(PLOT_TRACES, "[data-testid=block-0] .js-plotly-plot")
    api = httpx.get(
        f"{ui_server.url}/api/v1/explore", headers=headers,
        params={"workload": WORKLOAD, "metric": "walk.seconds,find.seconds", "group": "metric",
                "x": "threads"},
    ).json()  # fmt: skip
    want = {
        t["group"]: ([p["x"] for p in t["points"]], [p["median"] for p in t["points"]])
        for t in api["traces"]
    }
    assert {t["name"]: (t["x"], t["y"]) for t in traces} == want
    # Against a plain computation: the median over the three days of each run's median.
    for metric in ("walk.seconds", "find.seconds"):
        plain = [
            statistics.median(
                statistics.median(res["samples"])
                for r in runs if r["parameters"]["threads"] == threads
                for res in r["results"] if res["metric"] == metric
            )
            for threads in THREADS
        ]  # fmt: skip
        assert want[metric] == ([float(t) for t in THREADS], plain) or want[metric] == (
            list(THREADS),
            plain,
        )
    table = page.get_by_test_id("block-1").get_by_test_id("compare-table")
    table.wait_for()
    assert (
        page.get_by_test_id("block-1").locator(".block-head h2").inner_text()
        == "Serial against 16 threads"
    )
    walk_row = table.locator("tr", has_text="walk.seconds").first.inner_text()
    serial_walk = statistics.median(serial["results"][0]["samples"])
    threaded_walk = statistics.median(threaded["results"][0]["samples"])
    assert f"{serial_walk:.3g}" in walk_row and f"{threaded_walk:.3g}" in walk_row
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, "73-report-view")

    # 5. The export: one HTML file, opened with the network cut off.
    with page.expect_download() as info:
        page.get_by_test_id("export-html").click()
    path = tmp_path / "report.html"
    info.value.save_as(path)
    html = path.read_text()
    assert 1_000_000 < len(html) < 4_000_000  # plotly.js is inside
    offline = page.context.new_page()
    asked: list[str] = []
    offline.on("request", lambda r: asked.append(r.url))
    offline.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                  else route.abort())  # fmt: skip
    page.context.set_offline(True)
    try:
        offline.goto(path.as_uri())
        offline.wait_for_function(
            "() => document.querySelector('#plot-0.js-plotly-plot')?.data?.length === 2"
        )
        exported = offline.evaluate(PLOT_TRACES, "#plot-0")
        assert {t["name"]: (t["x"], t["y"]) for t in exported} == want
        assert offline.locator("h1").first.inner_text() == "Tree walks: threads vs find"
        assert offline.locator(".notes h1").inner_text() == "Findings"
        assert offline.evaluate("() => window.pwned") is None
        rows = offline.locator("table[data-table=compare] tr", has_text="walk.seconds")
        cells = rows.first.locator("td").all_inner_texts()
        assert cells[0].startswith(f"{serial_walk:.4g}")
        assert cells[1].startswith(f"{threaded_walk:.4g}")
        explore_rows = offline.locator("table[data-table=explore] tbody tr").all()
        assert len(explore_rows) == 2 * len(THREADS)
        offline.set_viewport_size({"width": 1100, "height": 900})
        shot(offline, "74-exported-report-offline")
    finally:
        page.context.set_offline(False)
        offline.close()
    assert [u for u in asked if not u.startswith(("file:", "data:", "blob:"))] == []

    # 6. Pinned to 26 October: only the first day's runs (started on the 25th) are read.
    page.get_by_test_id("edit-report").click()
    page.get_by_test_id("edit-pinned").fill("2026-10-26")
    page.get_by_test_id("save-report").click()
    page.wait_for_url(f"{ui_server.url}/reports/tree-walks-threads-vs-find")
    # The page refreshes its data after the save: wait for the pin to show.
    page.get_by_test_id("report-pin").filter(has_text="pinned").wait_for()
    page.wait_for_function(
        """() => { const d = document.querySelector('[data-testid=block-0] .js-plotly-plot')?.data;
            return d?.length === 2 && d[0].y[0] === 24; }"""
    )
    pinned = page.evaluate(PLOT_TRACES, "[data-testid=block-0] .js-plotly-plot")
    first_day = [r for r in runs if r["started_at"] < "2026-10-26"]
    assert len(first_day) == len(THREADS)
    for trace in pinned:
        plain = [
            statistics.median(res["samples"])
            for threads in THREADS
            for r in first_day if r["parameters"]["threads"] == threads
            for res in r["results"] if res["metric"] == trace["name"]
        ]  # fmt: skip
        assert trace["y"] == plain
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, "75-report-pinned", full_page=False)


def test_a_report_of_every_block_kind_and_its_export(
    page: Any, ui_server: LiveServer, tmp_path: Path
) -> None:
    """Heatmap, group compare, series and text blocks (a study's default report, imported as
    JSON through the API): drawn as on their pages, and in the export."""
    headers = {"Authorization": f"Bearer {ui_server.upload_token}"}
    runs = []
    for version, factor in (("6.1", 1.0), ("6.2", 0.8)):
        for threads in THREADS:
            for depth in (2, 4):
                walk = 24.0 / threads**0.5 * depth / 4 * factor
                runs.append(
                    run_body(
                        uuid=str(uuid.uuid4()),
                        workload="rep_grid",
                        agent="rep-grid",
                        target="/mnt/tree",
                        parameters={"threads": threads, "depth": depth},
                        labels={"fs_version": version},
                        started_at=(T0 + dt.timedelta(minutes=len(runs))).isoformat(),
                        results=[
                            {
                                "metric": "walk.seconds",
                                "unit": "s",
                                "samples": [walk * 0.98, walk, walk * 1.02],
                            }
                        ],
                    )
                )
    httpx.post(
        f"{ui_server.url}/api/v1/runs/batch", json={"runs": runs}, headers=headers, timeout=60
    ).raise_for_status()
    series = httpx.get(
        f"{ui_server.url}/api/v1/series", headers=headers,
        params={"workload": "rep_grid", "metric": "walk.seconds", "limit": 100},
    ).json()["items"]  # fmt: skip
    one = next(s for s in series if s["parameters"] == {"threads": 1, "depth": 4})
    report = {
        "slug": "grid", "title": "Walk grid", "notes": "Depth × threads, two versions.",
        "blocks": [
            {"kind": "heatmap", "workload": "rep_grid", "metric": "walk.seconds", "x": "threads",
             "y": "depth", "diff": "fs_version", "a": "6.1", "b": "6.2"},
            {"kind": "markdown", "text": "The **newer** version walks faster everywhere."},
            {"kind": "compare", "workload": "rep_grid", "by": "fs_version",
             "values": ["6.1", "6.2"]},
            {"kind": "series", "series_id": one["id"], "title": "1 thread, depth 4"},
        ],
    }  # fmt: skip
    created = httpx.post(f"{ui_server.url}/api/v1/reports", json=report, headers=headers)
    assert created.status_code == 201, created.text
    use_token(page, ui_server.read_token)
    page.goto(f"{ui_server.url}/reports")
    page.get_by_role("link", name="Walk grid").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=block-0] .js-plotly-plot')?.data?.[0]?.z"
    )
    z = page.evaluate(
        "() => document.querySelector('[data-testid=block-0] .js-plotly-plot').data[0].z"
    )
    # 6.2 walks at 0.8 of 6.1's time in every cell: -20 %.
    assert len(z) == 2 and all(len(row) == len(THREADS) for row in z)
    assert all(abs(v - -20.0) < 1e-9 for row in z for v in row)
    groups = page.get_by_test_id("block-2").get_by_test_id("group-compare-table")
    assert "-20" in groups.inner_text().replace("−", "-")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=block-3] .js-plotly-plot')?.data?.length >= 1"
    )
    ys = page.evaluate(
        "() => Array.from(document.querySelector('[data-testid=block-3] .js-plotly-plot')"
        ".data.find(t => t.name === 'median').y)"
    )
    assert ys == [24.0, 24.0 * 0.8]  # the series: version 6.1 then 6.2
    assert page.get_by_test_id("block-1").locator("strong").inner_text() == "newer"
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, "76-report-every-block")

    with page.expect_download() as info:
        page.get_by_test_id("export-html").click()
    path = tmp_path / "grid.html"
    info.value.save_as(path)
    offline = page.context.new_page()
    page.context.set_offline(True)
    try:
        offline.goto(path.as_uri())
        offline.wait_for_function(
            "() => document.querySelectorAll('.js-plotly-plot').length === 2"
            " && document.querySelector('#plot-1').data"
        )
        exported_z = offline.evaluate("() => document.querySelector('#plot-0').data[0].z")
        assert exported_z == z
        assert (
            offline.evaluate(
                "() => Array.from(document.querySelector('#plot-1').data"
                ".find(t => t.name === 'median').y)"
            )
            == ys
        )
        cells = offline.locator("table[data-table=groups] tr", has_text="walk.seconds")
        # the page's words, not a bare "(-20 %)": the median change, its series, the verdict
        text = cells.first.inner_text().replace("−", "-")
        assert "-20 % median over" in text and "agree" in text
        offline.set_viewport_size({"width": 1100, "height": 900})
        shot(offline, "77-exported-every-block")
    finally:
        page.context.set_offline(False)
        offline.close()


def _durability_runs() -> list[dict[str, Any]]:
    """ext4 against tmpfs (each on its own target) on two agents, fsync file and none, 3 runs
    each: tmpfs is 5 times as fast when flushing (it flushes nothing), level otherwise."""
    runs = []
    for agent in ("rep-dur-a", "rep-dur-b"):
        for fs in ("ext4", "tmpfs"):
            for fsync, gain in (("file", 5.0), ("none", 1.0)):
                for rep in range(3):
                    value = (700.0 if agent.endswith("a") else 1200.0) * (
                        gain if fs == "tmpfs" else 1
                    )
                    value *= 1 + 0.01 * rep
                    runs.append(
                        run_body(
                            uuid=str(uuid.uuid4()), workload="rep_dur", agent=agent,
                            target=f"/mnt/{fs}", parameters={"fsync": fsync},
                            labels={"fs": fs}, fsync_policy="file" if fsync == "file" else "none",
                            environment={**run_body()["environment"], "hostname": agent,
                                         "fs_type": fs},
                            started_at=(T0 + dt.timedelta(minutes=len(runs))).isoformat(),
                            results=[{"metric": "create.ops_per_s", "unit": "ops/s",
                                      "samples": [value * 0.98, value, value * 1.01]}],
                        )
                    )  # fmt: skip
    return runs


CELLS = """(sel) => Array.from(document.querySelectorAll(sel + ' [data-testid=group-summary]'))
    .map((d) => [d.innerText, d.parentElement.querySelector('.verdict')?.innerText ?? null,
                 d.parentElement.dataset.tone])"""


def test_a_report_shows_its_durability_banner_and_open_keeps_pair_ignore(
    page: Any, ui_server: LiveServer, tmp_path: Path
) -> None:
    """A group compare block of tmpfs against ext4, paired across targets: the report draws the
    durability banner the API computes, and the block's Open shows the same verdicts (it keeps
    pair_ignore); a block without pair_ignore says why it has no cell, with the pairing that
    joins the series; the HTML export keeps the banner, intervals and verdicts."""
    headers = {"Authorization": f"Bearer {ui_server.upload_token}"}
    httpx.post(
        f"{ui_server.url}/api/v1/runs/batch", json={"runs": _durability_runs()},
        headers=headers, timeout=60,
    ).raise_for_status()  # fmt: skip
    query = {"workload": "rep_dur", "by": "fs", "values": ["ext4", "tmpfs"],
             "metric": ["create.ops_per_s"]}  # fmt: skip
    report = {
        "slug": "durability", "title": "tmpfs against ext4",
        "blocks": [
            {"kind": "compare", **query, "pair_ignore": ["target"],
             "title": "Paired across targets"},
            {"kind": "compare", **query, "title": "Paired by target", "pair_ignore": ["none"],
             "empty_note": "the runs of each filesystem sit on their own target"},
            {"kind": "compare", **query, "values": ["ext4", "tmpfs", "xfs"],
             "pair_ignore": ["target"], "empty_note": "xfs needs root here (a loop mount)"},
        ],
    }  # fmt: skip
    created = httpx.post(f"{ui_server.url}/api/v1/reports", json=report, headers=headers)
    assert created.status_code == 201, created.text
    api = httpx.get(
        f"{ui_server.url}/api/v1/compare/groups", headers=headers,
        params={"workload": "rep_dur", "by": "fs", "value": ["ext4", "tmpfs"],
                "metric": "create.ops_per_s", "pair_ignore": "target"},
    ).json()  # fmt: skip
    assert api["warning"] and "memory_backed" in api["warning"]
    (cell,) = api["metrics"][0]["cells"][1:]
    assert cell["pairs"] == 4

    use_token(page, ui_server.read_token)
    page.goto(f"{ui_server.url}/reports/durability")
    block = page.get_by_test_id("block-0")
    banner = block.get_by_test_id("durability-warning")
    banner.wait_for()
    assert banner.inner_text() == f"Durability differs. {api['warning']}"
    block.get_by_test_id("group-compare-table").wait_for()
    in_report = page.evaluate(CELLS, "[data-testid=block-0]")
    # tmpfs against ext4: not comparable (durability), in the headline and in every pair.
    assert len(in_report) == 1
    assert in_report[0][0] == "not comparable (durability): 4 of 4 series"
    assert {p["cells"][1]["change"]["verdict"] for p in api["metrics"][0]["pairs"]} == {
        "not_comparable"
    }
    block.get_by_role("button", name="4 series one by one").click()
    breakdown = block.get_by_test_id("series-create.ops_per_s")
    breakdown.wait_for()
    assert breakdown.inner_text().count("not comparable (durability)") == 4
    # The second block: every series apart, said in words with the pairing that joins them.
    unpaired = page.get_by_test_id("block-1").get_by_test_id("unpaired")
    assert unpaired.inner_text().startswith(
        "no series in both fs=tmpfs and the baseline fs=ext4: their series differ in target"
    )
    # A group without runs says so, with the block's own note on why.
    third = page.get_by_test_id("block-2")
    assert third.get_by_test_id("unpaired").inner_text() == "no runs with fs=xfs"
    assert third.get_by_test_id("empty-note").inner_text() == "xfs needs root here (a loop mount)"
    assert third.locator("[data-testid=group-summary]").last.inner_text() == "no runs"
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, "81-report-durability-banner")

    # Open: the compare page with every setting of the block, pair_ignore included.
    with page.expect_navigation():
        block.get_by_role("link", name="Open").click()
    assert "pair_ignore=target" in page.url
    # Pages load lazily: the report stays on screen until the compare page's code is in.
    page.get_by_test_id("block-0").wait_for(state="detached")
    page.get_by_test_id("group-compare-table").wait_for()
    assert page.evaluate(CELLS, "body") == in_report
    assert page.get_by_test_id("durability-warning").inner_text() == banner_text(api)
    assert page.get_by_label("pair ignoring").input_value() == "target"
    shot(page, "82-report-open-keeps-pair-ignore", full_page=False)

    # The one-click pairing of the second block opens the page paired across targets too.
    page.goto(f"{ui_server.url}/reports/durability")
    fix = page.get_by_test_id("block-1").get_by_test_id("pair-hint").get_by_role("link")
    assert fix.inner_text() == "Pair ignoring target"
    fix.click()
    page.get_by_test_id("block-0").wait_for(state="detached")  # the report left (lazy pages)
    page.get_by_test_id("group-compare-table").wait_for()
    page.wait_for_function("() => !document.body.innerText.includes('no series in both')")
    assert page.evaluate(CELLS, "body") == in_report

    # The export keeps the banner, the intervals, n and the verdicts.
    page.goto(f"{ui_server.url}/reports/durability")
    page.get_by_test_id("block-0").get_by_test_id("group-compare-table").wait_for()
    with page.expect_download() as info:
        page.get_by_test_id("export-html").click()
    path = tmp_path / "durability.html"
    info.value.save_as(path)
    offline = page.context.new_page()
    page.context.set_offline(True)
    try:
        offline.goto(path.as_uri())
        first = offline.locator("section[data-index='0']")
        assert first.locator("[data-banner=durability]").inner_text() == banner_text(api)
        text = first.inner_text()
        assert f"n {cell['samples']}" in text and in_report[0][0] in text
        assert text.count("not comparable (durability)") >= 1
        first.locator("details").first.evaluate("(d) => d.open = true")
        offline.set_viewport_size({"width": 1100, "height": 900})
        shot(offline, "83-exported-durability-banner")
    finally:
        page.context.set_offline(False)
        offline.close()


def banner_text(api: dict[str, Any]) -> str:
    return f"Durability differs. {api['warning']}"
