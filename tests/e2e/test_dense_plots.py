"""A plot of more points than SVG draws quickly, in a real browser: Explore over time of 2,400
runs is drawn by WebGL (frontend/src/components/charts/dense.ts), and a point still answers as
an SVG one does: its hover names its own run and value, and a click opens that run. A series'
history of 2,400 points is a median line over a p5–p95 band, SVG paths without a marker per
point, and its points answer the same way. A small plot stays SVG."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO, LiveServer, serve
from tests.e2e.conftest import shot, upload_runs, use_token
from tests.factories import run_body

WORKLOAD = "dense_history"
METRIC = "create.ops_per_s"
RUNS = 2400  # past DENSE_POINTS (2,000)
T0 = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)


@pytest.fixture
def dense_server(tmp_path: Path) -> Iterator[LiveServer]:
    if not (REPO / "frontend" / "dist" / "index.html").is_file():
        pytest.fail("the web UI is not built: run `make ui` (make test builds it first)")
    with serve("dense", tmp_path) as server:
        yield server


# The points hovered and clicked stand out, so that the point under the mouse is theirs (some
# three points share each pixel column of the plot).
SPIKES = {20: 300.0, 1234: 500.0, 2222: 400.0}


def _median(i: int) -> float:
    return 1010.0 + i % 97 + SPIKES.get(i, 0.0)


def _runs() -> list[dict[str, Any]]:
    return [
        run_body(
            uuid=str(uuid.UUID(int=i + 1, version=4)), workload=WORKLOAD,
            started_at=(T0 + dt.timedelta(minutes=10 * i)).isoformat(), finished_at=None,
            results=[{"metric": METRIC, "unit": "ops/s",
                      "samples": [_median(i) - 10, _median(i), _median(i) + 10]}],
        )
        for i in range(RUNS)
    ]  # fmt: skip


def _band_points(server: LiveServer, series_id: int) -> list[tuple[int, float, float]]:
    """(time in ms, band's low, band's high) of every point: p5 and p95 as the API answers them,
    a percentile on the wrong side of its median taken as the median."""
    answer = httpx.get(
        f"{server.url}/api/v1/series/{series_id}/points", params={"fields": "p5,p95"},
        headers={"Authorization": f"Bearer {server.read_token}"},
    ).json()  # fmt: skip
    out = []
    for t, m, p5, p95 in zip(
        answer["t"], answer["value"], answer["p5"], answer["p95"], strict=True
    ):
        ms = round(dt.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() * 1000)
        out.append((ms, min(m if p5 is None else p5, m), max(m if p95 is None else p95, m)))
    return out


def _envelope(
    points: list[tuple[int, float, float]], buckets: int
) -> list[tuple[int, float, float]]:
    """The band as the page draws it past two points a column, by a plain grouping: the points
    split by time into `buckets` equal spans, each span its first and last time with its lowest
    low and highest high."""
    if len(points) <= 2 * buckets:
        return points
    x0, span = points[0][0], points[-1][0] - points[0][0]
    spans: dict[int, list[tuple[int, float, float]]] = {}
    for p in points:
        spans.setdefault(min(buckets - 1, int((p[0] - x0) / span * buckets)), []).append(p)
    out = []
    for _, members in sorted(spans.items()):
        low = min(p[1] for p in members)
        high = max(p[2] for p in members)
        out.append((members[0][0], low, high))
        if len(members) > 1:
            out.append((members[-1][0], low, high))
    return out


def _band_drawn(page: Any) -> list[tuple[int, float, float]]:
    lows, highs = page.evaluate(
        "() => document.querySelector('.js-plotly-plot').data.slice(0, 2)"
        ".map(t => [t.x.map(v => typeof v === 'number' ? v : Date.parse(v)), t.y])"
    )
    assert lows[0] == highs[0]
    return [(round(x), lo, hi) for x, lo, hi in zip(lows[0], lows[1], highs[1], strict=True)]


def _point_on_screen(page: Any, index: int, trace: str | None = None) -> tuple[float, float]:
    """Where the plot draws point `index` of its trace named `trace` (else its first trace), in
    the page's pixels."""
    return page.evaluate(
        """([i, name]) => {
            const gd = document.querySelector('.js-plotly-plot');
            const L = gd._fullLayout;
            const t = name === null ? gd._fullData[0] : gd._fullData.find(d => d.name === name);
            const box = gd.querySelector('.main-svg').getBoundingClientRect();
            const x = L.xaxis.l2p(L.xaxis.d2l(t.x[i])) + L._size.l + box.left;
            const y = L.yaxis.l2p(L.yaxis.d2l(t.y[i])) + L._size.t + box.top;
            return [x, y];
        }""",
        [index, trace],
    )


