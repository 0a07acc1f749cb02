"""Confirm before alerting, in the browser: two scheduled series get a slow step, `perfatlas
check` (the detection the worker runs) holds both regressions for confirmation, and the
confirmation jobs are played over HTTP with the agent's token (claim → rounds → complete). One
re-run confirms a new version's slowdown (candidate and baseline in turns); the other re-runs a
one-off slow spell and finds the old level. The alerts list shows the confirmation under way;
each alert page shows the verdict, the medians and the runs, checked against the API and against
medians computed here from the uploaded samples."""

from __future__ import annotations

import datetime as dt
import os
import random
import re
import statistics
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.conftest import IDLE_QUEUE, REDIS_URL, LiveServer
from tests.e2e.conftest import shot
from tests.e2e.test_alerts import use_token
from tests.e2e.test_schedules import bearer, enroll
from tests.factories import within

expect.set_options(timeout=15_000)

AGENT = "confirm-host"
WORKLOAD = "command"
CMD = "e2e-bench --version {version}"
METRIC = "ops"
T0 = dt.datetime(2026, 8, 1, 6, 0, tzinfo=dt.UTC)
ROUNDS_MAX = 6


def samples(level: float, seed: int, n: int = 5, spread: float = 0.01) -> list[float]:
    return within(random.Random(seed), level, spread, n, digits=3)


def run(
    level: float, *, target: str, version: str, at: dt.datetime, seed: int, job_id: int | None
) -> dict[str, Any]:
    return {
        "uuid": str(uuid.uuid4()), "workload": WORKLOAD, "agent": AGENT, "agent_version": "0.9.0",
        "target": target, "parameters": {"cmd": CMD}, "labels": {"version": version},
        "started_at": at.isoformat(), "finished_at": (at + dt.timedelta(seconds=5)).isoformat(),
        "status": "ok", "environment": {"hostname": AGENT, "kernel": "6.1", "cores": 2},
        "results": [{"metric": METRIC, "unit": "ops/s", "samples": samples(level, seed)}],
        "job_id": job_id,
    }  # fmt: skip


@dataclass
class Case:
    target: str
    history: list[tuple[float, str]]  # (level, version) of the runs before the schedule's
    # What the confirmation's re-runs measure, by variant.
    rerun: dict[str, float]
    history_runs: list[dict[str, Any]] = field(default_factory=list)
    alert_id: int = 0
    job_id: int = 0
    plan: dict[str, Any] = field(default_factory=dict)
    rounds: list[list[dict[str, Any]]] = field(default_factory=list)  # the runs of each round

    def reruns(self) -> list[dict[str, Any]]:
        return [r for round_ in self.rounds for r in round_]


# A new version 20 % slower, confirmed by re-running both versions in turns.
SLOWER = Case("/mnt/confirm-a", [(1000.0, "1")] * 12 + [(800.0, "2")] * 4,
              {"candidate": 800.0, "baseline": 1000.0})  # fmt: skip
# A one-off slow spell on one version: the re-run finds the old level.
SPELL = Case("/mnt/confirm-b", [(1000.0, "1")] * 12 + [(800.0, "1")] * 4, {"candidate": 1000.0})


class Api:
    def __init__(self, url: str, admin: str, read: str, agent: dict[str, str]):
        self.url, self.agent = url, agent
        self.admin, self.read = bearer(admin), bearer(read)

    def call(self, method: str, path: str, headers: dict[str, str], **kw: Any) -> Any:
        resp = httpx.request(method, f"{self.url}/api/v1{path}", headers=headers, timeout=30, **kw)
        assert resp.status_code in (200, 201), f"{method} {path}: {resp.status_code} {resp.text}"
        return resp.json()

    def claim(self) -> dict[str, Any]:
        resp = httpx.post(f"{self.url}/api/v1/agents/jobs/claim", params={"wait": 0},
                          headers=self.agent, timeout=30)  # fmt: skip
        assert resp.status_code == 200, resp.text
        job: dict[str, Any] = resp.json()
        return job


