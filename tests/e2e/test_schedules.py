"""Schedules, jobs and agents in the browser: a schedule made through the form (its preview), the
job it queues for the one matching agent, that agent's side played over HTTP (claim, progress
with log lines, completion with runs) while the Jobs page follows, the finished job's links to
its runs; cancelling a queued job, an enrollment token and revoking an agent from the UI."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright.sync_api import expect

from tests.conftest import LiveServer
from tests.e2e.conftest import shot, use_token
from tests.e2e.seed import Seeded
from tests.factories import run_body

expect.set_options(timeout=15_000)

WORKLOAD = "sched_smallfile"
TARGETS = ["/mnt/a", "/mnt/b"]
SIZES = ["4k", "64k"]
PARIS = ZoneInfo("Europe/Paris")
# The agents enrolled here, with their labels: a schedule for role=nightly and disk=nvme picks
# sched-a only.
AGENTS = {
    "sched-a": {"role": "nightly", "disk": "nvme"},
    "sched-b": {"role": "nightly", "disk": "sata"},
    "sched-c": {"role": "adhoc"},
}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Fleet:
    url: str
    admin: dict[str, str]
    tokens: dict[str, dict[str, str]]  # agent name → its Authorization header

    def api(self, method: str, path: str, *, agent: str | None = None, **kw: Any) -> httpx.Response:
        headers = self.tokens[agent] if agent else self.admin
        return httpx.request(method, f"{self.url}/api/v1{path}", headers=headers, timeout=30, **kw)

    def heartbeat_all(self) -> None:
        for name in AGENTS:
            resp = self.api("POST", "/agents/heartbeat", agent=name, json={"version": "0.9.0"})
            assert resp.status_code == 200, resp.text


def enroll(url: str, admin: dict[str, str], name: str, labels: dict[str, str]) -> dict[str, str]:
    """The agent's side of enrollment: an enrollment token (admin) spent by the agent."""
    resp = httpx.post(f"{url}/api/v1/agents/enrollment-tokens", json={}, headers=admin)
    assert resp.status_code == 201, resp.text
    enrollment = resp.json()["token"]
    resp = httpx.post(
        f"{url}/api/v1/agents/enroll",
        json={"enrollment_token": enrollment, "name": name, "labels": labels, "version": "0.9.0"},
    )
    assert resp.status_code == 201, resp.text
    return bearer(resp.json()["token"])


@pytest.fixture(scope="module")
def fleet(ui_server: LiveServer) -> Fleet:
    admin = bearer(ui_server.admin_token)
    tokens = {name: enroll(ui_server.url, admin, name, labels) for name, labels in AGENTS.items()}
    fleet = Fleet(url=ui_server.url, admin=admin, tokens=tokens)
    fleet.heartbeat_all()
    return fleet


def use_admin(page: Any, server: LiveServer) -> None:
    use_token(page, server.admin_token)


def next_paris_3am(count: int) -> list[str]:
    """The next `count` 03:00 wall-clock times in Paris, as the UI writes them in UTC (the
    browser's zone in these tests): an oracle independent of the server's croniter."""
    now = dt.datetime.now(dt.UTC)
    day = now.astimezone(PARIS).date()
    out: list[str] = []
    while len(out) < count:
        at = dt.datetime(day.year, day.month, day.day, 3, 0, tzinfo=PARIS).astimezone(dt.UTC)
        if at > now:
            out.append(at.strftime("%a %Y-%m-%d %H:%M"))
        day += dt.timedelta(days=1)
    return out


def job_runs(agent: str, started: dt.datetime) -> tuple[list[dict[str, Any]], list[float]]:
    """One run per point of the sweep (targets × sizes), as the agent would upload them."""
    runs, values = [], []
    for i, (target, size) in enumerate((t, s) for t in TARGETS for s in SIZES):
        value = 500.0 + 100 * i
        at = started + dt.timedelta(seconds=i)
        runs.append(
            run_body(
                uuid=str(uuid.uuid4()), workload=WORKLOAD, agent=agent, target=target,
                parameters={"size": size, "count": 100}, labels={"build": "e2e"},
                started_at=at.isoformat(), finished_at=(at + dt.timedelta(seconds=1)).isoformat(),
                environment={"hostname": agent, "kernel": "6.1.0", "fs_type": "ext4"},
                results=[{"metric": "create.ops_per_s", "unit": "ops/s", "samples": [value] * 3}],
            )
        )  # fmt: skip
        values.append(value)
    return runs, values


