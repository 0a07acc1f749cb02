"""The whole system at once, in the browser: `perfatlas serve` on PostgreSQL, a real `perfatlas
worker` with its beat on Redis, and two real `perfatlas-agent daemon` processes enrolled with
different labels (disk=nvme, disk=sata) running commands in folders of their own, all against the
server Chromium uses.

A schedule made through the form (now, disk=nvme) becomes one job, for the nvme agent only; the
Jobs page follows its progress and log while the daemon runs it (each point's first execution
waits for a gate file the test creates, so the test sees the job under way without racing it),
it finishes, and Explore, reached from the job, plots the values the runs have in the API. A
one-off a minute ahead (disk=sata) is fired by the worker's beat and run by the sata agent."""

from __future__ import annotations

import datetime as dt
import os
import re
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.agent.daemon_helpers import DaemonProcess, RestartableServer, enroll, wait_for
from tests.backend.alerts.conftest import BROKER_URL, Worker, worker_queue
from tests.conftest import REPO
from tests.e2e.conftest import shot, use_token

__all__ = ["worker_queue"]  # the session's own Redis queue (deleted at the end), for the worker

expect.set_options(timeout=15_000)

NVME, SATA = "fleet-nvme", "fleet-sata"
LABELS = {NVME: "disk=nvme", SATA: "disk=sata"}
REPETITIONS = 4  # and the form's warm-up: five executions per point
KS = [1, 2]
# Two metrics: a JSON object with a comma, typed into the form as one value.
ONCE_CMD = 'sleep 1; echo "{\\"v\\": $((7 * {k})), \\"w\\": 1}"'


@dataclass
class Machine:
    name: str
    root: Path
    daemon: DaemonProcess | None = None

    @property
    def target(self) -> Path:
        return self.root / "target"

    def log(self) -> str:
        assert self.daemon is not None
        return self.daemon.log()


@dataclass
class Stack:
    server: RestartableServer
    worker: Worker
    machines: dict[str, Machine]
    gates: Path
    counters: Path

    def jobs(self, **params: Any) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.server.get("/jobs", **params)["items"]
        return items


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, worker_queue: str) -> Iterator[Stack]:
    if not (REPO / "frontend" / "dist" / "index.html").is_file():
        pytest.fail("the web UI is not built: run `make ui` (make test builds it first)")
    root = tmp_path_factory.mktemp("fleet")
    server = RestartableServer(root, "fleet", queue=worker_queue)
    server.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    (root / "worker-data").mkdir()
    env.update(
        PERFATLAS_DATABASE_URL=server.database_url, PERFATLAS_BROKER_URL=BROKER_URL,
        PERFATLAS_QUEUE=worker_queue, PERFATLAS_DATA_DIR=str(root / "worker-data"),
    )  # fmt: skip
    worker = Worker(env, root)
    machines = {name: Machine(name, root / name) for name in LABELS}
    try:
        worker.start()
        for name, label in LABELS.items():
            machine = machines[name]
            enroll(server, machine.root / "config", name, label)
            machine.daemon = DaemonProcess(
                machine.root / "config", machine.root / "spool", machine.root / "daemon.log"
            )
        gates, counters = root / "gates", root / "counters"
        gates.mkdir()
        counters.mkdir()
        yield Stack(server=server, worker=worker, machines=machines, gates=gates,
                    counters=counters)  # fmt: skip
    finally:
        for machine in machines.values():
            if machine.daemon is not None:
                machine.daemon.stop()
        worker.stop()
        server.close()


def use_admin(page: Any, stack: Stack) -> None:
    use_token(page, stack.server.admin_token)


def both_online(stack: Stack) -> None:
    def probe() -> bool:
        agents = {a["name"]: a for a in stack.server.get("/agents")}
        return all(agents.get(name, {}).get("online") for name in LABELS)

    wait_for("both daemons to be online", probe)


