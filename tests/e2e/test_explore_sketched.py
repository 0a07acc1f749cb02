"""A plot past the server's exact limit in a real browser: its medians come from the digests'
sketches, within 0.5 % of the exact ones, the page says so beside the plot's summary, and its
link asks for the exact figures, which the plot then draws exactly (README.md, "Explore's
numbers"). The server here sketches every plot (PERFATLAS_EXPLORE_EXACT_RESULTS=0)."""

from __future__ import annotations

import datetime as dt
import random
import statistics
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.sketch import ALPHA
from perfatlas.rollups import service as rollups
from tests.conftest import REPO, LiveServer, serve
from tests.e2e.conftest import shot, upload_runs, use_token
from tests.factories import run_body

WORKLOAD = "sk_partialread"
METRIC = "read.mb_per_s"
T0 = dt.datetime(2026, 9, 1, tzinfo=dt.UTC)
LEVELS = {1: 410.0, 3: 380.0, 10: 300.0, 30: 190.0}


@pytest.fixture
def sketching_server(tmp_path: Path) -> Iterator[LiveServer]:
    if not (REPO / "frontend" / "dist" / "index.html").is_file():
        pytest.fail("the web UI is not built: run `make ui` (make test builds it first)")
    with serve("sketch", tmp_path, PERFATLAS_EXPLORE_EXACT_RESULTS="0") as server:
        yield server


def _runs() -> list[dict[str, Any]]:
    rng = random.Random(20261126)
    runs = []
    for i in range(160):
        k = list(LEVELS)[i % 4]
        host = f"lab-{i % 3}"
        runs.append(
            run_body(
                uuid=str(uuid.UUID(int=rng.getrandbits(128), version=4)), workload=WORKLOAD,
                agent=host, started_at=(T0 + dt.timedelta(minutes=i)).isoformat(),
                parameters={"k": k, "segsize": 131072},
                labels={"version": ("1.7.1", "1.8.2")[i % 2]},
                environment={"hostname": host, "kernel": "6.1.0", "fs_type": "ext4", "cores": 2},
                results=[{"metric": METRIC, "unit": "MB/s", "samples": [
                    round(LEVELS[k] * (1 + 0.04 * rng.random()), 2) for _ in range(5)]}],
            )
        )  # fmt: skip
    return runs


def _plotted(page: Any) -> dict[float, float]:
    trace = page.evaluate(
        "() => { const t = document.querySelector('.js-plotly-plot').data[0];"
        " return {x: Array.from(t.x), y: Array.from(t.y)}; }"
    )
    return dict(zip(trace["x"], trace["y"], strict=True))


def test_a_sketched_plot_says_so_and_links_to_the_exact_figures(
    page: Any, sketching_server: LiveServer
) -> None:
    server = sketching_server
    runs = _runs()
    # Half the runs folded into the digests, half still pending (sketched on the way).
    for part in (runs[:80], runs[80:]):
        upload_runs(server, part)
        if part is runs[:80]:
            with session_factory(get_engine(server.database_url))() as session:
                assert rollups.fold_pending(session).runs == 80
    exact = {
        float(k): statistics.median(
            statistics.median(r["results"][0]["samples"]) for r in runs if r["parameters"]["k"] == k
        )
        for k in LEVELS
    }
    use_token(page, server.read_token)
    page.goto(f"{server.url}/explore?workload={WORKLOAD}&metric={METRIC}&x=k")
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')?.data?.[0]?.x?.length === 4"
    )
    sketched = _plotted(page)
    assert sketched.keys() == exact.keys()
    for k, median in exact.items():
        assert abs(sketched[k] - median) <= ALPHA * median * 1.02, (k, sketched[k], median)
    assert sketched != exact  # sketched, not read from the records
    note = page.get_by_test_id("explore-approximate")
    assert "within ±0.5 %" in note.inner_text()
    assert "160 runs" in page.get_by_test_id("explore-summary").inner_text()
    shot(page, "85-explore-sketched", full_page=False)

    note.get_by_role("link", name="exact figures").click()
    page.wait_for_url("**exact=1**")
    page.wait_for_function(
        "want => { const t = document.querySelector('.js-plotly-plot')?.data?.[0];"
        " return t && Array.from(t.y).every((y, i) => Math.abs(y - want[t.x[i]]) < 1e-9 * y); }",
        arg={str(int(k)): v for k, v in exact.items()},
    )
    assert _plotted(page) == pytest.approx(exact, rel=1e-12)
    assert page.get_by_test_id("explore-approximate").count() == 0
    shot(page, "86-explore-exact-on-request", full_page=False)