def _schedule_and_history(api: Api, case: Case, name: str) -> None:
    """The schedule (fired now), the history uploaded by the agent, then the schedule's job
    completed with the newest run."""
    last_level, last_version = case.history[-1]
    api.call("POST", "/schedules", api.admin, json={
        "name": name, "spec": {"workload": WORKLOAD, "targets": [case.target],
                               "params": {"cmd": CMD}, "repetitions": 5,
                               "labels": {"version": last_version}},
        "agents": [AGENT], "when": "now"})  # fmt: skip
    case.history_runs = [
        run(level, target=case.target, version=version, at=T0 + dt.timedelta(hours=i),
            seed=i + (0 if case is SLOWER else 1000), job_id=None)
        for i, (level, version) in enumerate(case.history[:-1])
    ]  # fmt: skip
    api.call("POST", "/runs/batch", api.agent, json={"runs": case.history_runs})
    job = api.claim()
    assert job["kind"] == "run" and job["spec"]["targets"] == [case.target]
    newest = run(last_level, target=case.target, version=last_version,
                 at=T0 + dt.timedelta(hours=len(case.history) - 1),
                 seed=len(case.history) + (0 if case is SLOWER else 1000), job_id=job["id"])  # fmt: skip
    case.history_runs.append(newest)
    api.call("POST", f"/jobs/{job['id']}/complete", api.agent,
             json={"attempt": job["attempt"], "status": "succeeded", "runs": [newest]})  # fmt: skip


def _check(server: LiveServer) -> str:
    """The detection pass, as `perfatlas check` runs it against the live server's database."""
    env = {
        **os.environ, "PERFATLAS_DATABASE_URL": server.database_url,
        "PERFATLAS_BROKER_URL": REDIS_URL, "PERFATLAS_QUEUE": IDLE_QUEUE,
    }  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "perfatlas", "check"], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _round(api: Api, case: Case, job: dict[str, Any], number: int) -> dict[str, Any]:
    now = dt.datetime.now(dt.UTC)
    runs = []
    for i, variant in enumerate(case.plan["variants"]):
        body = run(case.rerun[variant["name"]], target=case.target,
                   version=variant["labels"]["version"], at=now + dt.timedelta(seconds=i),
                   seed=5000 + number * 10 + i + (0 if case is SLOWER else 500), job_id=job["id"])  # fmt: skip
        body["labels"] = variant["labels"]
        runs.append(body)
    case.rounds.append(runs)
    answer: dict[str, Any] = api.call(
        "POST",
        f"/jobs/{job['id']}/rounds",
        api.agent,
        json={"attempt": job["attempt"], "round": number, "runs": runs},
    )
    return answer


def _confirm(api: Api, case: Case, job: dict[str, Any]) -> str:
    """The agent's rounds until the server says stop, then the completion."""
    for number in range(1, ROUNDS_MAX + 1):
        answer = _round(api, case, job, number)
        if not answer["continue"]:
            break
    api.call("POST", f"/jobs/{job['id']}/complete", api.agent,
             json={"attempt": job["attempt"], "status": "succeeded", "runs": []})  # fmt: skip
    return str(answer["verdict"])


@dataclass
class Seeded:
    api: Api


