"""Every page of the app on a phone (390×844) with data in it: the document never scrolls
sideways (wide tables scroll in their own box), the navigation collapses behind a menu button
that opens it (by mouse and keyboard) with every link, and Explore's plot takes the width; the
same pages at 1280 px keep the inline navigation. Screenshots of each page at both widths."""

from __future__ import annotations

import datetime as dt
import os
import random
import subprocess
import sys
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.conftest import IDLE_QUEUE, REDIS_URL, LiveServer
from tests.e2e.conftest import shot, use_token
from tests.e2e.seed import SWEEP, TAR, Seeded
from tests.factories import run_body, within

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}
STEP = "phones_step"  # a workload of this module's own, with a regression for an alert
AGENT = "phones-agent"
SLUG = "phones-report"
# The Shell's links, in its order: the menu must show every one.
NAV = [
    "Overview", "Explore", "Heatmap", "Series", "Runs", "Compare", "Reports", "Schedules",
    "Jobs", "Agents", "Alerts", "Settings",
]  # fmt: skip
T0 = dt.datetime(2026, 8, 1, 6, 0, tzinfo=dt.UTC)


@dataclass
class World:
    """The ids of one of each thing a page shows."""

    series_id: int
    alert_id: int
    incident_id: int
    schedule_id: int
    job_id: int


def link_texts(nav: Any) -> list[str]:
    """The nav's links' words (without the count badge the Alerts link may carry)."""
    return [
        link.inner_text().strip().rstrip("0123456789").strip()
        for link in nav.get_by_role("link").all()
    ]


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _step_runs() -> list[dict[str, Any]]:
    """12 nights at ~1000 ops/s, then 8 at ~780 (1 % noise): one regression for `check`."""
    rng = random.Random(40)
    runs = []
    for night in range(20):
        level, version = (1000.0, "3.9") if night < 12 else (780.0, "3.10")
        samples = within(rng, level, digits=2)
        body = run_body(
            uuid=str(uuid.uuid4()), workload=STEP, agent="phones-host", target="/mnt/xfs",
            parameters={"nfiles": 5000}, labels={"fs_version": version},
            started_at=(T0 + dt.timedelta(days=night)).isoformat(),
            results=[{"metric": "create.ops_per_s", "unit": "ops/s", "samples": samples}],
        )  # fmt: skip
        runs.append(body)
    return runs


