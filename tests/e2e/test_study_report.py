"""A study, end to end in a real browser: `perfatlas-agent study run smallfiles-000 --quick` as
root on a loop-mounted ext4 image and a tmpfs, uploading to the live server; `perfatlas report
defaults` (the studies' default reports and seed 000's reference tables); the study's default
report shows those runs in every block (its tables' cells and its plot's points are the API's
answer for the same query, and the runs' own numbers), beside the seed's figures; its HTML export,
opened with the network cut off, holds the same table values and traces."""

from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.agent.conftest import run_agent
from tests.agent.studies.test_studies import needs_root
from tests.conftest import LiveServer
from tests.e2e.conftest import shot, use_token

SLUG = "study-smallfiles-000"
PHASES = ["create.seconds", "read_cold.seconds", "read_warm.seconds", "stat.seconds",
          "delete.seconds"]  # fmt: skip
PLOT = """(sel) => Array.from(document.querySelector(sel).data).map((t) => ({
    name: t.name, x: Array.from(t.x), y: Array.from(t.y)}))"""


def fmt(value: float, digits: int = 3) -> str:
    """lib/format.ts formatNumber: en-US, `digits` significant (more for >= 1000)."""
    a = abs(value)
    if a != 0 and (a >= 1e6 or a < 1e-3):
        mantissa, exp = f"{value:.2e}".split("e")
        return f"{mantissa}e{int(exp):+d}"  # toExponential(2): 7.00e-4
    d = max(digits, math.ceil(math.log10(a + 1)) if a >= 1000 else digits)
    text = f"{value:,.{d}g}"
    return text


