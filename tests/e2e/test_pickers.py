"""Pickers offer what is stored (issue 40): every field that asks for a workload, metric,
dimension, value, parameter or agent lists, as a datalist, exactly what the seeded runs hold.

The runs go to a server of this test's own (its own database), so the oracle is the seeded
bodies alone: workloads, metrics, parameters, labels, their values and the agents, computed here
in plain Python from the bodies. The runs vary in every one of those, and not every agent runs
every value. A size typed in human units (segsize=128k) finds the runs of 131072 bytes, on the
Runs page (the server reads it) and in group compare (the picker turns it into the stored value).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer, serve
from tests.e2e.conftest import shot, upload_runs, use_token
from tests.factories import BASE_TIME, run_body

SEQ, TREE = "pk_seqio", "pk_tree"
KIB = 1024


def _runs() -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = []
    # seqio: three agents, three segment sizes (pk-a never ran 1 MiB), three versions
    for i, (agent, segsize, version) in enumerate(
        (a, s, v)
        for a in ("pk-a", "pk-b", "pk-c")
        for s in (64 * KIB, 128 * KIB, 1024 * KIB)
        for v in ("6.1", "6.2", "6.10")
        if not (a == "pk-a" and s == 1024 * KIB)
    ):
        runs.append(run_body(
            uuid=str(uuid.uuid4()), workload=SEQ, agent=agent, target="/mnt/ext4",
            parameters={"segsize": segsize, "size": 2**30, "direct": i % 2 == 0},
            labels={"fs_version": version, "build": "nightly" if i % 3 else "release"},
            started_at=(BASE_TIME + dt.timedelta(minutes=i)).isoformat(),
            results=[{"metric": "write.mb_per_s", "unit": "MB/s", "samples": [500.0, 510.0]},
                     {"metric": "read.mb_per_s", "unit": "MB/s", "samples": [600.0, 610.0]}],
        ))  # fmt: skip
    # tree walks: two of the agents, other parameters, labels and a metric of their own
    for i, (agent, threads) in enumerate((a, t) for a in ("pk-b", "pk-d") for t in (1, 2, 8, 16)):
        runs.append(run_body(
            uuid=str(uuid.uuid4()), workload=TREE, agent=agent, target="/srv/tree",
            parameters={"threads": threads, "depth": 3},
            labels={"mode": "cold" if i % 2 else "warm", "fs_version": "6.2"},
            started_at=(BASE_TIME + dt.timedelta(hours=1, minutes=i)).isoformat(),
            results=[{"metric": "walk.seconds", "unit": "s", "samples": [2.0, 2.1]}],
        ))  # fmt: skip
    return runs


RUNS = _runs()
# Agents that may be sent jobs (the schedule form offers these, with their labels); the others
# only uploaded runs.
ENROLLED = {"pk-b": {"role": "nightly"}, "pk-d": {"role": "nightly", "disk": "nvme"}}


def _natural(value: str) -> list[Any]:
    # 6.1 < 6.2 < 6.10, numbers as numbers, words after them (each value of one key is one kind)
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", value) if p]


def _values(values: set[Any]) -> list[str]:
    texts = {json.dumps(v) if isinstance(v, bool) else str(v) for v in values}
    return sorted(texts, key=_natural)


def workloads() -> list[str]:
    return sorted({r["workload"] for r in RUNS})


def agents(workload: str | None = None) -> list[str]:
    return sorted({r["agent"] for r in RUNS if workload in (None, r["workload"])})


def metrics(workload: str | None = None) -> list[str]:
    return sorted({m["metric"] for r in RUNS if workload in (None, r["workload"])
                   for m in r["results"]})  # fmt: skip


def keys(workload: str, kind: str) -> list[str]:
    return sorted({k for r in RUNS if r["workload"] == workload for k in r[kind]})


def values(workload: str | None, kind: str, key: str) -> list[str]:
    return _values({r[kind][key] for r in RUNS
                    if workload in (None, r["workload"]) and key in r[kind]})  # fmt: skip


def human_size(n: int) -> str:
    # the size as the picker labels it: whole KiB, MiB, GiB here
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, ui_server: LiveServer) -> Iterator[LiveServer]:
    """A server of this module's own, holding only RUNS (ui_server: the UI is built)."""
    with serve("pickers", tmp_path_factory.mktemp("pickers")) as own:
        admin = {"Authorization": f"Bearer {own.admin_token}"}
        for name, labels in ENROLLED.items():
            token = httpx.post(
                f"{own.url}/api/v1/agents/enrollment-tokens", json={}, headers=admin
            ).json()["token"]
            httpx.post(f"{own.url}/api/v1/agents/enroll", json={
                "enrollment_token": token, "name": name, "labels": labels, "version": "0.9.0",
            }).raise_for_status()  # fmt: skip
        upload_runs(own, RUNS)
        yield own


