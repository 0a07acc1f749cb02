"""Compare in a real browser: noisy runs read "within noise", a real step is coloured with its
interval, a run of one repetition cannot be tested; groups of versions are paired series by
series, with several columns, filters, trust marks and the durability warning."""

from __future__ import annotations

import datetime as dt
import random
import re
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer
from tests.e2e.conftest import shot, upload_runs, use_token
from tests.factories import run_body, within
from tests.trap import trap_runs

WORKLOAD = "cmp_smallfile"
FS_WORKLOAD = "cmp_extract"
PHASES = ("create", "read_cold", "read_warm", "stat", "delete")
T0 = dt.datetime(2026, 10, 20, 8, 0, tzinfo=dt.UTC)


def login(page: Any, server: LiveServer) -> None:
    use_token(page, server.read_token)


@dataclass
class CompareSeed:
    base: str
    noisy: str


def _phase_results(rng: random.Random, factor: float, *, reps: int = 3) -> list[dict[str, Any]]:
    out = []
    for i, phase in enumerate(PHASES):
        ops = (i + 1) * 900.0 * (factor if phase == "create" else 1.0)

        def s(centre: float) -> list[float]:
            return within(rng, centre, n=reps, digits=4)

        out.append({"metric": f"{phase}.ops_per_s", "unit": "ops/s", "samples": s(ops)})
        out.append({"metric": f"{phase}.seconds", "unit": "s", "samples": s(1000 / ops)})
    return out


def _runs() -> tuple[list[dict[str, Any]], CompareSeed]:
    rng = random.Random(9)
    runs = []
    levels = {("lab-1", "/mnt/a"): 1.0, ("lab-1", "/mnt/b"): 3.0, ("lab-2", "/mnt/a"): 0.5,
              ("lab-2", "/mnt/b"): 8.0}  # fmt: skip
    counts = {"6.1": (3, 1), "6.5": (1, 3), "6.8": (1, 1)}
    factor = {"6.1": 1.0, "6.5": 0.78, "6.8": 1.01}
    for version, (on_a, on_b) in counts.items():
        for (agent, target), level in levels.items():
            for _ in range(on_a if target == "/mnt/a" else on_b):
                runs.append(run_body(
                    uuid=str(uuid.uuid4()), workload=WORKLOAD, agent=agent, target=target,
                    labels={"fs_version": version},
                    started_at=(T0 + dt.timedelta(minutes=len(runs))).isoformat(),
                    meta={"short_phases": ["stat"]} if version == "6.8" else {},
                    results=[{**r, "samples": [v * level for v in r["samples"]]}
                             for r in _phase_results(rng, factor[version])],
                ))  # fmt: skip
    # Two runs whose read speeds differ by their noise only (the xfs/ext4 pair), one
    # with a real slowdown in create and a single repetition of delete.
    base = run_body(
        uuid=str(uuid.uuid4()), workload="cmp_seqio", agent="lab-3", target="/mnt/ext4",
        started_at=T0.isoformat(),
        results=[{"metric": "write.mb_per_s", "unit": "MB/s", "samples": [650.0, 640.0, 645.0]},
                 {"metric": "read.mb_per_s", "unit": "MB/s", "samples": [400.0, 643.0, 656.0]},
                 {"metric": "seeks.per_s", "unit": "ops/s", "samples": [210.0, 205.0, 200.0]}],
    )  # fmt: skip
    noisy = run_body(
        uuid=str(uuid.uuid4()), workload="cmp_seqio", agent="lab-3", target="/mnt/xfs",
        started_at=(T0 + dt.timedelta(hours=1)).isoformat(),
        results=[{"metric": "write.mb_per_s", "unit": "MB/s", "samples": [518.0, 515.0, 512.0]},
                 {"metric": "read.mb_per_s", "unit": "MB/s", "samples": [484.0, 549.0, 706.0]},
                 {"metric": "seeks.per_s", "unit": "ops/s", "samples": [190.0]}],
    )  # fmt: skip
    env = run_body()["environment"]
    for agent in ("lab-1", "lab-2"):
        for fs, level in (("ext4", 120.0), ("tmpfs", 9000.0)):
            runs.append(run_body(
                uuid=str(uuid.uuid4()), workload=FS_WORKLOAD, agent=agent, target=f"/mnt/{fs}",
                fsync_policy="file", memory_backed=None if fs == "tmpfs" else False,
                started_at=T0.isoformat(), environment={**env, "fs_type": fs},
                results=[{"metric": "extract.files_per_s", "unit": "files/s",
                          "samples": [level, level * 1.02, level * 0.98]}],
            ))  # fmt: skip
    return [*runs, base, noisy], CompareSeed(base=base["uuid"], noisy=noisy["uuid"])