def gated_command(stack: Stack) -> str:
    """A command for parameter k: the first execution of each point waits for the gate file
    gate-k; every execution takes a second and prints {"v": 100·k + n}, n counting this point's
    executions (1 is the warm-up, which the agent discards)."""
    count, gate = f"{stack.counters}/count-{{k}}", f"{stack.gates}/gate-{{k}}"
    return (
        f"n=$(( $(cat {count} 2>/dev/null || echo 0) + 1 )); echo $n > {count}; "
        f"while [ ! -e {gate} ]; do sleep 0.1; done; sleep 1; "
        'echo "{\\"v\\": $((100 * {k} + n))}"'
    )


def open_gate(stack: Stack, k: int) -> None:
    (stack.gates / f"gate-{k}").touch()


def when_kind(page: Any, label: str) -> Any:
    return page.locator(".when-kind label").filter(has_text=re.compile(f"^{re.escape(label)}$"))


def fill_spec(page: Any, *, name: str, target: Path, cmd: str, ks: str, reps: int) -> None:
    page.get_by_test_id("name").fill(name)
    page.get_by_test_id("workload").fill("command")
    targets = page.get_by_role("textbox", name="targets")
    targets.fill(str(target))
    targets.press("Enter")
    page.get_by_label("parameter 1 name").fill("cmd")
    page.get_by_label("parameter 1 values").fill(cmd)
    page.get_by_role("button", name="+ parameter").click()
    page.get_by_label("parameter 2 name").fill("k")
    page.get_by_label("parameter 2 values").fill(ks)
    page.get_by_test_id("repetitions").fill(str(reps))
    page.get_by_test_id("min-seconds").fill("0")
    page.get_by_test_id("labels").fill("build=e2e-fleet")


def job_line(line: str) -> bool:
    return re.search(r"\bjob \d+", line) is not None