def offered(page: Any, test_id: str, expected: list[str]) -> list[tuple[str, str | None]]:
    """The (value, label) options of a datalist once its values are `expected` (or, after the
    wait, whatever they are, for the assertion's message)."""
    script = """([id, want]) => {
        const list = document.querySelector(`[data-testid="${id}"]`);
        const got = list ? [...list.querySelectorAll('option')].map(o => o.value) : [];
        return JSON.stringify(got) === JSON.stringify(want);
    }"""
    from playwright.sync_api import TimeoutError as Timeout

    with contextlib.suppress(Timeout):  # the assertion below says what was offered
        page.wait_for_function(script, arg=[test_id, expected], timeout=10_000)
    options = page.evaluate(
        """id => [...document.querySelectorAll(`[data-testid="${id}"] option`)]
              .map(o => [o.value, o.getAttribute('label')])""",
        test_id,
    )
    got = [(v, label) for v, label in options]
    assert [v for v, _ in got] == expected, (test_id, got)
    return got


def test_runs_and_series_filters_offer_what_is_stored(page: Any, server: LiveServer) -> None:
    use_token(page, server.read_token)
    page.goto(f"{server.url}/runs")
    offered(page, "runs-workload-choices", workloads())
    offered(page, "runs-agent-choices", agents())
    # no workload chosen: every workload's parameters and labels
    dims = sorted({*keys(SEQ, "parameters"), *keys(TREE, "parameters")}) + sorted(
        {*keys(SEQ, "labels"), *keys(TREE, "labels")}
    )
    offered(page, "runs-filter-dimension-choices", dims)

    # A workload picked from its list (typed, then Enter: the keyboard's way)
    page.get_by_test_id("runs-workload").fill(SEQ)
    page.get_by_test_id("runs-workload").press("Enter")
    page.wait_for_url(re.compile(f"workload={SEQ}"))
    offered(page, "runs-filter-dimension-choices", keys(SEQ, "parameters") + keys(SEQ, "labels"))
    offered(page, "runs-agent-choices", agents(SEQ))
    dim = page.get_by_test_id("runs-value-filter").get_by_label("filter dimension")
    dim.fill("segsize")
    sizes = offered(page, "runs-filter-value-choices", values(SEQ, "parameters", "segsize"))
    assert [label for _, label in sizes] == [
        human_size(int(v)) for v in values(SEQ, "parameters", "segsize")
    ]
    dim.fill("fs_version")
    offered(page, "runs-filter-value-choices", values(SEQ, "labels", "fs_version"))

    # segsize=128k typed in human units finds the runs of 131072 bytes
    dim.fill("segsize")
    value = page.get_by_test_id("runs-value-filter").get_by_label("filter value")
    value.fill("128k")
    value.press("Enter")
    page.get_by_test_id("param-filter").filter(has_text="segsize = 128 KiB").wait_for()
    want = sorted(r["uuid"][:8] for r in RUNS
                  if r["workload"] == SEQ and r["parameters"]["segsize"] == 128 * KIB)  # fmt: skip
    assert len(want) == 9
    page.get_by_test_id("runs-count").filter(has_text=f"Runs 1–{len(want)} that match").wait_for()
    rows = page.get_by_test_id("runs-table").locator("tbody tr").all()
    assert sorted(row.locator("td").nth(1).inner_text() for row in rows) == want
    assert "param=segsize%3A128k" in page.url
    shot(page, "pickers-runs-segsize-128k", full_page=False)
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "pickers-runs-segsize-128k-phone", full_page=False)
    page.set_viewport_size({"width": 1280, "height": 860})

    page.goto(f"{server.url}/series")
    offered(page, "series-workload-choices", workloads())
    offered(page, "series-metric-choices", metrics())
    offered(page, "series-agent-choices", agents())
    page.goto(f"{server.url}/series?workload={TREE}")
    offered(page, "series-metric-choices", metrics(TREE))
    offered(page, "series-agent-choices", agents(TREE))