@pytest.fixture(scope="module")
def compare_seed(ui_server: LiveServer) -> CompareSeed:
    runs, seeded = _runs()
    upload_runs(ui_server, runs)
    return seeded


def test_noisy_runs_are_within_noise_and_a_step_is_worse(
    page: Any, ui_server: LiveServer, compare_seed: CompareSeed
) -> None:
    login(page, ui_server)
    page.goto(f"{ui_server.url}/compare?runs={compare_seed.base},{compare_seed.noisy}")
    table = page.get_by_test_id("compare-table")
    table.wait_for()
    rows = table.locator("tbody tr")
    read = rows.filter(has_text="read.mb_per_s").locator("td").nth(1)
    assert read.get_attribute("data-tone") == "noise"
    assert "within noise" in read.inner_text()
    assert "n 3" in read.inner_text() and "[" in read.inner_text()  # the interval is shown
    write = rows.filter(has_text="write.mb_per_s").locator("td").nth(1)
    assert write.get_attribute("data-tone") == "much-worse"
    assert re.search(r"-20 % \[-2\d % … -1\d %\]", write.inner_text()), write.inner_text()
    seeks = rows.filter(has_text="seeks.per_s").locator("td").nth(1)
    assert seeks.get_attribute("data-tone") == "few"
    assert "not enough repetitions" in seeks.inner_text()
    mark = seeks.get_by_test_id("trust-mark")
    assert "fewer than 3 repetitions" in mark.get_attribute("title")
    shot(page, "33-compare-noise")

    page.get_by_test_id("metric-picker").fill("*.mb_per_s")
    page.get_by_test_id("metric-picker").press("Enter")
    page.wait_for_url(re.compile(r"metric=\*\.mb_per_s"))
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=compare-table] tbody tr').length === 2"
    )
    names = table.locator("tbody th").all_inner_texts()
    assert [n.split("\n")[0] for n in names] == ["write.mb_per_s", "read.mb_per_s"]


def test_group_compare_pairs_series_across_three_versions(
    page: Any, ui_server: LiveServer, compare_seed: CompareSeed
) -> None:
    login(page, ui_server)
    page.goto(f"{ui_server.url}/compare?workload={WORKLOAD}&by=fs_version"
              "&value=6.1&value=6.5&value=6.8&metric=*.ops_per_s")  # fmt: skip
    table = page.get_by_test_id("group-compare-table")
    table.wait_for()
    assert table.locator("thead th").count() == 4  # the metric and three versions
    rows = table.locator("tbody tr")
    assert [t.split("\n")[0] for t in table.locator("tbody th").all_inner_texts()] == [
        f"{p}.ops_per_s" for p in PHASES
    ]
    create = rows.filter(has_text="create.ops_per_s").first
    step = create.locator("td").nth(1)
    assert step.get_attribute("data-tone") == "much-worse"
    summary = step.get_by_test_id("group-summary").inner_text()
    assert re.fullmatch(r"-2[12] % median over 4 series, 4 of 4 agree", summary), summary
    back = create.locator("td").nth(2)
    assert back.get_attribute("data-tone") == "noise"
    assert "0 of 4 agree" in back.inner_text()
    stat = rows.filter(has_text="stat.ops_per_s").first.locator("td").nth(2)
    assert "short_phase" in stat.get_by_test_id("trust-mark").get_attribute("data-flags")
    create.get_by_role("button", name=re.compile("series one by one")).click()
    breakdown = page.get_by_test_id("series-create.ops_per_s")
    breakdown.wait_for()
    assert breakdown.locator("tbody tr").count() == 4
    assert "agent=lab-1 target=/mnt/a" in breakdown.inner_text()
    shot(page, "34-compare-groups")

    page.goto(f"{ui_server.url}/compare?workload={WORKLOAD}&by=fs_version"
              "&value=6.1&value=6.5&metric=create.*&filter=agent:lab-2")  # fmt: skip
    table.wait_for()
    summary = table.get_by_test_id("group-summary").first.inner_text()
    assert "median over 2 series, 2 of 2 agree" in summary


TRAP = "cmp_trap"


@pytest.fixture(scope="module")
def trap_seed(ui_server: LiveServer) -> list[dict[str, Any]]:
    runs = trap_runs(TRAP)
    upload_runs(ui_server, runs)
    return runs


