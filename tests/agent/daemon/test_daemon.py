"""The enrolled agent's daemon against a real `perfatlas serve`: jobs run and their runs stored,
progress and log seen through the API, cancel, SIGTERM, SIGKILL and a second daemon, a server
restart under long-polling daemons, revocation."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.agent.conftest import agent_cmd
from tests.agent.daemon_helpers import (
    DaemonProcess,
    RestartableServer,
    agent_json,
    clean_env,
    command_spec,
    enroll,
    kill_group_in,
    wait_for,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RestartableServer]:
    srv = RestartableServer(tmp_path_factory.mktemp("daemon-server"), "daemon")
    srv.start()
    yield srv
    srv.close()


class Machine:
    """One enrolled test machine: its config folder, spool, target, daemon."""

    def __init__(self, server: RestartableServer, root: Path, *labels: str) -> None:
        self.name = f"m-{uuid.uuid4().hex[:8]}"
        self.root = root / self.name
        self.root.mkdir()
        self.config = self.root / "config"
        self.spool = self.root / "spool"
        self.target = self.root / "target"
        self.server = server
        enroll(server, self.config, self.name, *labels)
        self.daemons: list[DaemonProcess] = []

    def start(self, claim_wait: int = 25) -> DaemonProcess:
        log = self.root / f"daemon-{len(self.daemons)}.log"
        daemon = DaemonProcess(self.config, self.spool, log, claim_wait=claim_wait)
        self.daemons.append(daemon)
        return daemon

    def stop(self) -> None:
        for daemon in self.daemons:
            daemon.stop()


@pytest.fixture
def machines(server: RestartableServer, tmp_path: Path) -> Iterator[Any]:
    made: list[Machine] = []

    def make(*labels: str) -> Machine:
        machine = Machine(server, tmp_path, *labels)
        made.append(machine)
        return machine

    yield make
    for machine in made:
        machine.stop()
    for pid_file in tmp_path.glob("*.pid"):
        kill_group_in(pid_file)


def settled(server: RestartableServer, job_id: int) -> Any:
    def probe() -> dict[str, Any] | None:
        job = server.job(job_id)
        return job if job["status"] in ("succeeded", "failed", "cancelled", "expired") else None

    return probe


def group_gone(pgid: int) -> bool:
    """No process left in the group (a killed one may linger a moment as a zombie, until the
    init process reaps it)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def metric(run: dict[str, Any], name: str) -> float:
    return next(float(r["value"]) for r in run["results"] if r["metric"] == name)