def test_schedule_now_runs_on_the_nvme_daemon_only(page: Any, stack: Stack) -> None:
    both_online(stack)
    use_admin(page, stack)
    nvme = stack.machines[NVME]
    page.goto(f"{stack.server.url}/schedules/new")
    fill_spec(page, name="fleet nvme now", target=nvme.target, cmd=gated_command(stack),
              ks=", ".join(map(str, KS)), reps=REPETITIONS)  # fmt: skip
    # the enrolled agents' labels are offered as chips
    page.get_by_role("button", name="+ disk=nvme").click()
    when_kind(page, "now").click()
    expect(page.get_by_test_id("preview-count")).to_have_text("2 runs per agent × 1 agent = 2 runs")
    expect(page.get_by_test_id("preview-agents")).to_have_text(f"Agents: {NVME}")
    expect(page.get_by_test_id("sweep-count")).to_contain_text(
        f"1 target × the sweep = 2 runs per agent, each repeated {REPETITIONS} times"
    )
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "60-fleet-schedule-form")
    page.get_by_test_id("save-schedule").click()
    page.wait_for_url(re.compile(r"/schedules/\d+$"))
    schedule_id = int(page.url.rsplit("/", 1)[1])

    (job,) = stack.jobs(schedule=schedule_id)
    job_id = job["id"]
    assert job["agent"] == NVME and job["points"] == len(KS)
    assert job["spec"]["params"]["k"] == KS and job["spec"]["params"]["cmd"] == gated_command(stack)

    # The Jobs page: the nvme daemon took it and is held at k=1's warm-up (gate-1 closed).
    page.get_by_role("link", name="Its jobs").click()
    page.wait_for_url(re.compile(rf"/jobs\?schedule={schedule_id}$"))
    row = page.locator(f"tr[data-job='{job_id}']")
    expect(row).to_contain_text("running")
    # the point as the agent reports it: the parameters (the command's default timeout too)
    expect(row).to_contain_text("command · k=1 · run 0/2")
    expect(page.get_by_test_id("jobs-table").locator("tbody tr")).to_have_count(1)
    shot(page, "61-fleet-jobs-running")
    row.get_by_role("link", name=f"#{job_id}").click()
    page.wait_for_url(re.compile(rf"/jobs/{job_id}$"))
    bar = page.get_by_test_id("job-progress")
    log = page.get_by_test_id("job-log")
    expect(page.locator("h1")).to_contain_text("running")
    expect(bar).to_contain_text("run 0/2")
    expect(bar.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "0")
    expect(log).to_contain_text(re.compile(r"run 1/2: command .*\bk=1\b"))
    expect(log).to_contain_text("repetition 1/5 (warm-up, discarded)")
    planned = len(KS) * (REPETITIONS + 1)
    expect(log).to_contain_text(f"{planned} repetitions planned")
    assert "run 2/2" not in log.inner_text()
    shot(page, "62-fleet-job-point-1")

    # k=1 goes through its five executions; k=2 waits at its warm-up: half the repetitions done.
    open_gate(stack, 1)
    expect(bar).to_contain_text("k=2", timeout=60_000)
    expect(bar).to_contain_text("run 1/2")
    expect(bar.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "50")
    for rep in range(2, REPETITIONS + 2):
        expect(log).to_contain_text(f"repetition {rep}/5")
    expect(log).to_contain_text(re.compile(r"run 2/2: command .*\bk=2\b"))
    lines = log.inner_text().splitlines()
    reps = [line for line in lines if re.match(r"repetition \d+/5", line.strip())]
    assert len(reps) == REPETITIONS + 2  # k=1's five, k=2's first
    live = stack.server.job(job_id)
    assert live["status"] == "running" and live["leased_by"] == NVME
    assert live["progress"]["done"] == 1 and live["progress"]["percent"] == 50
    assert [r for r in live["log_tail"] if "run 2/2" in r], live["log_tail"]
    expect(page.locator("h1")).to_contain_text("running")
    shot(page, "63-fleet-job-point-2")

    # The sata daemon got nothing: no job for it, and its log mentions none.
    assert stack.jobs(agent=SATA) == []
    assert not [line for line in stack.machines[SATA].log().splitlines() if job_line(line)]

    open_gate(stack, 2)
    expect(page.locator("h1")).to_contain_text("succeeded", timeout=60_000)
    expect(bar).to_contain_text("finished · 2 runs stored")
    expect(bar.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "100")
    done = stack.server.job(job_id)
    assert done["status"] == "succeeded" and done["attempts"] == 1
    run_links = page.get_by_test_id("job-runs").get_by_role("link")
    expect(run_links).to_have_count(2)
    assert sorted(a.inner_text() for a in run_links.all()) == sorted(done["runs"])

    # The runs in the API: the samples the command printed, the warm-up left out.
    values = {}
    for uuid in done["runs"]:
        run = stack.server.get(f"/runs/{uuid}")
        assert run["agent"] == NVME and run["job_id"] == job_id
        assert run["labels"] == {"build": "e2e-fleet"} and run["target"] == str(nvme.target)
        (result,) = [r for r in run["results"] if r["metric"] == "v"]
        k = run["parameters"]["k"]
        samples = [float(100 * k + n) for n in range(2, REPETITIONS + 2)]
        assert result["samples"] == samples
        assert result["value"] == statistics.median(samples)
        values[uuid] = result["value"]
    assert sorted(values.values()) == [103.5, 203.5]
    shot(page, "64-fleet-job-finished")

    # Explore, from the job: one point per run, at the run's value.
    explore = page.get_by_test_id("job-run-links").get_by_role("link", name="Explore v")
    explore.click()
    page.wait_for_url(re.compile(r"/explore\?"))
    query = page.evaluate("() => new URLSearchParams(location.search).getAll('filter')")
    assert query[0] == f"agent:{NVME}" and query[1].startswith("time:")
    page.wait_for_function(
        "() => (document.querySelector('.js-plotly-plot')?.data || []).length > 0"
    )
    ys = page.evaluate(
        "() => document.querySelector('.js-plotly-plot').data.flatMap(t => Array.from(t.y || []))"
    )
    assert sorted(ys) == sorted(values.values())
    shot(page, "65-fleet-explore-from-job")
    # Still nothing for sata, and the nvme daemon ran exactly this one job.
    assert stack.jobs(agent=SATA) == []
    assert [j["id"] for j in stack.jobs(agent=NVME)] == [job_id]
    assert not [line for line in stack.machines[SATA].log().splitlines() if job_line(line)]


