"""Alerts in the browser: a step in a series, found by `perfatlas check`, triaged from the UI;
the incident, the series' change marker, and notification settings."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.conftest import IDLE_QUEUE, REDIS_URL, LiveServer
from tests.e2e.conftest import shot
from tests.factories import run_body, within

WORKLOAD = "alerted_smallfile"
AGENT = "alert-host"
T0 = dt.datetime(2026, 9, 1, 6, 0, tzinfo=dt.UTC)
PLOT = ".js-plotly-plot"
WEBHOOK = "https://hooks.example.com/services/T000/B000/SeCrEtPaTh"


@dataclass
class Alerted:
    alert_id: int
    series_id: int
    incident_id: int
    change_at: str
    change_run: str
    previous_run: str


def step_runs() -> list[dict[str, Any]]:
    """15 nights at ~1000 ops/s on fs_version 6.1, then 10 at ~800 on 6.2 (1 % noise)."""
    rng = random.Random(5)
    runs = []
    for night in range(25):
        level, version = (1000.0, "6.1") if night < 15 else (800.0, "6.2")
        samples = within(rng, level, digits=2)
        body = run_body(
            uuid=str(uuid.uuid4()), workload=WORKLOAD, agent=AGENT, target="/mnt/xfs",
            parameters={"nfiles": 5000, "size": "4KiB"}, labels={"fs_version": version},
            started_at=(T0 + dt.timedelta(days=night)).isoformat(),
            results=[{"metric": "create.ops_per_s", "unit": "ops/s", "samples": samples}],
        )  # fmt: skip
        runs.append(body)
    return runs


@pytest.fixture(scope="module")
def alerted(ui_server: LiveServer, seeded: object) -> Alerted:
    """The step uploaded, then the detection pass run as the CLI runs it, against the live
    server's database."""
    headers = {"Authorization": f"Bearer {ui_server.upload_token}"}
    response = httpx.post(
        f"{ui_server.url}/api/v1/runs/batch",
        json={"runs": step_runs()},
        headers=headers,
        timeout=60,
    )
    response.raise_for_status()
    env = {
        **os.environ, "PERFATLAS_DATABASE_URL": ui_server.database_url,
        "PERFATLAS_BROKER_URL": REDIS_URL, "PERFATLAS_QUEUE": IDLE_QUEUE,
    }  # fmt: skip
    check = subprocess.run(
        [sys.executable, "-m", "perfatlas", "check"], env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    page = httpx.get(
        f"{ui_server.url}/api/v1/alerts", params={"workload": WORKLOAD}, headers=headers
    ).json()
    assert len(page["items"]) == 1, (check.stdout, page)
    alert = page["items"][0]
    assert alert["kind"] == "regression" and alert["incident_id"] is not None
    return Alerted(
        alert_id=alert["id"], series_id=alert["series"]["id"], incident_id=alert["incident_id"],
        change_at=alert["change_at"], change_run=alert["change_run"]["uuid"],
        previous_run=alert["previous_run"]["uuid"],
    )  # fmt: skip


def use_token(page: Any, token: str) -> None:
    """The token for this tab's first page; switch_token changes it later (a reload keeps it)."""
    page.add_init_script(
        "if (!sessionStorage.getItem('e2e-token-set')) {"
        f" localStorage.setItem('perfatlas.token', {json.dumps(token)});"
        " sessionStorage.setItem('e2e-token-set', '1'); }"
    )


def switch_token(page: Any, token: str) -> None:
    page.evaluate(f"localStorage.setItem('perfatlas.token', {json.dumps(token)})")
    page.reload()


def tab_count(page: Any, status: str) -> str:
    return page.get_by_test_id(f"tab-{status}").locator(".count").inner_text()


def test_an_alert_from_list_to_triage(page: Any, ui_server: LiveServer, alerted: Alerted) -> None:
    use_token(page, ui_server.read_token)
    page.goto(f"{ui_server.url}/alerts?workload={WORKLOAD}")
    table = page.get_by_test_id("alerts-table")
    table.wait_for()
    rows = table.locator("tbody tr")
    assert rows.count() == 1
    assert tab_count(page, "open") == "1" and tab_count(page, "expected") == "0"
    row_text = rows.first.inner_text()
    assert f"{WORKLOAD} · create.ops_per_s · {AGENT}" in row_text
    assert "-20" in row_text and "ops/s" in row_text and "fs_version 6.1 → 6.2" in row_text
    page.get_by_test_id("open-alerts-badge").wait_for()  # the nav counts open alerts
    shot(page, "20-alerts")

    rows.first.locator("td").nth(2).click()  # the row, not its link, opens the alert
    page.wait_for_url(re.compile(rf"/alerts/{alerted.alert_id}$"))
    page.wait_for_function(
        "() => (document.querySelector('.js-plotly-plot')?.layout?.shapes || []).length === 1"
    )
    figure = page.evaluate(
        """() => { const gd = document.querySelector('.js-plotly-plot');
            return { names: gd.data.map(t => t.name), y: Array.from(gd.data[0].y),
                     shapes: gd.layout.shapes.map(s => ({ x0: s.x0, dash: s.line.dash })) }; }"""
    )
    assert len(figure["y"]) == 25  # 15 before and 10 after: all within 30 either side
    assert figure["names"][1].startswith("before") and figure["names"][2].startswith("after")
    marker_at = dt.datetime.fromisoformat(str(figure["shapes"][0]["x0"]).replace("Z", "+00:00"))
    assert marker_at == dt.datetime.fromisoformat(alerted.change_at.replace("Z", "+00:00"))
    differences = page.get_by_test_id("differences-table")
    likely = differences.locator("tr[data-likely]")
    assert "fs_version" in likely.first.inner_text()
    assert "6.1" in likely.first.inner_text() and "6.2" in likely.first.inner_text()
    main = page.inner_text("main")
    assert "1,000" in main or "1000" in main
    links = {a.get_attribute("href") for a in page.locator("main a").all()}
    assert f"/runs/{alerted.previous_run}" in links and f"/runs/{alerted.change_run}" in links
    assert f"/series/{alerted.series_id}" in links
    assert f"/compare?runs={alerted.previous_run},{alerted.change_run}" in links
    shot(page, "21-alert-detail")

    # A read token may look but not triage: the page says which token it takes.
    page.get_by_role("button", name="Acknowledge").click()
    error = page.get_by_test_id("scope-error")
    error.wait_for()
    assert (
        "upload" in error.inner_text()
        and "perfatlas token create --scope upload" in error.inner_text()
    )
    shot(page, "22-alert-needs-upload-token", full_page=False)

    switch_token(page, ui_server.upload_token)
    page.get_by_role("button", name="Mark expected…").click()
    submit = page.get_by_role("button", name="Mark expected", exact=True)
    assert submit.is_disabled()  # the note is required
    page.get_by_role("textbox", name=re.compile("Why is this change expected")).fill(
        "fs_version 6.2 checksums the journal; accepted by the storage team"
    )
    submit.click()
    status = page.get_by_test_id("alert-status")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=alert-status]')?.innerText.startsWith('Expected')"
    )
    assert "live-upload" in status.inner_text()  # who changed it
    assert "checksums the journal" in page.get_by_test_id("alert-note").inner_text()
    shot(page, "23-alert-expected")

    page.get_by_role("link", name="← Alerts").click()
    page.wait_for_url(re.compile(r"/alerts$"))
    page.goto(f"{ui_server.url}/alerts?workload={WORKLOAD}")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=tab-expected] .count')?.innerText === '1'"
    )
    assert tab_count(page, "open") == "0"
    assert "No open alerts" in page.inner_text("main")
    page.get_by_test_id("tab-expected").click()
    page.wait_for_url(re.compile(r"status=expected"))
    page.get_by_test_id("alerts-table").wait_for()
    shot(page, "24-alerts-expected-tab")

    page.goto(f"{ui_server.url}/incidents/{alerted.incident_id}")
    incident_alerts = page.get_by_test_id("alerts-table")
    incident_alerts.wait_for()
    assert incident_alerts.locator(f"tr[data-alert-id='{alerted.alert_id}']").count() == 1
    assert "fs_version" in page.get_by_test_id("cause-table").inner_text()
    assert "Expected" in incident_alerts.inner_text()
    shot(page, "25-incident")
    page.goto(f"{ui_server.url}/incidents?status=all")
    page.get_by_test_id("incidents-table").wait_for()
    shot(page, "26-incidents")