@pytest.fixture(scope="module")
def confirmed(ui_server: LiveServer, seeded: object, browser: Any) -> Seeded:
    admin = bearer(ui_server.admin_token)
    api = Api(ui_server.url, ui_server.admin_token, ui_server.read_token,
              enroll(ui_server.url, admin, AGENT, {"role": "confirm"}))  # fmt: skip
    _schedule_and_history(api, SLOWER, "confirm-e2e-version")
    _schedule_and_history(api, SPELL, "confirm-e2e-spell")
    _check(ui_server)
    held = api.call("GET", "/alerts", api.read, params={"status": "confirming",
                                                        "workload": WORKLOAD})["items"]  # fmt: skip
    by_target = {a["series"]["target"]: a for a in held}
    assert set(by_target) == {SLOWER.target, SPELL.target}, held
    for case in (SLOWER, SPELL):
        alert = by_target[case.target]
        assert alert["incident_id"] is None and alert["confirmation"]["status"] == "queued"
        case.alert_id, case.job_id = alert["id"], alert["confirmation"]["job_id"]

    # One confirmation is under way (claimed, progress reported); the other waits.
    first = api.claim()
    assert first["kind"] == "confirm" and first["id"] in (SLOWER.job_id, SPELL.job_id)
    running, waiting = (SLOWER, SPELL) if first["id"] == SLOWER.job_id else (SPELL, SLOWER)
    running.plan = first["plan"]
    api.call("POST", f"/jobs/{first['id']}/progress", api.agent,
             json={"attempt": first["attempt"], "phase": "measure", "done": 0, "total": 2})  # fmt: skip
    page = browser.new_page()
    try:
        use_token(page, ui_server.read_token)
        page.goto(f"{ui_server.url}/alerts?status=confirming&workload={WORKLOAD}")
        notes = page.get_by_test_id("confirming-note")
        expect(notes).to_have_count(2)
        row = page.locator(f"tr[data-alert-id='{running.alert_id}']")
        expect(row.get_by_test_id("confirming-note")).to_have_text(
            f"being confirmed by job #{running.job_id} (round 1)"
        )
        other = page.locator(f"tr[data-alert-id='{waiting.alert_id}']")
        expect(other.get_by_test_id("confirming-note")).to_have_text(
            f"being confirmed by job #{waiting.job_id} (waiting for its agent)"
        )
        link = row.get_by_test_id("confirming-note").get_by_role("link")
        assert link.get_attribute("href") == f"/jobs/{running.job_id}"
        shot(page, "50-alerts-confirming")
    finally:
        page.close()

    second = api.claim()
    assert second["id"] == waiting.job_id
    waiting.plan = second["plan"]
    jobs = {first["id"]: first, second["id"]: second}
    assert _confirm(api, SLOWER, jobs[SLOWER.job_id]) == "different"
    assert _confirm(api, SPELL, jobs[SPELL.job_id]) == "same"
    return Seeded(api=api)


def _pct(value: float) -> str:
    return f"{value:.{1 if abs(value) < 10 else 0}f}"


def _verdict_words(conf: dict[str, Any], direction: str) -> str:
    """What the panel says, written here from the API's numbers."""
    if conf["verdict"] == "same":
        return "Not confirmed: the re-run matched the old level"
    change = conf["change_pct"]
    worse = change > 0 if direction == "lower" else change < 0
    lo, hi = sorted(abs(x) for x in conf["ci"])
    rounds = f"{conf['rounds']} round{'s' if conf['rounds'] != 1 else ''}"
    return (
        f"Confirmed: {abs(change):.1f} % {'slower' if worse else 'faster'} "
        f"(95 % interval {_pct(lo)}–{_pct(hi)} %) over {rounds}"
    )


def _shown(page: Any, test_id: str) -> tuple[float, float]:
    """(the exact value the element carries, the number its text shows)."""
    el = page.get_by_test_id("confirmation").get_by_test_id(test_id)
    text = el.inner_text().replace("\u2212", "-")  # a minus sign
    number = re.search(r"[-+]?[\d,]+(?:\.\d+)?", text)
    assert number is not None, text
    return float(el.get_attribute("data-value")), float(number.group(0).replace(",", ""))


