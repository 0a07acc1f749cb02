"""The trap in a real browser (tests/backend/explore/trap.py): Explore by version, one line per
agent, splits each line by fsync and memory-backed media and names what its points still mix,
with the one click that pools them; the heatmap's difference colours the 19 % drop under
fsync=file, leaves tmpfs's unchanged cells grey, and calls ext4 against tmpfs not comparable."""

from __future__ import annotations

import statistics
from typing import Any
from urllib.parse import parse_qs, urlparse

from tests.backend.explore import trap
from tests.conftest import LiveServer
from tests.e2e.conftest import shot, upload_runs, use_token

WORKLOAD = "trap_create"  # its own workload on the session's shared server
PLOT = "document.querySelector('.js-plotly-plot')"


def _runs() -> list[dict[str, Any]]:
    return [{**body, "workload": WORKLOAD} for body in trap.make_runs(seed=4040)]


def _median(runs: list[dict[str, Any]]) -> float:
    return statistics.median(statistics.median(r["results"][0]["samples"]) for r in runs)


def _traces(page: Any) -> dict[str, dict[str, Any]]:
    data = page.evaluate(
        f"""() => {PLOT}.data.map(t => ({{name: t.name, x: Array.from(t.x), y: Array.from(t.y),
            symbol: Array.from(t.marker.symbol)}}))"""
    )
    return {t["name"]: t for t in data}


def _wait_traces(page: Any, count: int) -> None:
    page.wait_for_function(f"() => {PLOT}?.data?.length === {count}")


def test_explore_splits_the_trap_and_the_heatmap_judges_noise(
    page: Any, ui_server: LiveServer
) -> None:
    runs = _runs()
    upload_runs(ui_server, runs)
    use_token(page, ui_server.read_token)
    base = f"{ui_server.url}/explore?workload={WORKLOAD}&metric={trap.METRIC}&x=fs_version"
    page.set_viewport_size({"width": 1280, "height": 1100})
    page.goto(f"{base}&group=agent")
    _wait_traces(page, 8)
    traces = _traces(page)
    assert set(traces) == {
        f"agent={a} · fsync={f} · memory_backed={m}"
        for a in trap.AGENTS for f in trap.FSYNC for m in ("false", "true")
    }  # fmt: skip
    # Each split line's points are the medians of exactly its runs.
    for name, trace in traces.items():
        agent, fsync, memory = (part.split("=")[1] for part in name.split(" · "))
        for version, y in zip(trace["x"], trace["y"], strict=True):
            subset = [
                r for r in runs
                if r["agent"] == agent and r["parameters"]["fsync"] == fsync
                and (r["environment"]["fs_type"] == "tmpfs") == (memory == "true")
                and r["labels"]["fs_version"] == version
            ]  # fmt: skip
            assert y == _median(subset), (name, version)
        # tmpfs points are diamonds: their fsync reaches no stable storage.
        assert set(trace["symbol"]) == {"diamond" if memory == "true" else "circle"}, name
    file_line = traces["agent=agent-a · fsync=file · memory_backed=false"]
    by_version = dict(zip(file_line["x"], file_line["y"], strict=True))
    assert 0.78 < by_version["2.2.2"] / by_version["2.2.1"] < 0.84
    note = page.get_by_test_id("explore-mixes").inner_text()
    assert "Split by fsync, memory_backed" in note
    assert "mixes target: /mnt/ext4, /mnt/xfs" in note and "mixes study: a, b" in note
    legend = page.get_by_test_id("explore-durability").inner_text()
    assert "tmpfs: memory-backed, fsync does not reach stable storage" in legend
    shot(page, "60-explore-trap-split", full_page=True)

    # One click pools them all: one line per agent, each point naming the fsync mix.
    page.get_by_role("link", name="pool all").click()
    _wait_traces(page, 2)
    assert parse_qs(urlparse(page.url).query)["split"] == ["none"]
    note = page.get_by_test_id("explore-mixes").inner_text()
    assert "mixes fsync: file, none" in note and "Pooled on purpose" in note
    pooled = _traces(page)["agent=agent-a"]
    agent_a = [r for r in runs if r["agent"] == "agent-a"]
    for version, y in zip(pooled["x"], pooled["y"], strict=True):
        assert y == _median([r for r in agent_a if r["labels"]["fs_version"] == version])
    shot(page, "61-explore-trap-pooled", full_page=True)
    # And one click splits by fsync again, pooling the rest.
    page.get_by_role("link", name="split by fsync", exact=True).click()
    _wait_traces(page, 4)
    assert parse_qs(urlparse(page.url).query)["split"] == ["none", "param.fsync"]

    # The heatmap's difference, 2.2.2 against 2.2.1 under fsync=file: disks drop 19 %, coloured;
    # tmpfs does not change: grey, "within noise" on hover.
    page.goto(
        f"{ui_server.url}/heatmap?workload={WORKLOAD}&metric={trap.METRIC}&x=fs_type&y=agent"
        "&filter=fsync:file&diff=fs_version&a=2.2.1&b=2.2.2"
    )
    page.wait_for_function(f"() => {PLOT}?.data?.length === 2")
    grid = page.evaluate(
        f"""() => {{ const [c, n] = {PLOT}.data;
            return {{x: Array.from(c.x), y: Array.from(c.y), z: c.z, neutral: n.z, text: n.text,
                     why: n.customdata}}; }}"""
    )
    assert grid["y"] == list(trap.AGENTS)
    for row, agent in enumerate(grid["y"]):
        for col, fs in enumerate(grid["x"]):

            def side(version: str, fs: str = fs, agent: str = agent) -> float:
                return _median([r for r in runs if r["agent"] == agent
                                and r["environment"]["fs_type"] == fs
                                and r["parameters"]["fsync"] == "file"
                                and r["labels"]["fs_version"] == version])  # fmt: skip

            change = (side("2.2.2") - side("2.2.1")) / side("2.2.1") * 100
            if fs == "tmpfs":
                assert grid["z"][row][col] is None and grid["neutral"][row][col] == 0
                assert grid["why"][row][col].startswith("within noise"), grid["why"][row][col]
            else:
                assert abs(grid["z"][row][col] - change) < 1e-9 and -22 < change < -16
                assert grid["neutral"][row][col] is None
    shot(page, "62-heatmap-diff-noise", full_page=False)

    # ext4 against tmpfs: not comparable, whatever the numbers say.
    page.goto(
        f"{ui_server.url}/heatmap?workload={WORKLOAD}&metric={trap.METRIC}&x=fs_version&y=agent"
        "&filter=fsync:file&diff=fs_type&a=ext4&b=tmpfs"
    )
    page.wait_for_function(f"() => {PLOT}?.data?.length === 2")
    grid = page.evaluate(
        f"() => {{ const [c, n] = {PLOT}.data; return {{z: c.z, text: n.text, why: n.customdata}}; }}"
    )
    assert all(v is None for row in grid["z"] for v in row)
    assert all(t == "not comparable" for row in grid["text"] for t in row)
    assert all(w.startswith("not comparable (durability)") for row in grid["why"] for w in row)
    shot(page, "63-heatmap-not-comparable", full_page=False)