def test_series_history_marks_the_change(
    page: Any, ui_server: LiveServer, alerted: Alerted
) -> None:
    use_token(page, ui_server.read_token)
    # The change points' answer held until the points are drawn: they join the plot without a
    # second draw of its points (one perfatlas:plot-start mark), laid over it by a relayout.
    held: list[Any] = []
    page.route("**/change-points*", lambda route: held.append(route))
    # Every time plotly sets a line's path (a draw of the points), counted by the browser.
    page.add_init_script(
        """window.__lineDraws = 0;
        new MutationObserver((records) => {
          for (const r of records) if (r.target.matches?.('.scatterlayer path.js-line')) window.__lineDraws += 1;
        }).observe(document, { subtree: true, attributes: true, attributeFilter: ['d'] });"""
    )
    page.goto(f"{ui_server.url}/series/{alerted.series_id}")
    page.wait_for_selector(f"{PLOT}[data-drawn='1']")
    flags = "(document.querySelector('.js-plotly-plot').layout.annotations || []).filter(a => a.captureevents)"
    assert page.evaluate(f"() => {flags}.length") == 0
    line_draws = page.evaluate("() => window.__lineDraws")
    assert line_draws > 0
    # (index.html asks for the change points before the app's code: their request is held by
    # now; the loop waits for the route's handler, should it come later)
    deadline = time.monotonic() + 30
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    held[0].continue_()
    page.wait_for_function(f"() => {flags}.length > 0")
    page.wait_for_function(
        "() => performance.getEntriesByName('perfatlas:overlay-drawn').length > 0"
    )
    assert page.evaluate("() => performance.getEntriesByName('perfatlas:plot-start').length") == 1
    assert page.evaluate("() => window.__lineDraws") == line_draws
    marks = page.evaluate(
        f"""() => {{ const gd = document.querySelector('.js-plotly-plot');
            const f = {flags};
            return {{ customdata: f.map(a => a.name), text: f.map(a => a.hovertext),
                     index: gd.layout.annotations.indexOf(f[0]),
                     traces: gd.data.map(t => t.name),
                     shapes: gd.layout.shapes.filter(s => !s.name?.startsWith('version:'))
                       .map(s => s.line.color),
                     versions: gd.layout.annotations.filter(a => !a.captureevents)
                       .map(a => a.text) }}; }}"""
    )
    assert marks["customdata"] == [f"alert:{alerted.alert_id}"]
    assert "regression" in marks["text"][0] and "fs_version 6.1 → 6.2" in marks["text"][0]
    # No trace of their own: the plot's traces are the points'.
    assert "change points" not in marks["traces"]
    # The change point's line; the version change beside it has its own mark (dotted, named).
    assert marks["shapes"] == ["#D55E00"]
    assert "fs_version 6.2" in marks["versions"]
    marker = page.locator(
        f"{PLOT} .infolayer g.annotation[data-index='{marks['index']}'] .annotation-text-g"
    )
    box = marker.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector(".hoverlayer .hovertext")
    assert "regression" in (page.locator(".hoverlayer .hovertext").first.text_content() or "")
    shot(page, "27-series-change-point", full_page=False)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_url(re.compile(rf"/alerts/{alerted.alert_id}$"))

    page.goto(f"{ui_server.url}/")
    panel = page.get_by_test_id("open-alerts-panel")
    panel.get_by_role("link", name="all alerts →").wait_for()
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=open-alerts-panel] [role=status]')"
    )
    shot(page, "28-overview-open-alerts")

    page.goto(f"{ui_server.url}/alerts/{alerted.alert_id}")
    page.get_by_role("button", name="Switch to dark theme").click()
    page.wait_for_selector(f"{PLOT} .main-svg")
    page.get_by_test_id("differences-table").wait_for()
    shot(page, "28b-alert-detail-dark")
    page.get_by_role("button", name="Switch to light theme").click()