def test_group_compare_splits_the_headline_by_fsync(
    page: Any, ui_server: LiveServer, trap_seed: list[dict[str, Any]]
) -> None:
    """Issue 40's trap: 2.2.2 is 19 % slower under fsync=file only. The headline says so per
    fsync policy at the top level of the row, coloured, without expanding anything."""
    login(page, ui_server)
    page.goto(f"{ui_server.url}/compare?workload={TRAP}&by=fs_version&value=2.2.1&value=2.2.2")
    table = page.get_by_test_id("group-compare-table")
    table.wait_for()
    create = table.locator("tbody tr").filter(has_text="create.ops_per_s").first
    assert "split by fsync" in create.get_by_test_id("split-note").inner_text()
    cell = create.locator("td").nth(1)
    subsets = cell.get_by_test_id("subset")
    assert subsets.count() == 2
    file_, none = subsets.nth(0), subsets.nth(1)
    assert re.match(r"fsync=file: -(18|19|20) %, worse, 2 of 2", file_.inner_text()), (
        file_.inner_text()
    )
    assert file_.get_attribute("data-tone") == "much-worse" and file_.is_visible()
    assert (
        none.inner_text().startswith("fsync=none: within noise") and "2 of 2" in none.inner_text()
    )
    assert none.get_attribute("data-tone") == "noise"
    # The colours a reader sees: worse is red, within noise is not.
    red = file_.evaluate("e => getComputedStyle(e).backgroundColor")
    grey = none.evaluate("e => getComputedStyle(e).backgroundColor")
    assert red != grey
    assert "pooled" in cell.inner_text()  # the pooled figure is named as such
    base = create.locator("td").nth(0).get_by_test_id("subset")
    assert [t.split(":")[0] for t in base.all_inner_texts()] == ["fsync=file", "fsync=none"]
    shot(page, "40-compare-groups-split-fsync")


def test_tmpfs_against_ext4_with_fsync_file_is_not_comparable(
    page: Any, ui_server: LiveServer, trap_seed: list[dict[str, Any]]
) -> None:
    login(page, ui_server)
    # By the study's fs label: paired across targets by default, and not comparable.
    page.goto(f"{ui_server.url}/compare?workload={TRAP}&by=fs&value=ext4&value=tmpfs"
              "&filter=fsync:file&metric=create.ops_per_s")  # fmt: skip
    table = page.get_by_test_id("group-compare-table")
    table.wait_for()
    cell = table.locator("tbody td").nth(1)
    assert cell.get_attribute("data-tone") == "incomparable"
    text = cell.inner_text()
    assert "not comparable (durability): 1 of 1 series" in text and "memory-backed" in text
    assert "better" not in text and "%" not in text
    shot(page, "41-compare-groups-tmpfs-not-comparable")
    # Two runs side by side, the same.
    ext4, tmpfs = (
        next(r["uuid"] for r in trap_seed
             if r["target"] == f"/mnt/{fs}" and r["parameters"]["fsync"] == "file")
        for fs in ("ext4", "tmpfs")
    )  # fmt: skip
    page.goto(f"{ui_server.url}/compare?runs={ext4},{tmpfs}&metric=create.ops_per_s")
    run_cell = page.get_by_test_id("compare-table").locator("tbody td").nth(1)
    run_cell.wait_for()
    assert run_cell.get_attribute("data-tone") == "incomparable"
    assert "not comparable" in run_cell.inner_text() and "better" not in run_cell.inner_text()
    shot(page, "42-compare-runs-tmpfs-not-comparable")


def test_no_series_in_both_groups_offers_the_pairing_that_pairs_them(
    page: Any, ui_server: LiveServer, trap_seed: list[dict[str, Any]]
) -> None:
    """This machine's first-run ext4 runs against a reference column: another agent keeps
    them apart, the page names it and pairs them in one click; firstrun=true is no bar."""
    login(page, ui_server)
    page.goto(f"{ui_server.url}/compare?workload={TRAP}&by=fs&value=ext4&value=xfs-seed"
              "&metric=create.ops_per_s")  # fmt: skip
    hint = page.get_by_test_id("pair-hint")
    hint.wait_for()
    assert "differ in agent" in hint.inner_text()
    hint.get_by_role("link").click()
    page.wait_for_url(re.compile(r"pair_ignore=agent"))
    # the new answer replaces the old one: waited for, not slept on
    page.get_by_test_id("group-summary").filter(has_text="median over 1 series").wait_for()
    assert page.get_by_test_id("pair-hint").count() == 0
    shot(page, "43-compare-groups-pair-hint-followed")


def test_group_compare_warns_on_tmpfs_against_ext4(
    page: Any, ui_server: LiveServer, compare_seed: CompareSeed
) -> None:
    login(page, ui_server)
    page.goto(f"{ui_server.url}/compare?workload={FS_WORKLOAD}&by=fs_type&value=ext4&value=tmpfs")
    banner = page.get_by_test_id("durability-warning")
    banner.wait_for()
    assert "memory_backed" in banner.inner_text() and "tmpfs" in banner.inner_text()
    # Durability first: tmpfs is never "better" than ext4, whatever the figure.
    cell = page.get_by_test_id("group-compare-table").locator("tbody td").nth(1)
    assert cell.get_attribute("data-tone") == "incomparable"
    assert "not comparable (durability): 2 of 2 series" in cell.inner_text()
    assert "better" not in cell.inner_text()
    shot(page, "35-compare-groups-durability")