def _hover_and_open(
    page: Any, index: int, run: dict[str, Any], what: str, trace: str | None = None
) -> None:
    x, y = _point_on_screen(page, index, trace)
    page.mouse.move(x, y)
    hover = page.locator(".hoverlayer .hovertext").first
    hover.wait_for()
    text = hover.text_content() or ""
    assert run["uuid"][:8] in text, (what, text)
    assert f"{_median(index):.0f}" in text.replace(",", ""), (what, text)
    page.mouse.click(x, y)
    page.wait_for_url(f"**/runs/{run['uuid']}")


def test_a_dense_history_is_drawn_as_lines_and_its_points_answer(
    page: Any, dense_server: LiveServer
) -> None:
    server = dense_server
    runs = _runs()
    for start in range(0, RUNS, 1000):
        upload_runs(server, runs[start : start + 1000], timeout=120)
    series = httpx.get(
        f"{server.url}/api/v1/series", params={"workload": WORKLOAD},
        headers={"Authorization": f"Bearer {server.read_token}"},
    ).json()["items"]  # fmt: skip
    (history,) = series
    use_token(page, server.read_token)

    page.goto(f"{server.url}/series/{history['id']}")
    page.wait_for_selector("[data-testid=plot][data-drawn='1']")
    types = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._fullData"
        ".map(t => [t.name, t.type, t.mode, t.x.length])"
    )
    # The band's edges and the median: three SVG paths, no marker per point; the median of every
    # point, the band drawn as its envelope two vertices a pixel column (1,100 columns).
    points = _band_points(server, history["id"])
    band = _envelope(points, 1100)
    assert types == [
        ["p5–p95 low", "scatter", "lines", len(band)],
        ["p5–p95", "scatter", "lines", len(band)],
        ["median", "scatter", "lines", RUNS],
    ], types
    assert len(band) <= 2200
    assert _band_drawn(page) == band
    # Zoomed by dragging over some 300 points, the band is drawn from the points in the range
    # shown (and one beyond each edge), every one of them; a double click draws the whole again.
    left, _ = _point_on_screen(page, 1000, "median")
    right, _ = _point_on_screen(page, 1300, "median")
    box = page.locator(".js-plotly-plot .nsewdrag").bounding_box()
    assert box is not None
    page.mouse.move(left, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move((left + right) / 2, box["y"] + box["height"] / 2, steps=5)
    page.mouse.move(right, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')._fullData[0].x.length < 400"
    )
    lo, hi = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._fullLayout.xaxis.range"
        ".map(v => typeof v === 'number' ? v : Date.parse(v.replace(' ', 'T') + 'Z'))"
    )
    inside = [i for i, p in enumerate(points) if lo <= p[0] <= hi]
    assert 250 < len(inside) < 350, len(inside)
    first, last = max(0, inside[0] - 1), min(len(points), inside[-1] + 2)
    assert _band_drawn(page) == points[first:last]
    shot(page, "dense-series-zoomed-band")
    page.mouse.dblclick((left + right) / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot')._fullData[0].x.length > 1000"
    )
    assert _band_drawn(page) == band
    assert page.locator(".js-plotly-plot .scatterlayer .point").count() == 0
    assert page.locator(".js-plotly-plot .scatterlayer path.js-fill").count() == 1
    # The summary says which points are shown, and the first one shown is the series' first.
    summary = page.get_by_test_id("series-summary").text_content() or ""
    assert summary.startswith(f"{RUNS:,} points · first ") and "shown" not in summary, summary
    shot(page, "dense-series-history")
    _hover_and_open(page, 1234, runs[1234], "series history", "median")

    page.goto(f"{server.url}/explore?workload={WORKLOAD}&metric={METRIC}")
    page.wait_for_selector("[data-testid=plot][data-drawn='1']")
    types = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._fullData.map(t => t.type)"
    )
    assert types == ["scattergl"], types
    count = page.evaluate("() => document.querySelector('.js-plotly-plot')._fullData[0].x.length")
    assert count == RUNS
    shot(page, "dense-explore-over-time")
    _hover_and_open(page, 2222, runs[2222], "explore over time")

    # Windows of 1,000 points, stepped back from the newest: each holds the newest 1,000 up to
    # the first point of the one after it (that point too), and the last the oldest 402.
    page.goto(f"{server.url}/series/{history['id']}")
    page.wait_for_selector("[data-testid=plot][data-drawn='1']")
    page.get_by_label("points shown").select_option("1000")
    page.wait_for_url("**points=1000**")
    summary = page.get_by_test_id("series-summary")
    for window, (first, last) in enumerate([(1400, 2399), (401, 1400), (0, 401)]):
        summary.filter(has_text=f"{last - first + 1:,} shown").wait_for()
        if window == 0:
            assert "(the newest 1,000 shown)" in (summary.text_content() or "")
        else:
            page.wait_for_url("**until=**")
        # The window shown meanwhile is the one before (kept while the next loads): wait for
        # this one's own first run.
        median = "document.querySelector('.js-plotly-plot')?.data?.find(t => t.name === 'median')"
        page.wait_for_function(f"(u) => {median}?.customdata?.[0] === u", arg=runs[first]["uuid"])
        shown = page.evaluate(f"() => {median}.customdata")
        assert shown == [r["uuid"] for r in runs[first : last + 1]], window
        older = page.get_by_role("button", name="← Older")
        if window < 2:
            older.click()
    assert older.count() == 0 and "the oldest, from" in (summary.text_content() or "")
    shot(page, "dense-series-oldest-window")
    page.get_by_role("button", name="Newest →").click()
    summary.filter(has_text="(the newest 1,000 shown)").wait_for()

    # A window asked for before a time to come holds the newest points, and says so: no way
    # "newer", the newest median shown.
    page.goto(f"{server.url}/series/{history['id']}?points=1000&until=2099-01-01T00:00:00Z")
    summary.filter(has_text="(the newest 1,000 shown)").wait_for()
    assert "newest median" in (summary.text_content() or "")
    assert page.get_by_role("button", name="← Older").count() == 1
    assert page.get_by_role("button", name="Newest →").count() == 0
    # A size not offered and a time that is not one, typed by hand: the default window, and an
    # address that says so.
    page.goto(f"{server.url}/series/{history['id']}?points=5000&until=yesterday")
    page.wait_for_function("() => location.search === ''")
    summary.filter(has_text=f"{RUNS:,} points · first ").wait_for()
    assert page.get_by_label("points shown").input_value() == "10000"


def test_a_small_plot_stays_svg(page: Any, dense_server: LiveServer) -> None:
    server = dense_server
    runs = _runs()[:50]
    upload_runs(server, runs)
    use_token(page, server.read_token)
    page.goto(f"{server.url}/explore?workload={WORKLOAD}&metric={METRIC}")
    page.wait_for_selector("[data-testid=plot][data-drawn='1']")
    types = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._fullData.map(t => t.type)"
    )
    assert types == ["scatter"], types
    assert page.locator(".js-plotly-plot .scatterlayer .point").count() == 50
    _hover_and_open(page, 20, runs[20], "a small plot")