def test_enrolled_daemon_runs_a_job_and_its_runs_are_stored(
    server: RestartableServer, machines: Any
) -> None:
    machine = machines("disk=nvme")
    config = agent_json(machine.config)
    assert (config["server"], config["name"]) == (server.url, machine.name)
    assert config["token"] and config["labels"] == {"disk": "nvme"}
    assert stat.S_IMODE((machine.config / "agent.json").stat().st_mode) == 0o600
    daemon = machine.start()
    # The metric is worked out by the command from the label (twice) and the parameter.
    cmd = 'echo "{\\"v\\": {version}{k}, \\"e\\": $PERFATLAS_LABEL_VERSION$PERFATLAS_PARAM_K}"'
    spec = command_spec(machine.target, cmd, params={"k": [1, 2]}, labels={"version": "5"})
    job_id = server.enqueue(machine.name, spec)
    job = wait_for("the job to settle", settled(server, job_id))
    assert job["status"] == "succeeded", (job, daemon.log())
    assert job["leased_by"] == machine.name and job["attempts"] == 1
    runs = {r["uuid"]: r for r in server.runs_of(machine.name)}
    assert sorted(runs) == sorted(job["runs"]) and len(runs) == 2 == job["points"]
    stored = [server.get(f"/runs/{u}") for u in job["runs"]]
    assert sorted((metric(r, "v"), metric(r, "e")) for r in stored) == [(51, 51), (52, 52)]
    for run in stored:
        assert run["job_id"] == job_id and run["labels"] == {"version": "5"}
        assert run["parameters"]["k"] in (1, 2) and "version" not in run["parameters"]
    assert job["progress"]["done"] == 2 and job["progress"]["total"] == 2
    assert any("run 2/2: command" in line for line in job["log_tail"]), job["log_tail"]
    # Each run's files follow the completion, sent with the agent's own token.
    for run in stored:
        files = wait_for(
            "the run's attachments",
            lambda u=run["uuid"]: server.get(f"/runs/{u}/attachments")["items"] or None,
        )
        assert sorted(f["name"] for f in files) == ["command.txt", "stdout.txt"]
        (out,) = [f for f in files if f["name"] == "stdout.txt"]
        body = httpx.get(f"{server.url}{out['url']}", timeout=10,
                         headers={"Authorization": f"Bearer {server.admin_token}"}).text  # fmt: skip
        value = int(metric(run, "v"))
        assert body == f'=== rep0 ===\n{{"v": {value}, "e": {value}}}\n\n'
    wait_for("the spool to empty", lambda: not list(machine.spool.glob("*.attachments")) or None)
    assert os.listdir(machine.target) == []
    assert not list(machine.spool.glob("*.json")), "delivered runs leave the spool"
    (agent,) = [a for a in server.get("/agents") if a["name"] == machine.name]
    assert agent["enrolled"] and agent["online"] and not agent["revoked"]
    # `status` reads the same agent.json.
    env = clean_env(PERFATLAS_AGENT_CONFIG_DIR=str(machine.config))
    out = subprocess.run(agent_cmd("status", "--spool", str(machine.spool)), env=env,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert f"enrolled as {machine.name} on {server.url}" in out.stdout


def _sleeping_job(machine: Machine, tmp_path: Path, *, points: int = 1) -> tuple[int, Path]:
    """A job whose last point sleeps until killed (the earlier ones answer at once); its shell
    writes its pid to a file outside the target and leaves a file in its folder."""
    pid_file = tmp_path / f"{machine.name}.pid"
    cmd = (
        f"if [ {{k}} -eq {points - 1} ]; then echo $$ > {pid_file}; "
        "echo data > {workdir}/made-by-the-job; sleep 600; fi; echo '{\"x\": 1}'"
    )
    spec = command_spec(machine.target, cmd, params={"k": list(range(points))})
    return machine.server.enqueue(machine.name, spec), pid_file


def test_progress_is_visible_and_cancel_reaches_a_running_daemon(
    server: RestartableServer, machines: Any, tmp_path: Path
) -> None:
    machine = machines()
    daemon = machine.start()
    job_id, pid_file = _sleeping_job(machine, tmp_path, points=2)

    def sleeping() -> dict[str, Any] | None:
        job = server.job(job_id)
        progress = job["progress"]
        return job if pid_file.exists() and progress.get("done") == 1 else None

    job = wait_for("the second point to be under way", sleeping)
    assert job["status"] == "running"
    assert job["progress"]["phase"] == "command" and job["progress"]["point"]["k"] == 1
    # The point as the spec names it: the command's defaulted timeout is not part of it.
    assert "timeout" not in job["progress"]["point"]
    assert job["progress"]["total"] == 2 and 0 < job["progress"]["percent"] < 100
    assert any("run 2/2: command" in line for line in job["log_tail"]), job["log_tail"]
    assert list(machine.target.rglob("made-by-the-job")), "the command's file is there"
    pgid = int(pid_file.read_text())

    answer = server.post(f"/jobs/{job_id}/cancel")
    assert answer.status_code == 200 and answer.json()["cancel_requested"], answer.text
    # The command sleeps 600 s: the job settles long before only if the daemon abandons it.
    job = wait_for("the job to be cancelled", settled(server, job_id), timeout=60)
    assert job["status"] == "cancelled", daemon.log()
    assert os.listdir(machine.target) == [], "a cancelled job's files are removed"
    wait_for("the command's process group to be gone", lambda: group_gone(pgid))
    # The run measured before the cancel is kept with the job.
    (run,) = [server.get(f"/runs/{u}") for u in job["runs"]]
    assert run["parameters"]["k"] == 0 and run["job_id"] == job_id and run["status"] == "ok"
    assert daemon.proc.poll() is None, "the daemon carries on after a cancel"
    # ... and takes the next job.
    spec = command_spec(machine.target, "echo '{\"after_cancel\": 7}'")
    next_id = server.enqueue(machine.name, spec)
    assert wait_for("the next job", settled(server, next_id))["status"] == "succeeded"


def test_sigterm_releases_the_job_and_uploads_what_was_measured(
    server: RestartableServer, machines: Any, tmp_path: Path
) -> None:
    machine = machines()
    daemon = machine.start()
    job_id, pid_file = _sleeping_job(machine, tmp_path, points=2)
    wait_for("the second point to be under way",
             lambda: pid_file.exists() and server.job(job_id)["progress"].get("done") == 1)  # fmt: skip
    pgid = int(pid_file.read_text())
    daemon.signal(signal.SIGTERM)
    assert daemon.wait(60) == 0, daemon.log()
    log = daemon.log()
    assert f"job {job_id}: released" in log, log
    job = server.job(job_id)
    assert job["status"] == "queued" and job["attempts"] == 1 and job["leased_by"] == machine.name
    (run,) = [r for r in server.runs_of(machine.name)]
    assert run["job_id"] == job_id and run["parameters"]["k"] == 0
    assert os.listdir(machine.target) == []
    wait_for("the command's process group to be gone", lambda: group_gone(pgid))
    assert not list(machine.spool.glob("*.json"))


def test_a_daemon_killed_mid_job_is_taken_over_after_its_lease(
    server: RestartableServer, machines: Any, tmp_path: Path
) -> None:
    first = machines("pool=p1")
    second = machines("pool=p1")
    block = tmp_path / "block"
    block.write_text("sleep while this exists")
    pid_file = tmp_path / "first.pid"
    cmd = (f"if [ -e {block} ]; then echo $$ > {pid_file}; sleep 600; fi; "
           "echo '{\"x\": 3}'")  # fmt: skip
    spec = command_spec(first.target, cmd)
    job_id = server.enqueue(first.name, spec, selector=("pool=p1",))
    killed = first.start()
    wait_for("the first daemon's command", pid_file.exists)
    killed.signal(signal.SIGKILL)
    killed.wait(30)
    kill_group_in(pid_file)  # what SIGKILL leaves behind (a new session of its own)
    block.unlink()
    taker = second.start()
    try:
        job = wait_for("the job to be taken over and done", settled(server, job_id), timeout=150)
    except AssertionError as exc:
        raise AssertionError(f"{exc}: {server.job(job_id)}\n{taker.log()}") from None
    assert job["status"] == "succeeded", (job, taker.log())
    assert job["leased_by"] == second.name and job["attempts"] == 2
    (run,) = [server.get(f"/runs/{u}") for u in job["runs"]]
    assert run["agent"] == second.name and metric(run, "x") == 3


def test_daemons_carry_on_through_a_server_restart(
    server: RestartableServer, machines: Any
) -> None:
    pair = [machines(), machines()]
    daemons = [m.start(claim_wait=25) for m in pair]
    for machine in pair:
        wait_for("a heartbeat", lambda m=machine: any(
            a["name"] == m.name and a["online"] for a in server.get("/agents")
        ))  # fmt: skip
    server.stop()  # both are long-polling: their connections drop
    server.start()
    jobs = {
        m.name: server.enqueue(m.name, command_spec(m.target, f"echo '{{\"n\": {i}}}'"))
        for i, m in enumerate(pair)
    }
    for i, machine in enumerate(pair):
        job = wait_for("the job after the restart", settled(server, jobs[machine.name]),
                       timeout=120)  # fmt: skip
        assert job["status"] == "succeeded" and job["leased_by"] == machine.name
        (run,) = [server.get(f"/runs/{u}") for u in job["runs"]]
        assert metric(run, "n") == i
    assert all(d.proc.poll() is None for d in daemons)


def test_a_revoked_agent_stops_with_a_clear_message(
    server: RestartableServer, machines: Any
) -> None:
    machine = machines()
    daemon = machine.start(claim_wait=2)
    wait_for("a heartbeat", lambda: any(
        a["name"] == machine.name and a["online"] for a in server.get("/agents")
    ))  # fmt: skip
    answer = server.post(f"/agents/{machine.name}/revoke")
    assert answer.status_code == 200, answer.text
    assert daemon.wait(60) == 4
    assert "revoked" in daemon.log()


def test_enroll_refuses_a_spent_token_and_keeps_no_config(
    server: RestartableServer, tmp_path: Path
) -> None:
    token = server.enrollment_token()
    first = tmp_path / "a"
    args = ["enroll", "--server", server.url, "--enrollment-token", token]
    ok = subprocess.run(agent_cmd(*args, "--name", "spent-1", "--config-dir", str(first)),
                        env=clean_env(), capture_output=True, text=True, timeout=60)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    again = subprocess.run(agent_cmd(*args, "--name", "spent-2", "--config-dir",
                                     str(tmp_path / "b")),
                           env=clean_env(), capture_output=True, text=True, timeout=60)  # fmt: skip
    assert again.returncode == 4 and "already used or expired" in again.stderr
    assert not (tmp_path / "b" / "agent.json").exists()
    replace = subprocess.run(agent_cmd(*args, "--name", "spent-1", "--config-dir", str(first)),
                             env=clean_env(), capture_output=True, text=True, timeout=60)  # fmt: skip
    assert replace.returncode == 2 and "--force replaces it" in replace.stderr
    assert json.loads((first / "agent.json").read_text())["name"] == "spent-1"


def test_a_lost_lease_uploads_the_runs_and_drops_the_job(
    server: RestartableServer, machines: Any, tmp_path: Path
) -> None:
    frozen_machine = machines("pool=p2")
    other = machines("pool=p2")
    block = tmp_path / "block"
    block.write_text("the second point sleeps while this exists")
    pid_file = tmp_path / "frozen.pid"
    cmd = (f"if [ {{k}} -eq 1 ]; then echo $$ >> {pid_file}; "
           f"while [ -e {block} ]; do sleep 0.1; done; fi; echo '{{\"x\": {{k}}}}'")  # fmt: skip
    spec = command_spec(frozen_machine.target, cmd, params={"k": [0, 1]})
    job_id = server.enqueue(frozen_machine.name, spec, selector=("pool=p2",))
    frozen = frozen_machine.start()
    wait_for("the second point to be under way",
             lambda: pid_file.exists() and server.job(job_id)["progress"].get("done") == 1)  # fmt: skip
    frozen.signal(signal.SIGSTOP)  # no progress: its lease lapses, and the other agent takes it
    taker = other.start()
    wait_for("the other agent to take the job",
             lambda: server.job(job_id)["leased_by"] == other.name, timeout=120)  # fmt: skip
    frozen.signal(signal.SIGCONT)  # its next report hears that the lease is lost
    wait_for("the frozen daemon to drop the job", lambda: "dropped (lease lost)" in frozen.log())
    assert frozen.proc.poll() is None, "it carries on"
    mine = server.runs_of(frozen_machine.name)
    assert [(r["job_id"], r["parameters"]["k"]) for r in mine] == [(job_id, 0)], frozen.log()
    assert not list(frozen_machine.spool.glob("*.json"))
    block.unlink()
    job = wait_for("the job to be done by the other agent", settled(server, job_id), timeout=120)
    assert job["status"] == "succeeded" and job["attempts"] == 2, taker.log()
    theirs = server.runs_of(other.name)
    assert sorted(r["parameters"]["k"] for r in theirs) == [0, 1]
    assert {r["uuid"] for r in theirs} <= set(job["runs"])
    assert os.listdir(frozen_machine.target) == []
    for pid in pid_file.read_text().split():
        wait_for("the frozen daemon's command to be gone", lambda p=int(pid): group_gone(p))


def test_a_job_the_agent_cannot_run_fails_naming_why(
    server: RestartableServer, machines: Any, tmp_path: Path
) -> None:
    machine = machines()
    machine.start()
    spec = {"workload": "smallfile", "targets": [str(machine.target)], "params": {"nfile": 10}}
    job_id = server.enqueue(machine.name, spec)
    job = wait_for("the job to settle", settled(server, job_id))
    assert job["status"] == "failed" and job["runs"] == []
    assert "unknown parameter(s) nfile" in job["error"]
    assert not machine.target.exists(), "nothing ran"
    machine.target.mkdir()
    (machine.target / "precious").write_text("not the agent's")
    job_id = server.enqueue(machine.name, command_spec(machine.target, "echo '{\"x\": 1}'"))
    job = wait_for("the job to settle", settled(server, job_id))
    assert job["status"] == "failed" and "is not empty (precious)" in job["error"]
    assert os.listdir(machine.target) == ["precious"]


def test_run_uses_the_enrolled_server_token_and_name(
    server: RestartableServer, machines: Any, tmp_path: Path
) -> None:
    machine = machines()
    out = subprocess.run(
        agent_cmd("run", "command", "--target", str(machine.target), "-n", "1", "--no-warmup",
                  "-p", "cmd=echo '{\"y\": 9}'", "--spool", str(tmp_path / "run-spool")),
        env=clean_env(PERFATLAS_AGENT_CONFIG_DIR=str(machine.config)), capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    (run,) = server.runs_of(machine.name)
    assert run["job_id"] is None and metric(server.get(f"/runs/{run['uuid']}"), "y") == 9


def test_many_runs_go_up_before_the_completion(server: RestartableServer, machines: Any) -> None:
    machine = machines()
    machine.start()
    points = 60  # more than a completion carries (50): they go through /runs/batch first
    spec = command_spec(machine.target, "echo '{\"sq\": '$(({k} * {k}))'}'",
                        params={"k": list(range(points))})  # fmt: skip
    job_id = server.enqueue(machine.name, spec)
    job = wait_for("the job to settle", settled(server, job_id), timeout=180)
    assert job["status"] == "succeeded" and len(job["runs"]) == points == job["points"]
    runs = server.runs_of(machine.name)
    assert sorted(r["uuid"] for r in runs) == sorted(job["runs"])
    assert all(r["job_id"] == job_id for r in runs)
    values = {}
    for run in runs:
        full = server.get(f"/runs/{run['uuid']}")
        values[full["parameters"]["k"]] = metric(full, "sq")
    assert values == {k: k * k for k in range(points)}