def test_group_compare_by_what_no_run_has_says_what_there_is(
    page: Any, ui_server: LiveServer, compare_seed: CompareSeed
) -> None:
    login(page, ui_server)
    page.goto(f"{ui_server.url}/compare?workload={FS_WORKLOAD}&by=firmware")
    empty = page.get_by_text(f"No run of {FS_WORKLOAD} has firmware.")
    empty.wait_for()
    # what the workload's runs do have, from the catalog (the oracle)
    catalog = httpx.get(
        f"{ui_server.url}/api/v1/catalog", params={"workload": FS_WORKLOAD},
        headers={"Authorization": f"Bearer {ui_server.read_token}"},
    ).json()["workloads"][0]  # fmt: skip
    own = sorted(set(catalog["labels"]) | set(catalog["parameters"]))
    assert own and "firmware" not in own
    advice = page.locator(".state", has_text="Group by").inner_text()
    assert f"({', '.join(own)})" in advice, advice
    # A dimension the runs have asks for its values instead.
    page.goto(f"{ui_server.url}/compare?workload={WORKLOAD}&by=fs_version")
    page.get_by_text("Choose two or more values of fs_version to compare.").wait_for()


def test_the_run_picker_lists_the_workloads_and_their_runs(
    page: Any, ui_server: LiveServer, compare_seed: CompareSeed
) -> None:
    login(page, ui_server)
    headers = {"Authorization": f"Bearer {ui_server.read_token}"}
    catalog = httpx.get(f"{ui_server.url}/api/v1/catalog", headers=headers).json()
    page.goto(f"{ui_server.url}/compare")
    picker = page.locator("label", has_text="workload").locator("select")
    picker.wait_for()
    picker.locator("option").nth(len(catalog["workloads"])).wait_for(state="attached")
    options = picker.locator("option").all_text_contents()
    assert options == ["any", *sorted(w["name"] for w in catalog["workloads"])]
    picker.select_option(FS_WORKLOAD)
    newest = httpx.get(
        f"{ui_server.url}/api/v1/runs", params={"workload": FS_WORKLOAD, "limit": 25},
        headers=headers,
    ).json()["items"]  # fmt: skip
    table = page.get_by_test_id("runs-table")
    page.wait_for_function(
        "(n) => document.querySelectorAll('[data-testid=runs-table] tbody tr').length === n",
        arg=len(newest),
    )
    rows = table.locator("tbody tr").all_inner_texts()
    assert all(FS_WORKLOAD in row and WORKLOAD not in row for row in rows), rows


def test_the_run_picker_pages_by_agent_and_keeps_what_is_picked(
    page: Any, ui_server: LiveServer
) -> None:
    # One agent's 30 runs: more than the picker's page of 25.
    runs = [
        run_body(workload="cmp_picked", agent="picker-host", environment={"hostname": "picker-host"},
                 started_at=(T0 + dt.timedelta(minutes=i)).isoformat())
        for i in range(30)
    ]  # fmt: skip
    upload_runs(ui_server, runs)
    newest_first = [r["uuid"] for r in reversed(runs)]
    login(page, ui_server)
    page.goto(f"{ui_server.url}/compare")
    agent = page.locator("label", has_text="agent").locator("select")
    agent.locator("option", has_text="picker-host").wait_for(state="attached")
    agent.select_option("picker-host")
    count = page.get_by_test_id("picker-count")
    count.filter(has_text="of 30").wait_for()
    assert count.inner_text() == "Runs 1–25 of 30 that match, newest first."
    page.get_by_label(f"select run {newest_first[0][:8]}").check()
    page.get_by_role("button", name="Older →").click()
    count.filter(has_text="26–30 of 30").wait_for()
    shown = page.get_by_test_id("runs-table").locator("tbody tr a").all_inner_texts()
    assert shown == [u[:8] for u in newest_first[25:]]
    page.get_by_label(f"select run {newest_first[29][:8]}").check()
    page.get_by_role("button", name="← Newer").click()
    count.filter(has_text="1–25 of 30").wait_for()
    assert page.get_by_label(f"select run {newest_first[0][:8]}").is_checked()
    page.get_by_role("button", name="Compare 2 runs").click()
    page.wait_for_url(re.compile(r"/compare\?runs="))
    assert page.url.endswith(f"runs={newest_first[0]}%2C{newest_first[29]}") or page.url.endswith(
        f"runs={newest_first[0]},{newest_first[29]}"
    )
    page.get_by_test_id("compare-table").wait_for()
    # Changing the runs starts from both picks, the baseline first.
    page.get_by_role("link", name="Change runs").click()
    page.get_by_text(f"2 picked, baseline {newest_first[0][:8]}").wait_for()
    page.get_by_role("button", name="Compare 2 runs").wait_for()