def test_a_one_off_a_minute_ahead_is_fired_by_the_beat(page: Any, stack: Stack) -> None:
    both_online(stack)
    use_admin(page, stack)
    sata = stack.machines[SATA]
    now = dt.datetime.now(dt.UTC)
    # A whole minute (the form's precision) at least 40 s ahead.
    at = (now + dt.timedelta(seconds=100)).replace(second=0, microsecond=0)
    page.goto(f"{stack.server.url}/schedules/new")
    fill_spec(page, name="fleet sata once", target=sata.target,
              cmd=ONCE_CMD, ks="6", reps=2)  # fmt: skip
    # a command with commas is one value (the form does not sweep a command's pieces)
    expect(page.get_by_test_id("param-rows")).to_contain_text("fixed")
    expect(page.get_by_test_id("param-rows")).not_to_contain_text("sweeps")
    page.get_by_role("button", name="+ disk=sata").click()
    when_kind(page, "once at…").click()
    page.get_by_test_id("once-at").fill(at.strftime("%Y-%m-%dT%H:%M"))  # the browser is in UTC
    page.get_by_test_id("timezone").fill("UTC")
    expect(page.get_by_test_id("preview-agents")).to_have_text(f"Agents: {SATA}")
    firings = page.get_by_test_id("preview-firings").locator("tbody tr")
    expect(firings).to_have_count(1)
    expect(firings.first.locator("td").first).to_have_text(at.strftime("%a %Y-%m-%d %H:%M"))
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "66-fleet-once-form")
    page.get_by_test_id("save-schedule").click()
    page.wait_for_url(re.compile(r"/schedules/\d+$"))
    schedule_id = int(page.url.rsplit("/", 1)[1])
    made = stack.server.get(f"/schedules/{schedule_id}")
    assert dt.datetime.fromisoformat(made["next_fire_at"]) == at
    assert made["matching_agents"] == [SATA]
    assert stack.jobs(schedule=schedule_id) == []  # nothing until the beat fires it

    (job,) = wait_for(
        "the worker's beat to fire the one-off",
        lambda: stack.jobs(schedule=schedule_id), timeout=180,
    )  # fmt: skip
    assert job["agent"] == SATA
    assert dt.datetime.fromisoformat(job["fire_at"]) == at
    assert dt.datetime.fromisoformat(job["created_at"]) >= at

    def settled() -> dict[str, Any] | None:
        got = stack.server.job(job["id"])
        return got if got["status"] in ("succeeded", "failed", "cancelled", "expired") else None

    done = wait_for("the sata daemon to run it", settled, timeout=120)
    assert done["status"] == "succeeded" and done["leased_by"] == SATA, sata.log()
    (uuid,) = done["runs"]
    run = stack.server.get(f"/runs/{uuid}")
    results = {
        r["metric"]: (r["samples"], r["value"])
        for r in run["results"]
        if r["metric"] != ("command.seconds")
    }
    assert results == {"v": ([42.0, 42.0], 42.0), "w": ([1.0, 1.0], 1.0)}
    assert run["parameters"]["cmd"] == ONCE_CMD
    # The worker's beat made it: its firing pass logged it.
    assert re.search(r"perfatlas\.fire_schedules\[[^]]+\] succeeded in [\d.]+s: \{'fired': 1\}",
                     stack.worker.logs()), stack.worker.logs()[-3000:]  # fmt: skip
    # The nvme daemon took nothing of it.
    assert all(j["schedule_id"] != schedule_id for j in stack.jobs(agent=NVME))
    assert f"job {job['id']}" not in stack.machines[NVME].log()
    assert f"job {job['id']}" in sata.log()

    page.reload()
    firing = page.get_by_test_id("firings-table")
    expect(firing.locator("tbody tr")).to_have_count(1)
    expect(firing).to_contain_text(f"#{job['id']} {SATA} succeeded")
    assert NVME not in firing.inner_text()
    shot(page, "67-fleet-once-fired")

    # Both agents on the Agents page: online, their labels, nothing running now.
    page.goto(f"{stack.server.url}/agents")
    for name, label in LABELS.items():
        row = page.locator(f"tr[data-agent='{name}']")
        expect(row).to_contain_text("online")
        expect(row).to_contain_text(label)
    shot(page, "68-fleet-agents")