def test_group_compare_offers_values_and_takes_human_units(page: Any, server: LiveServer) -> None:
    use_token(page, server.read_token)
    page.goto(f"{server.url}/compare?workload={SEQ}&by=segsize")
    choices = offered(page, "group-values-choices", values(SEQ, "parameters", "segsize"))
    assert [label for _, label in choices] == ["64 KiB", "128 KiB", "1 MiB"]
    groups = page.get_by_label("add a group")
    groups.fill("128k")
    groups.press("Enter")
    page.wait_for_url(re.compile(r"value=131072"))
    page.get_by_test_id("group-values").filter(has_text="128 KiB (baseline)").wait_for()
    # what is chosen is no longer offered; a size typed another way means the same stored value
    offered(page, "group-values-choices", ["65536", "1048576"])
    groups.fill("1 MiB")
    groups.press("Enter")
    page.wait_for_url(re.compile(r"value=131072&value=1048576"))
    page.get_by_test_id("group-compare-table").wait_for()
    pair = page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=pair-ignore-choices] option')]"
        ".map(o => [o.value, o.getAttribute('label')])"
    )
    assert [v for v, kind in pair if kind != "built-in"] == keys(SEQ, "parameters") + keys(
        SEQ, "labels"
    )
    assert {"agent", "fs_type", "target"} <= {v for v, kind in pair if kind == "built-in"}
    # the filter's dimension, then the values of the one chosen
    page.get_by_label("filter dimension").fill("fs_version")
    offered(page, "filters-value-choices", values(SEQ, "labels", "fs_version"))
    page.get_by_label("filter dimension").fill("agent")
    offered(page, "filters-value-choices", agents(SEQ))
    shot(page, "pickers-group-compare")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "pickers-group-compare-phone")
    page.set_viewport_size({"width": 1280, "height": 860})

    # grouped by agent: the workload's agents are the values
    page.goto(f"{server.url}/compare?workload={TREE}&by=agent")
    offered(page, "group-values-choices", agents(TREE))


def test_schedule_rules_alerts_jobs_and_incidents_offer_what_is_stored(
    page: Any, server: LiveServer
) -> None:
    use_token(page, server.admin_token)
    page.goto(f"{server.url}/schedules/new")
    offered(page, "workload-choices", workloads())
    page.get_by_test_id("workload").fill(SEQ)
    offered(page, "param-1-name-choices", keys(SEQ, "parameters"))
    page.get_by_label("parameter 1 name").fill("segsize")
    offered(page, "param-1-value-choices", values(SEQ, "parameters", "segsize"))
    # the values field is a list: the last item is completed after those typed
    page.get_by_label("parameter 1 values").fill("64k, ")
    offered(page, "param-1-value-choices",
            [f"64k, {v}" for v in values(SEQ, "parameters", "segsize")])  # fmt: skip
    pairs = [f"{k}={v}" for k in keys(SEQ, "labels") for v in values(SEQ, "labels", k)]
    offered(page, "labels-choices", pairs)
    # where: the enrolled agents and their labels, what a job can be sent to
    labels = {f"{k}={v}" for a in ENROLLED.values() for k, v in a.items()}
    offered(page, "agents-choices", sorted(ENROLLED) + sorted(labels))
    shot(page, "pickers-schedule-form")

    page.goto(f"{server.url}/settings?tab=rules")
    page.get_by_role("button", name="New rule").click()
    form = page.get_by_test_id("rule-form")
    offered(page, "rule-workload-choices", workloads())
    offered(page, "rule-metric-choices", metrics())
    offered(page, "rule-agent-choices", agents())
    form.locator("input[name=workload]").fill(TREE)
    offered(page, "rule-metric-choices", metrics(TREE))
    offered(page, "rule-agent-choices", agents(TREE))
    offered(page, "rule-label-key-choices", keys(TREE, "labels"))
    form.locator("input[name=label_key]").fill("mode")
    offered(page, "rule-label-value-choices", values(TREE, "labels", "mode"))

    page.goto(f"{server.url}/alerts")
    offered(page, "alerts-workload-choices", workloads())
    offered(page, "alerts-agent-choices", agents())
    every = sorted({*keys(SEQ, "labels"), *keys(TREE, "labels")})
    offered(page, "alerts-label-choices",
            [f"{k}:{v}" for k in every for v in values(None, "labels", k)])  # fmt: skip
    page.goto(f"{server.url}/jobs")
    offered(page, "jobs-agent-choices", agents())
    page.goto(f"{server.url}/incidents")
    offered(page, "incidents-agent-choices", agents())


def test_explore_filter_offers_the_workloads_values(page: Any, server: LiveServer) -> None:
    use_token(page, server.read_token)
    page.goto(f"{server.url}/explore?workload={TREE}&metric=walk.seconds&x=threads")
    page.get_by_label("filter dimension").fill("threads")
    offered(page, "filters-value-choices", values(TREE, "parameters", "threads"))
    page.get_by_label("filter dimension").fill("agent")
    offered(page, "filters-value-choices", agents(TREE))
    page.get_by_label("filter dimension").fill("env.KEY")  # free text stays possible
    page.get_by_label("filter value").fill("x")
    page.get_by_label("filter value").press("Enter")
    page.wait_for_url(re.compile(r"filter=env\.KEY%3Ax|filter=env\.KEY:x"))