def test_settings_channels_and_rules(page: Any, ui_server: LiveServer) -> None:
    use_token(page, ui_server.upload_token)
    page.goto(f"{ui_server.url}/settings")
    needed = page.get_by_test_id("admin-needed")
    needed.wait_for()
    assert "admin" in needed.inner_text()
    shot(page, "29-settings-needs-admin", full_page=False)

    switch_token(page, ui_server.admin_token)
    form = page.get_by_test_id("channel-form")
    form.get_by_label("name").fill("storage-team")
    form.get_by_label(re.compile("webhook URL")).fill(WEBHOOK)
    form.get_by_role("button", name="Add channel").click()
    row = page.locator("tr[data-channel='storage-team']")
    row.wait_for()
    assert "hooks.example.com" in row.inner_text()
    assert "SeCrEtPaTh" not in page.content()  # the URL's path is a secret: masked
    row.get_by_role("button", name="Send test").click()
    page.get_by_test_id("delivery-log").wait_for()
    assert "storage-team" in page.get_by_test_id("delivery-log").inner_text()
    row.get_by_label("storage-team enabled").click()
    page.wait_for_function(
        "() => document.querySelector(\"tr[data-channel='storage-team']\").innerText.includes('disabled')"
    )
    shot(page, "30-settings-channels")

    page.get_by_role("tab", name="Alert rules").click()
    page.wait_for_url(re.compile(r"tab=rules"))
    assert "%" in page.get_by_test_id("rule-defaults").inner_text()
    page.get_by_role("button", name="New rule").click()
    page.wait_for_url(re.compile(r"edit=new"))
    rule = page.get_by_test_id("rule-form")
    rule.get_by_label("name", exact=True).fill("quiet scratch host")
    rule.get_by_label("host (agent)").fill("scratch-1")
    rule.get_by_role("checkbox", name=re.compile("mute")).check()
    rule.get_by_role("button", name="Add rule").click()
    table = page.get_by_test_id("rules-table")
    table.wait_for()
    assert "agent=scratch-1" in table.inner_text() and "muted" in table.inner_text()
    shot(page, "31-settings-rules")
    table.get_by_role("button", name="Edit").click()
    page.get_by_test_id("rule-form").get_by_label("min change %").fill("15")
    page.get_by_test_id("rule-form").get_by_role("checkbox", name=re.compile("mute")).uncheck()
    page.get_by_role("button", name="Save rule").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=rules-table]')?.innerText.includes('15 %')"
    )