def when_kind(page: Any, label: str) -> Any:
    return page.locator(".when-kind label").filter(has_text=re.compile(f"^{re.escape(label)}$"))


def fill_form(page: Any) -> None:
    page.get_by_test_id("name").fill("nvme nightly")
    page.get_by_test_id("workload").fill(WORKLOAD)
    targets = page.get_by_role("textbox", name="targets")
    for target in TARGETS:
        targets.fill(target)
        targets.press("Enter")
    page.get_by_label("parameter 1 name").fill("size")
    page.get_by_label("parameter 1 values").fill(", ".join(SIZES))
    page.get_by_role("button", name="+ parameter").click()
    page.get_by_label("parameter 2 name").fill("count")
    page.get_by_label("parameter 2 values").fill("100")
    page.get_by_test_id("repetitions").fill("2")
    page.get_by_test_id("labels").fill("build=e2e")
    # the enrolled agents' labels are offered as chips
    page.get_by_role("button", name="+ role=nightly").click()
    page.get_by_role("button", name="+ disk=nvme").click()
    when_kind(page, "repeatedly (cron)").click()
    page.get_by_role("button", name="every day at 03:00").click()
    page.get_by_test_id("timezone").fill("Europe/Paris")


def test_schedule_from_form_to_job_to_runs(page: Any, ui_server: LiveServer, fleet: Fleet) -> None:
    fleet.heartbeat_all()
    use_admin(page, ui_server)
    page.goto(f"{ui_server.url}/schedules/new")
    fill_form(page)

    # The preview: 2 targets × 2 sizes = 4 runs on the one agent with both labels.
    runs_per_agent = len(TARGETS) * len(SIZES)
    count = page.get_by_test_id("preview-count")
    expect(count).to_have_text(
        f"{runs_per_agent} runs per agent × 1 agent = {runs_per_agent} runs at each firing"
    )
    expect(page.get_by_test_id("preview-agents")).to_have_text("Agents: sched-a")
    expect(page.get_by_test_id("cron-words")).to_have_text("every day at 03:00, Europe/Paris time")
    firings = page.get_by_test_id("preview-firings").locator("tbody tr")
    expect(firings).to_have_count(5)
    # in the browser's zone (UTC here), and in the schedule's: 03:00 in Paris each day
    shown = [row.locator("td").first.inner_text() for row in firings.all()]
    assert shown == next_paris_3am(5)
    assert all(row.locator("td").nth(1).inner_text().endswith(" 03:00") for row in firings.all())
    expect(page.get_by_test_id("save-schedule")).to_be_enabled()
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "38-schedule-form-preview")

    # A 422 is shown beside the field it names: a one-off in the past.
    when_kind(page, "once at…").click()
    page.get_by_test_id("once-at").fill("2020-01-01T06:00")
    expect(page.get_by_test_id("error-when")).to_contain_text("is in the past")
    expect(page.get_by_test_id("save-schedule")).to_be_disabled()
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "39-schedule-form-when-error")

    # Now: saving fires at once, one job for sched-a only.
    when_kind(page, "now").click()
    expect(count).to_have_text(f"{runs_per_agent} runs per agent × 1 agent = {runs_per_agent} runs")
    page.get_by_test_id("save-schedule").click()
    page.wait_for_url(re.compile(r"/schedules/\d+$"))
    schedule_id = int(page.url.rsplit("/", 1)[1])
    jobs = fleet.api("GET", "/jobs", params={"schedule": schedule_id}).json()["items"]
    assert [(j["agent"], j["status"]) for j in jobs] == [("sched-a", "queued")]
    job_id = jobs[0]["id"]
    firing = page.get_by_test_id("firings-table")
    expect(firing.locator("tbody tr")).to_have_count(1)
    expect(firing).to_contain_text(f"#{job_id} sched-a queued")
    assert "sched-b" not in firing.inner_text() and "sched-c" not in firing.inner_text()
    expect(page.get_by_test_id("schedule-facts")).to_contain_text("role=nightly and disk=nvme")
    shot(page, "40-schedule-detail-firing")

    page.get_by_role("link", name="Its jobs").click()
    page.wait_for_url(re.compile(rf"/jobs\?schedule={schedule_id}$"))
    rows = page.get_by_test_id("jobs-table").locator("tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("queued")
    expect(rows.first).to_contain_text("waiting for an agent · 4 runs")
    shot(page, "41-jobs-queued")

    # The agent's side: claim, then progress with log lines while the job page follows.
    claimed = fleet.api("POST", "/agents/jobs/claim", agent="sched-a", params={"wait": 0})
    assert claimed.status_code == 200, claimed.text
    assert claimed.json()["id"] == job_id
    attempt = claimed.json()["attempt"]
    started = dt.datetime.now(dt.UTC)
    lines = [f"run 1/4 {TARGETS[0]} size=4k: sample {i} 5{i}0 ops/s" for i in range(30)]
    progress = {
        "attempt": attempt, "phase": "measure", "percent": 25.0, "done": 1, "total": 4,
        "point": {"target": TARGETS[0], "size": "64k"}, "log": lines,
    }  # fmt: skip
    resp = fleet.api("POST", f"/jobs/{job_id}/progress", agent="sched-a", json=progress)
    assert resp.status_code == 200 and resp.json()["cancel"] is False, resp.text
    rows.first.get_by_role("link", name=f"#{job_id}").click()
    page.wait_for_url(re.compile(rf"/jobs/{job_id}$"))
    bar = page.get_by_test_id("job-progress")
    expect(bar).to_contain_text("measure · target=/mnt/a size=64k · run 1/4")
    expect(bar.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "25")
    log = page.get_by_test_id("job-log")
    expect(log).to_contain_text(lines[-1])

    more = [f"run 3/4 {TARGETS[1]} size=4k: sample {i} 7{i}0 ops/s" for i in range(10)]
    progress.update(percent=75.0, done=3, point={"target": TARGETS[1], "size": "4k"}, log=more)
    resp = fleet.api("POST", f"/jobs/{job_id}/progress", agent="sched-a", json=progress)
    assert resp.status_code == 200, resp.text
    expect(bar).to_contain_text("run 3/4")  # the page polls while the job runs
    expect(log).to_contain_text(more[-1])
    assert log.inner_text().splitlines() == lines + more
    # the log follows its end
    page.wait_for_function(
        """() => { const el = document.querySelector('[data-testid=job-log]');
                   return el.scrollTop + el.clientHeight >= el.scrollHeight - 2; }"""
    )
    expect(page.locator("h1")).to_contain_text("running")
    shot(page, "42-job-running")
    page.get_by_role("button", name="Switch to dark theme").click()
    shot(page, "42b-job-running-dark")
    page.get_by_role("button", name="Switch to light theme").click()

    # Completion with the runs: the page shows them, with links to Explore, Compare and each run.
    runs, values = job_runs("sched-a", started)
    resp = fleet.api(
        "POST", f"/jobs/{job_id}/complete", agent="sched-a",
        json={"attempt": attempt, "status": "succeeded", "log": ["all 4 runs done"], "runs": runs},
    )  # fmt: skip
    assert resp.status_code == 200, resp.text
    expect(page.locator("h1")).to_contain_text("succeeded")
    expect(bar).to_contain_text("finished · 4 runs stored")
    expect(bar.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "100")
    run_links = page.get_by_test_id("job-runs").get_by_role("link")
    expect(run_links).to_have_count(len(runs))
    uuids = [r["uuid"] for r in runs]  # started one second apart: the API's order
    assert [a.get_attribute("href") for a in run_links.all()] == [f"/runs/{u}" for u in uuids]
    links = page.get_by_test_id("job-run-links")
    compare = links.get_by_role("link", name="Compare the 4 runs")
    assert compare.get_attribute("href") == f"/compare?runs={','.join(uuids)}"
    explore = links.get_by_role("link", name="Explore create.ops_per_s")
    expect(explore).to_be_visible()
    expect(log).to_contain_text("all 4 runs done")
    shot(page, "43-job-finished")

    run_links.first.click()
    page.wait_for_url(re.compile(rf"/runs/{uuids[0]}$"))
    page.get_by_text(WORKLOAD).first.wait_for()
    page.go_back()
    explore = page.get_by_test_id("job-run-links").get_by_role(
        "link", name="Explore create.ops_per_s"
    )
    explore.click()
    page.wait_for_url(re.compile(r"/explore\?"))
    query = page.evaluate("() => new URLSearchParams(location.search).getAll('filter')")
    assert query[0] == "agent:sched-a" and query[1].startswith("time:")
    page.wait_for_function(
        "() => (document.querySelector('.js-plotly-plot')?.data || []).length > 0"
    )
    ys = page.evaluate(
        "() => document.querySelector('.js-plotly-plot').data.flatMap(t => Array.from(t.y || []))"
    )
    assert sorted(ys) == sorted(values)  # each run a point: its samples' value
    shot(page, "44-explore-from-job")

    # The list: when in words, the agents picked, the last firing's jobs; pause from the list.
    resp = fleet.api(
        "POST", "/schedules",
        json={"name": "nightly paris", "spec": {"workload": WORKLOAD, "targets": ["/mnt/a"]},
              "agents": ["role=nightly"], "when": "cron:0 3 * * *", "timezone": "Europe/Paris"},
    )  # fmt: skip
    assert resp.status_code == 201, resp.text
    page.goto(f"{ui_server.url}/schedules")
    nightly = page.locator("tr[data-schedule='nightly paris']")
    expect(nightly).to_contain_text("every day at 03:00 Europe/Paris")
    expect(nightly).to_contain_text("matches sched-a, sched-b")
    expect(nightly).to_contain_text(next_paris_3am(1)[0])
    made = page.locator("tr[data-schedule='nvme nightly']")
    expect(made).to_contain_text("now")
    expect(made).to_contain_text("succeeded ×1")
    expect(made.get_by_role("button", name="Pause")).to_have_count(0)  # fired: nothing to pause
    nightly.get_by_role("button", name="Pause").click()
    expect(nightly.get_by_role("button", name="Resume")).to_be_visible()
    expect(nightly).to_contain_text("none while paused")
    schedules = {s["name"]: s for s in fleet.api("GET", "/schedules").json()["items"]}
    assert schedules["nightly paris"]["paused"] is True
    assert schedules["nvme nightly"]["paused"] is False
    shot(page, "45-schedules")

    # Editing: renaming the fired "now" schedule does not fire it again (only changes are sent);
    # a new cron reads in words on its page.
    made.get_by_role("link", name="Edit").click()
    page.get_by_test_id("name").fill("nvme nightly (renamed)")
    expect(page.get_by_test_id("save-schedule")).to_be_enabled()
    page.get_by_test_id("save-schedule").click()
    page.wait_for_url(re.compile(rf"/schedules/{schedule_id}$"))
    expect(page.locator("h1")).to_have_text("nvme nightly (renamed)")
    assert len(fleet.api("GET", "/jobs", params={"schedule": schedule_id}).json()["items"]) == 1
    page.goto(f"{ui_server.url}/schedules/{schedules['nightly paris']['id']}/edit")
    page.get_by_role("button", name="weekdays at 06:00").click()
    expect(page.get_by_test_id("cron-words")).to_have_text(
        "on weekdays at 06:00, Europe/Paris time"
    )
    expect(page.get_by_test_id("save-schedule")).to_be_enabled()
    page.get_by_test_id("save-schedule").click()
    facts = page.get_by_test_id("schedule-facts")
    expect(facts).to_contain_text("on weekdays at 06:00 Europe/Paris")
    edited = fleet.api("GET", f"/schedules/{schedules['nightly paris']['id']}").json()
    assert (edited["when"], edited["timezone"], edited["paused"]) == (
        "cron:0 6 * * 1-5",
        "Europe/Paris",
        True,
    )


def test_cancel_a_queued_job(page: Any, ui_server: LiveServer, fleet: Fleet) -> None:
    resp = fleet.api(
        "POST", "/schedules",
        json={"name": "adhoc on b", "spec": {"workload": WORKLOAD, "targets": ["/mnt/b"]},
              "agents": ["sched-b"], "when": "now", "timezone": "UTC"},
    )  # fmt: skip
    assert resp.status_code == 201, resp.text
    (job,) = fleet.api("GET", "/jobs", params={"schedule": resp.json()["id"]}).json()["items"]
    assert (job["agent"], job["status"]) == ("sched-b", "queued")
    use_admin(page, ui_server)
    page.goto(f"{ui_server.url}/jobs?agent=sched-b&status=queued")
    row = page.locator(f"tr[data-job='{job['id']}']")
    expect(row).to_contain_text("queued")
    row.get_by_role("link", name=f"#{job['id']}").click()
    page.get_by_role("button", name="Cancel job…").click()
    page.get_by_role("button", name="Really cancel").click()
    expect(page.locator("h1")).to_contain_text("cancelled")
    expect(page.get_by_test_id("job-progress")).to_contain_text(
        "cancelled before an agent started it"
    )
    assert fleet.api("GET", f"/jobs/{job['id']}").json()["status"] == "cancelled"
    # nothing is left for sched-b to claim
    assert (
        fleet.api("POST", "/agents/jobs/claim", agent="sched-b", params={"wait": 0}).status_code
        == 204
    )
    shot(page, "46-job-cancelled")


def test_agents_enrollment_and_revoke(
    page: Any, ui_server: LiveServer, fleet: Fleet, seeded: Seeded
) -> None:
    fleet.heartbeat_all()
    use_admin(page, ui_server)
    page.goto(f"{ui_server.url}/agents")
    for name in AGENTS:
        row = page.locator(f"tr[data-agent='{name}']")
        expect(row).to_contain_text("online")
        expect(row).to_contain_text(re.compile(r"last heartbeat \d+ s ago"))
        expect(row.locator("td").nth(4)).to_have_text("just now")  # a heartbeat is being seen
    expect(page.locator("tr[data-agent='sched-a']")).to_contain_text("disk=nvme role=nightly")
    expect(page.locator("tr[data-agent='lab-1']")).to_contain_text("uploads only")
    shot(page, "47-agents")

    # A new enrollment token: shown once with the command; it enrolls a machine.
    page.get_by_role("button", name="New enrollment token").click()
    page.get_by_test_id("enroll-labels").fill("role=lab, rack=r2")
    page.get_by_role("button", name="Create token").click()
    command = page.get_by_test_id("enroll-command").inner_text().strip()
    prefix = f"perfatlas-agent enroll --server {ui_server.url} --enrollment-token "
    assert command.startswith(prefix), command
    token = command.removeprefix(prefix)
    assert re.fullmatch(r"pae_\S+", token), token
    shot(page, "48-enrollment-token", full_page=False)
    resp = httpx.post(
        f"{ui_server.url}/api/v1/agents/enroll",
        json={"enrollment_token": token, "name": "sched-new", "labels": {}},
    )
    assert resp.status_code == 201, resp.text
    assert resp.json()["labels"] == {"role": "lab", "rack": "r2"}
    page.get_by_role("button", name="Done").click()

    # Revoke sched-c: its token stops working.
    row = page.locator("tr[data-agent='sched-c']")
    row.get_by_role("button", name="Revoke…").click()
    row.get_by_role("button", name="Really revoke sched-c").click()
    expect(row).to_contain_text("revoked")
    expect(row.get_by_role("button", name="Revoke…")).to_have_count(0)
    listed = {a["name"]: a for a in fleet.api("GET", "/agents").json()}
    assert listed["sched-c"]["revoked"] is True and listed["sched-a"]["revoked"] is False
    resp = fleet.api("POST", "/agents/heartbeat", agent="sched-c", json={})
    assert resp.status_code == 401
    expect(page.locator("tr[data-agent='sched-new']")).to_contain_text("role=lab")
    shot(page, "49-agents-revoked")