@pytest.fixture(scope="module")
def world(ui_server: LiveServer, seeded: Seeded) -> World:
    """An alert and its incident (found by `perfatlas check` as the CLI runs it), an enrolled
    agent with a schedule that queued a job for it, and a report of every block kind."""
    url, admin = ui_server.url, _bearer(ui_server.admin_token)
    httpx.post(
        f"{url}/api/v1/runs/batch", json={"runs": _step_runs()},
        headers=_bearer(ui_server.upload_token), timeout=60,
    ).raise_for_status()  # fmt: skip
    env = {
        **os.environ, "PERFATLAS_DATABASE_URL": ui_server.database_url,
        "PERFATLAS_BROKER_URL": REDIS_URL, "PERFATLAS_QUEUE": IDLE_QUEUE,
    }  # fmt: skip
    check = subprocess.run(
        [sys.executable, "-m", "perfatlas", "check"], env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    alerts = httpx.get(f"{url}/api/v1/alerts", params={"workload": STEP}, headers=admin).json()
    (alert,) = alerts["items"]

    resp = httpx.post(f"{url}/api/v1/agents/enrollment-tokens", json={}, headers=admin)
    assert resp.status_code == 201, resp.text
    resp = httpx.post(
        f"{url}/api/v1/agents/enroll",
        json={"enrollment_token": resp.json()["token"], "name": AGENT,
              "labels": {"role": "phones", "disk": "nvme"}, "version": "0.9.0"},
    )  # fmt: skip
    assert resp.status_code == 201, resp.text
    resp = httpx.post(
        f"{url}/api/v1/schedules", headers=admin,
        json={"name": "phones nightly", "spec": {"workload": STEP, "targets": ["/mnt/xfs"]},
              "agents": [AGENT], "when": "now", "timezone": "UTC"},
    )  # fmt: skip
    assert resp.status_code == 201, resp.text
    schedule_id = resp.json()["id"]
    jobs = httpx.get(f"{url}/api/v1/jobs", params={"schedule": schedule_id}, headers=admin)
    (job,) = jobs.json()["items"]

    report = {
        "slug": SLUG, "title": "Phones report", "notes": "Every block kind, read on a phone.",
        "blocks": [
            {"kind": "explore", "workload": SWEEP, "metric": "read.mb_per_s", "x": "k",
             "group": "version"},
            {"kind": "heatmap", "workload": SWEEP, "metric": "read.mb_per_s", "x": "k",
             "y": "segsize", "diff": "version", "a": "1.7.1", "b": "1.8.2"},
            {"kind": "markdown", "text": "The **newer** version reads faster."},
            {"kind": "compare", "workload": SWEEP, "by": "version", "values": ["1.7.1", "1.8.2"]},
            {"kind": "series", "series_id": alert["series"]["id"], "title": "The step"},
        ],
    }  # fmt: skip
    resp = httpx.post(f"{url}/api/v1/reports", json=report, headers=admin)
    assert resp.status_code == 201, resp.text
    return World(
        series_id=alert["series"]["id"], alert_id=alert["id"], incident_id=alert["incident_id"],
        schedule_id=schedule_id, job_id=job["id"],
    )  # fmt: skip


def routes(seeded: Seeded, world: World) -> list[tuple[str, str]]:
    """(name, path): every route of frontend/src/app/router.tsx, each with data to show."""
    return [
        ("overview", "/"),
        ("runs", "/runs"),
        ("run-detail", f"/runs/{seeded.safe_run}"),
        ("series", "/series"),
        ("series-history", f"/series/{world.series_id}"),
        ("explore", f"/explore?workload={SWEEP}&metric=read.mb_per_s&x=k&group=version"),
        ("heatmap", f"/heatmap?workload={SWEEP}&metric=read.mb_per_s&x=k&y=segsize"),
        ("compare-runs", f"/compare?runs={seeded.safe_run},{seeded.unsafe_run}"),
        ("compare-groups", f"/compare?workload={SWEEP}&by=version&value=1.7.1&value=trunk"),
        ("compare-groups-tar", f"/compare?workload={TAR}&by=server&a=zfs-safe&b=zfs-zil-disabled"),
        ("schedules", "/schedules"),
        ("schedule-new", "/schedules/new"),
        ("schedule", f"/schedules/{world.schedule_id}"),
        ("schedule-edit", f"/schedules/{world.schedule_id}/edit"),
        ("jobs", "/jobs"),
        ("job", f"/jobs/{world.job_id}"),
        ("agents", "/agents"),
        ("alerts", "/alerts?status=all"),
        ("alert", f"/alerts/{world.alert_id}"),
        ("incidents", "/incidents?status=all"),
        ("incident", f"/incidents/{world.incident_id}"),
        ("reports", "/reports"),
        ("report", f"/reports/{SLUG}"),
        ("report-edit", f"/reports/{SLUG}/edit"),
        ("settings", "/settings"),
        ("not-found", "/no/such/page"),
    ]


def open_page(page: Any, url: str) -> None:
    """Go to a page and wait until it has drawn what it loads: its heading, no loading state
    left, and every plot drawn."""
    page.goto(url)
    page.locator("main h1").first.wait_for()
    page.wait_for_function(
        """() => !document.querySelector('.state-loading')
            && Array.from(document.querySelectorAll('.js-plotly-plot'))
                .every(p => p.querySelector('.main-svg'))"""
    )


def overflow(page: Any) -> dict[str, Any]:
    """How far the document scrolls sideways, and the widest elements that stick out of the
    viewport (to name the culprit when it does)."""
    return page.evaluate(
        """() => {
            const width = window.innerWidth;
            const out = [];
            for (const el of document.querySelectorAll('body *')) {
                const r = el.getBoundingClientRect();
                if (r.right > width + 1 && r.width > 0) {
                    out.push(`${el.tagName.toLowerCase()}.${el.className}: ${Math.round(r.right)}`);
                }
            }
            return {scroll: document.documentElement.scrollWidth, width, culprits: out.slice(0, 8)};
        }"""
    )


def scroll_boxes_right(page: Any) -> int:
    """Scroll every box that scrolls sideways (a wide table's) to its right end, for a second
    screenshot of what is there; how many did."""
    return page.evaluate(
        """() => {
            let moved = 0;
            for (const el of document.querySelectorAll('main *')) {
                const style = getComputedStyle(el).overflowX;
                if ((style === 'auto' || style === 'scroll') && el.scrollWidth > el.clientWidth + 1) {
                    el.scrollLeft = el.scrollWidth;
                    moved += el.scrollLeft > 0 ? 1 : 0;
                }
            }
            return moved;
        }"""
    )


def test_every_page_on_a_phone(
    page: Any, ui_server: LiveServer, seeded: Seeded, world: World
) -> None:
    use_token(page, ui_server.admin_token)
    page.set_viewport_size(PHONE)
    wide: list[str] = []
    for name, path in routes(seeded, world):
        open_page(page, f"{ui_server.url}{path}")
        seen = overflow(page)
        if seen["scroll"] > seen["width"] + 1:
            wide.append(f"{name}: {seen}")
        # The menu is closed on every page it arrives at, and only its button shows.
        button = page.get_by_role("button", name="Menu")
        assert button.is_visible(), name
        assert button.get_attribute("aria-expanded") == "false", name
        assert not page.locator("nav[aria-label=Main]").is_visible(), name
        shot(page, f"phone-{name}")
        if scroll_boxes_right(page):
            shot(page, f"phone-{name}-scrolled")
    assert not wide, "pages that scroll sideways at 390 px:\n" + "\n".join(wide)


def test_the_phone_menu_opens_by_mouse_and_keyboard(
    page: Any, ui_server: LiveServer, seeded: Seeded
) -> None:
    use_token(page, ui_server.read_token)
    page.set_viewport_size(PHONE)
    open_page(page, f"{ui_server.url}/runs")
    button = page.get_by_role("button", name="Menu")
    nav = page.locator("nav[aria-label=Main]")
    assert button.get_attribute("aria-controls") == nav.get_attribute("id")
    assert not nav.is_visible()
    button.click()
    assert button.get_attribute("aria-expanded") == "true"
    assert page.get_by_role("navigation", name="Main").is_visible()
    links = nav.get_by_role("link")
    assert link_texts(nav) == NAV
    for link in links.all():  # each one on the screen, not clipped off its side
        box = link.bounding_box()
        assert link.is_visible() and box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1, box
    assert overflow(page)["scroll"] <= PHONE["width"] + 1
    shot(page, "phone-menu-open", full_page=False)
    # Following a link goes there and closes the menu.
    nav.get_by_role("link", name="Compare").click()
    page.wait_for_url(f"{ui_server.url}/compare")
    assert button.get_attribute("aria-expanded") == "false"
    assert not nav.is_visible()
    # By keyboard: Enter opens it, Tab reaches the first link, Escape closes it and gives the
    # focus back to the button.
    button.focus()
    page.keyboard.press("Enter")
    assert button.get_attribute("aria-expanded") == "true"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent.trim()") == NAV[0]
    page.keyboard.press("Escape")
    assert button.get_attribute("aria-expanded") == "false" and not nav.is_visible()
    assert page.evaluate("() => document.activeElement.getAttribute('aria-expanded')") == "false"
    page.keyboard.press("Space")
    assert button.get_attribute("aria-expanded") == "true"
    # A tap on the page below closes it too.
    page.locator("main h1").first.click()
    assert button.get_attribute("aria-expanded") == "false" and not nav.is_visible()


def test_explore_plot_takes_the_phone_width(
    page: Any, ui_server: LiveServer, seeded: Seeded
) -> None:
    use_token(page, ui_server.read_token)
    page.set_viewport_size(PHONE)
    open_page(
        page, f"{ui_server.url}/explore?workload={SWEEP}&metric=read.mb_per_s&x=k&group=version"
    )
    plot = page.locator(".js-plotly-plot").first
    box = plot.bounding_box()
    assert box is not None and box["width"] >= 0.9 * PHONE["width"], box
    # Plotly drew at that width (its SVG), not at the width of a column it started in.
    svg_width = page.evaluate(
        "() => document.querySelector('.js-plotly-plot .main-svg').getBoundingClientRect().width"
    )
    assert svg_width >= 0.9 * PHONE["width"] - 2, svg_width
    shot(page, "phone-explore-plot", full_page=False)


def test_add_to_report_stays_on_a_phone_screen(
    page: Any, ui_server: LiveServer, seeded: Seeded
) -> None:
    """The popover opens under a button near the left edge (Compare's) without leaving the
    screen."""
    use_token(page, ui_server.read_token)
    page.set_viewport_size(PHONE)
    open_page(page, f"{ui_server.url}/compare?runs={seeded.safe_run},{seeded.unsafe_run}")
    page.get_by_test_id("add-to-report").click()
    box = page.locator(".add-to-report .popover").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
    assert page.get_by_test_id("add-to-report-submit").is_visible()
    shot(page, "phone-add-to-report", full_page=False)


def test_every_page_on_a_desktop_keeps_the_inline_nav(
    page: Any, ui_server: LiveServer, seeded: Seeded, world: World
) -> None:
    """At 1280 px there is no menu button: the links stand in the top bar as before."""
    use_token(page, ui_server.admin_token)
    page.set_viewport_size(DESKTOP)
    wide: list[str] = []
    for name, path in routes(seeded, world):
        open_page(page, f"{ui_server.url}{path}")
        assert not page.get_by_role("button", name="Menu").is_visible(), name
        nav = page.locator("nav[aria-label=Main]")
        assert link_texts(nav) == NAV, name
        # All in the bar at once: none scrolled out of sight inside it.
        assert page.evaluate(
            "() => { const nav = document.querySelector('nav[aria-label=Main]');"
            " return nav.scrollWidth <= nav.clientWidth + 1; }"
        ), name
        seen = overflow(page)
        if seen["scroll"] > seen["width"] + 1:
            wide.append(f"{name}: {seen}")
        shot(page, f"desktop-{name}")
    assert not wide, "pages that scroll sideways at 1280 px:\n" + "\n".join(wide)