def _check_page(page: Any, server: LiveServer, api: Api, case: Case, name: str) -> dict[str, Any]:
    alert: dict[str, Any] = api.call("GET", f"/alerts/{case.alert_id}", api.read)
    conf = alert["confirmation"]
    use_token(page, server.read_token)
    page.goto(f"{server.url}/alerts/{case.alert_id}")
    panel = page.get_by_test_id("confirmation")
    expect(panel.get_by_test_id("confirmation-verdict")).to_have_text(
        _verdict_words(conf, alert["series"]["direction"])
    )
    # The API's medians against medians of the uploaded samples.
    reruns = case.reruns()
    by_uuid = {r["uuid"]: r for r in reruns}
    assert [r["uuid"] for r in conf["runs"]] == [r["uuid"] for r in reruns]
    pooled: dict[str, list[float]] = {"candidate": [], "baseline": []}
    for api_run in conf["runs"]:
        uploaded = by_uuid[api_run["uuid"]]["results"][0]["samples"]
        assert api_run["median"] == statistics.median(uploaded)
        assert api_run["samples"] == uploaded
        pooled[api_run["variant"]] += uploaded
    if conf["mode"] == "baseline":
        base = statistics.median(pooled["baseline"])
    else:  # the history before the change: the runs before the step
        before = [r for r in case.history_runs if r["results"][0]["samples"][0] > 900]
        base = statistics.median([x for r in before for x in r["results"][0]["samples"]])
    cand = statistics.median(pooled["candidate"])
    assert conf["candidate_median"] == pytest.approx(cand, rel=1e-12)
    assert conf["baseline_median"] == pytest.approx(base, rel=1e-12)
    assert conf["change_pct"] == pytest.approx((cand - base) / base * 100, rel=1e-9)
    # The page shows the API's numbers (exactly in its data, rounded in its text).
    for test_id, want in (("confirmation-candidate", cand), ("confirmation-baseline", base),
                          ("confirmation-change", conf["change_pct"])):  # fmt: skip
        exact, text = _shown(page, test_id)
        assert exact == pytest.approx(want, rel=1e-12), test_id
        assert text == pytest.approx(want, abs=0.051), test_id  # 5 digits; the change: 0.1 %
    expect(panel.get_by_test_id("confirmation-rounds")).to_have_text(
        f"{conf['rounds']} of at most {conf['rounds_max']}"
    )
    rows = panel.get_by_test_id("confirmation-runs").locator("tbody tr")
    expect(rows).to_have_count(len(reruns))
    seen: dict[str, int] = {}
    for i, api_run in enumerate(conf["runs"]):
        row = rows.nth(i)
        seen[api_run["variant"]] = seen.get(api_run["variant"], 0) + 1
        assert row.get_attribute("data-run") == api_run["uuid"]
        assert row.locator("td").first.inner_text() == str(seen[api_run["variant"]])
        cell = row.get_by_test_id("run-median")
        assert float(cell.get_attribute("data-value")) == api_run["median"]
        shown = float(cell.inner_text().split()[0].replace(",", ""))
        assert shown == pytest.approx(api_run["median"], abs=0.01)
        assert row.get_by_role("link").get_attribute("href") == f"/runs/{api_run['uuid']}"
    job_link = panel.get_by_role("link", name=f"job #{case.job_id}")
    assert job_link.get_attribute("href") == f"/jobs/{case.job_id}"
    # The strip plot: every uploaded repetition of the candidate's runs, in order.
    page.wait_for_function(
        "() => document.querySelector(\"[data-testid='confirmation'] .js-plotly-plot\")?.data"
    )
    ys = page.evaluate(
        """() => Array.from(document.querySelector("[data-testid='confirmation'] .js-plotly-plot")
                 .data, t => ({ name: t.name, y: Array.from(t.y) }))"""
    )
    traces = {t["name"]: t["y"] for t in ys}
    candidates = [x for r in reruns if r["labels"] == case.plan["variants"][0]["labels"]
                  for x in r["results"][0]["samples"]]  # fmt: skip
    assert traces["candidate (new): repetitions"] == candidates
    shot(page, name)
    return alert


def test_a_confirmed_slowdown_on_its_alert_page(
    page: Any, ui_server: LiveServer, confirmed: Seeded
) -> None:
    alert = _check_page(page, ui_server, confirmed.api, SLOWER, "51-alert-confirmed")
    assert alert["status"] == "open" and alert["incident_id"] is not None
    assert alert["confirmation"]["verdict"] == "different"
    assert alert["confirmation"]["mode"] == "baseline"
    expect(page.get_by_test_id("alert-status")).to_contain_text("by confirmation")


def test_a_one_off_slow_spell_not_confirmed_on_its_alert_page(
    page: Any, ui_server: LiveServer, confirmed: Seeded
) -> None:
    alert = _check_page(page, ui_server, confirmed.api, SPELL, "52-alert-not-confirmed")
    assert alert["status"] == "resolved" and alert["resolution"] == "not_confirmed"
    assert alert["incident_id"] is None and alert["confirmation"]["mode"] == "history"
    expect(page.get_by_test_id("alert-status")).to_contain_text("found no change")
    # Only the candidate re-ran: its repetitions and run medians, against the history's level.
    names = page.evaluate(
        """() => Array.from(document.querySelector("[data-testid='confirmation'] .js-plotly-plot")
                 .data, t => t.name)"""
    )
    assert names == [
        "candidate (new): repetitions", "candidate (new): run median",
        "candidate median (all rounds)", "history median (before the change)",
    ]  # fmt: skip