def test_a_quick_study_and_its_default_report_in_the_browser(
    page: Any, ui_server: LiveServer, tmp_path: Path
) -> None:
    needs_root()
    agent = f"e2e-study-{uuid.uuid4().hex[:6]}"
    res = run_agent("study", "run", "smallfiles-000", "--quick", "--filesystems", "ext4,tmpfs",
                    "--image-dir", str(tmp_path / "images"), "--output", str(tmp_path / "o.json"),
                    "--agent-name", agent, "--server", ui_server.url,
                    "--token", ui_server.upload_token, spool=tmp_path / "spool", timeout=300)  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    assert sorted((r["labels"]["fs"], r["labels"]["mount"], r["parameters"]["fsync"])
                  for r in res.runs) == sorted(
        [("ext4", "default", f) for f in ("none", "file", "end")]
        + [("ext4", "sync", "none")] + [("tmpfs", "default", f) for f in ("none", "file", "end")]
    )  # fmt: skip
    env = {**os.environ, "PERFATLAS_DATABASE_URL": ui_server.database_url}
    installed = subprocess.run([sys.executable, "-m", "perfatlas", "report", "defaults",
                                "--replace"], env=env, capture_output=True, text=True,
                               timeout=120)  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert f"replaced\t{SLUG}" in installed.stdout or f"created\t{SLUG}" in installed.stdout

    read = {"Authorization": f"Bearer {ui_server.read_token}"}
    data = httpx.get(f"{ui_server.url}/api/v1/reports/{SLUG}/data", headers=read,
                     timeout=60).json()  # fmt: skip
    blocks = data["report"]["blocks"]
    assert [b["kind"] for b in blocks] == ["compare", "compare", "compare", "explore"]
    assert all(b["error"] is None for b in data["blocks"])
    # Each block's data is the compare / explore page's answer to the same query.
    for i in range(3):
        b = blocks[i]
        params = {"workload": b["workload"], "by": b["by"], "value": b["values"],
                  "filter": b["filter"], "metric": b["metric"]}  # fmt: skip
        if b.get("pair_ignore") is not None:
            params["pair_ignore"] = b["pair_ignore"]
        page_answer = httpx.get(f"{ui_server.url}/api/v1/compare/groups", headers=read,
                                params=params, timeout=60).json()  # fmt: skip
        assert "metrics" in page_answer, page_answer
        assert data["blocks"][i]["groups"]["metrics"] == page_answer["metrics"]
    b = blocks[3]
    explore = httpx.get(f"{ui_server.url}/api/v1/explore", headers=read, params={
        "workload": b["workload"], "metric": b["metric"], "x": b["x"], "group": b["group"],
        "filter": b["filter"]}, timeout=60).json()  # fmt: skip
    assert data["blocks"][3]["explore"]["traces"] == explore["traces"]

    # ... and the runs' own numbers: this study's runs are the only ones of their columns.
    def samples(fs: str, mount: str, metric: str) -> list[float]:
        return [s for r in res.runs if (r["labels"]["fs"], r["labels"]["mount"],
                                        r["parameters"]["fsync"]) == (fs, mount, "none")
                for x in r["results"] if x["metric"] == metric for s in x["samples"]]  # fmt: skip

    default, sync = data["blocks"][0]["groups"], data["blocks"][1]["groups"]
    expected: dict[tuple[int, str, str], float] = {}
    for index, table, mount in ((0, default, "default"), (1, sync, "sync")):
        assert [m["metric"] for m in table["metrics"] if m["metric"] in PHASES] == PHASES
        for m in table["metrics"]:
            for fs in ("ext4", "tmpfs") if mount == "default" else ("ext4",):
                cell = m["cells"][table["values"].index(fs)]
                if m["metric"] == "read.seconds":  # the seed's XFS only
                    assert cell["value"] is None
                    continue
                assert cell["runs"] == 1
                assert cell["value"] == pytest.approx(statistics.median(
                    samples(fs, mount, m["metric"])), rel=1e-9)  # fmt: skip
                expected[(index, m["metric"], fs)] = cell["value"]
    seed = {("nfs", "create.seconds"): 2.891, ("xfs-seed", "delete.seconds"): 1.114,
            ("coda", "create.seconds"): 49.017, ("coda", "delete.seconds"): 70.704}  # fmt: skip
    for (fs, metric), want in seed.items():
        table = sync if fs == "coda" else default
        m = next(m for m in table["metrics"] if m["metric"] == metric)
        assert m["cells"][table["values"].index(fs)]["value"] == want
        expected[(1 if fs == "coda" else 0, metric, fs)] = want
    # The seed's own Coda table: OLD, NEW, LOCAL as its columns, one value each.
    coda_table = data["blocks"][2]["groups"]
    seed_create = {"OLD": 49.017, "NEW": 40.309, "LOCAL": 12.399}
    for m in coda_table["metrics"]:
        for column, cell in zip(coda_table["values"], m["cells"], strict=True):
            assert cell["series"] == 1 and cell["runs"] == 1, (m["metric"], column)
            if m["metric"] == "create.seconds":
                assert cell["value"] == seed_create[column]
            expected[(2, m["metric"], column)] = cell["value"]
    trace_of = {t["group"]: t for t in explore["traces"]}
    for fs in ("ext4", "tmpfs"):
        by_fsync = {str(p["x"]): p["median"] for p in trace_of[fs]["points"]}
        for r in res.runs:
            if r["labels"]["fs"] == fs and r["labels"]["mount"] == "default":
                value = next(x["value"] for x in r["results"] if x["metric"] == "create.ops_per_s")
                assert by_fsync[r["parameters"]["fsync"]] == pytest.approx(value, rel=1e-9)

    # The report in the browser (reading needs a token).
    use_token(page, ui_server.read_token)
    page.goto(f"{ui_server.url}/reports/{SLUG}")
    page.get_by_test_id("report-notes").wait_for()
    assert "perfatlas-agent study run smallfiles-000 --quick" in page.get_by_test_id(
        "report-notes").inner_text()  # fmt: skip
    for index, table in ((0, default), (1, sync), (2, coda_table)):
        by = table["by"]
        box = page.get_by_test_id(f"block-{index}").get_by_test_id("group-compare-table")
        box.wait_for()
        heads = box.locator("thead th").all_inner_texts()
        for fs in table["values"]:
            assert any(h.startswith(f"{by} = {fs}") for h in heads), (fs, heads)
        for (i, metric, fs), want in expected.items():
            if i != index:
                continue
            row = box.locator("tbody > tr").filter(has_text=metric).first
            cell = row.locator("td").nth(table["values"].index(fs))
            assert cell.locator(".strong").inner_text().startswith(fmt(want)), (metric, fs)
    plot = "[data-testid=block-3] .js-plotly-plot"
    page.wait_for_function(f"() => document.querySelector('{plot}')?.data?.length >= 2")
    drawn = {t["name"]: t for t in page.evaluate(PLOT, plot)}
    for fs in ("ext4", "tmpfs"):
        points = trace_of[fs]["points"]
        assert drawn[f"fs={fs}"]["x"] == [p["x"] for p in points]
        assert drawn[f"fs={fs}"]["y"] == [p["median"] for p in points]
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, "78-study-report", full_page=False)
    box = page.get_by_test_id("block-0")
    box.get_by_role("button", name="series one by one").first.click()
    box.scroll_into_view_if_needed()
    shot(page, "79-study-report-tables")

    # The export, offline: the same table values and traces.
    with page.expect_download() as info:
        page.get_by_test_id("export-html").click()
    path = tmp_path / "study.html"
    info.value.save_as(path)
    offline = page.context.new_page()
    asked: list[str] = []
    offline.on("request", lambda r: asked.append(r.url))
    offline.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                  else route.abort())  # fmt: skip
    page.context.set_offline(True)
    try:
        offline.goto(path.as_uri())
        sel = ".plot[data-block='3']"
        offline.wait_for_function(f'() => document.querySelector("{sel}")?.data?.length >= 2')
        exported = {t["name"]: t for t in offline.evaluate(PLOT, sel)}
        assert {k: (v["x"], v["y"]) for k, v in exported.items()} == {
            k: (v["x"], v["y"]) for k, v in drawn.items()}  # fmt: skip
        tables = offline.locator("table[data-table=groups]")
        assert tables.count() == 3
        for index, table in ((0, default), (1, sync), (2, coda_table)):
            for (i, metric, fs), want in expected.items():
                if i != index:
                    continue
                row = tables.nth(index).locator("tbody tr").filter(has_text=metric).first
                cell = row.locator("td").nth(table["values"].index(fs)).inner_text()
                assert cell.startswith(fmt(want, 4)), (metric, fs, cell)
        offline.set_viewport_size({"width": 1100, "height": 900})
        shot(offline, "80-study-report-exported-offline")
    finally:
        page.context.set_offline(False)
        offline.close()
    assert [u for u in asked if not u.startswith(("file:", "data:", "blob:"))] == []
