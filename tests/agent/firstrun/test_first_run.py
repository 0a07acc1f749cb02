"""`make up`'s first run end to end, with make up's commands (`perfatlas migrate`, the make-up
token, `perfatlas serve --no-migrate --with-worker --first-run`) on SQLite and the database
broker, restricted to two studies (smallfiles-000, treewalk-002) on tmpfs and, as root, a
loop-mounted ext4 (and a second, mounted -o sync, for smallfiles-000's sync variant): a real `perfatlas-agent first-run` enrolls a real agent, makes the targets,
queues the schedules' jobs, and its real daemon runs and uploads them.

Four starts of the server on one database: the first loses its helper to SIGKILL half-way (its
mounts are left: the next start must undo them), the second is stopped with SIGTERM half-way
(nothing may be left: mount, loop device, daemon, folder), the third finishes the jobs left
without making any new one, the fourth finds the first run done and does nothing."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perfatlas_agent.firstrun.targets import clean_stale, tmpfs_folder
from tests.agent.daemon_helpers import wait_for
from tests.agent.firstrun.test_embedded_fleet import EmbeddedServer
from tests.conftest import REPO, skip_unless_able
from tests.factories import run_body

ROOT = os.geteuid() == 0
FILESYSTEMS = ["tmpfs", "ext4"] if ROOT else ["tmpfs"]
STUDIES = ["smallfiles-000", "treewalk-002"]
ACTIVE = ("queued", "leased", "running")
# The disk filesystems' mounts: smallfiles-000 runs its -o sync part on a second image.
MOUNTS = ["mnt-ext4", "mnt-ext4-sync"] if ROOT else []
SYNC = ["first run: smallfiles-000 on ext4, mount -o sync"] if ROOT else []


class FirstRunServer(EmbeddedServer):
    SERVE_FLAGS = ("--no-migrate", "--with-worker", "--first-run")

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._cli("report", "defaults")  # make up's next command: reference runs, reports
        self.env["PERFATLAS_FIRST_RUN_STUDIES"] = ",".join(STUDIES)
        self.env["PERFATLAS_FIRST_RUN_FILESYSTEMS"] = ",".join(FILESYSTEMS)

    @property
    def helper_dir(self) -> Path:
        return (self.data_dir / "firstrun").resolve()

    def log(self) -> str:
        path = self.data_dir / "firstrun.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def jobs(self) -> list[dict[str, Any]]:
        agent = self.agent()["name"]
        items: list[dict[str, Any]] = self.get("/jobs", agent=agent, limit=500)["items"]
        return items

    def agent(self) -> dict[str, Any]:
        (agent,) = [a for a in self.get("/agents") if a["labels"].get("firstrun") == "true"]
        return agent

    def schedules(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.get("/schedules")["items"]
        return items


@pytest.fixture
def server(tmp_path: Path) -> Iterator[FirstRunServer]:
    made = FirstRunServer(tmp_path)
    yield made
    made.close()
    pid = pid_in(made.helper_dir / "first-run.pid")
    if pid and alive(pid):
        os.kill(pid, signal.SIGTERM)
        wait_for("the helper to go", lambda: not alive(pid), timeout=300)
    # A failed test may have left the mounts of a killed helper: not on the machine after it.
    clean_stale(made.helper_dir / "mounts", print)


def pid_in(path: Path) -> int | None:
    """The pid in a pid file; None while it is missing or still being written."""
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return None
    return int(text) if text.isdigit() else None


def alive(pid: int) -> bool:
    """Running (a zombie, not reaped yet by its parent, has stopped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def mounts_under(folder: Path) -> list[str]:
    prefix = str(folder).rstrip("/") + "/"
    points = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
    return [p for p in points if p.startswith(prefix)]


def loops_under(folder: Path) -> list[str]:
    if not ROOT:
        return []
    listed = subprocess.run(["losetup", "-a"], capture_output=True, text=True, check=True).stdout
    return [line for line in listed.splitlines() if str(folder) in line]


def tmpfs_folders(server: FirstRunServer) -> list[Path]:
    """This first run's folder on /dev/shm, if it is there (other tests' first runs have
    their own)."""
    folder = tmpfs_folder(Path("/dev/shm"), server.helper_dir / "mounts")
    return [folder] if folder.exists() else []


def progress(server: FirstRunServer, done: int) -> Any:
    """At least `done` jobs succeeded and one still to do, the daemon alive."""

    def probe() -> bool:
        try:
            jobs = server.jobs()
        except ValueError:  # the agent is not enrolled yet
            return False
        daemon = pid_in(server.helper_dir / "daemon.pid")
        ok = sum(j["status"] == "succeeded" for j in jobs)
        return bool(
            daemon and alive(daemon) and ok >= done and any(j["status"] in ACTIVE for j in jobs)
        )

    return probe


def nothing_left(server: FirstRunServer, daemon: int) -> None:
    assert mounts_under(server.helper_dir) == []
    assert loops_under(server.helper_dir) == []
    assert not alive(daemon)
    assert tmpfs_folders(server) == []


def test_first_run_once_through_the_daemon_and_nothing_left(server: FirstRunServer) -> None:
    # 1. Half-way, the helper is killed outright: its daemon goes (it dies with its parent), its
    #    mounts stay behind.
    server.start()
    wait_for("the first job", progress(server, 1), timeout=300)
    assert "first run: enrolled agent" in server.log()
    daemon = pid_in(server.helper_dir / "daemon.pid")
    helper = pid_in(server.helper_dir / "first-run.pid")
    assert daemon and helper
    os.kill(helper, signal.SIGKILL)
    wait_for("the daemon to die with the helper", lambda: not alive(daemon), timeout=300)
    if ROOT:
        assert sorted(Path(p).name for p in mounts_under(server.helper_dir)) == MOUNTS
        assert len(loops_under(server.helper_dir)) == len(MOUNTS)
    schedules = server.schedules()
    jobs = server.jobs()
    server.stop()
    # One schedule (and job) per study, per filesystem and variant: each study has one quick
    # spec there.
    names = sorted(s["name"] for s in schedules)
    assert names == sorted([f"first run: {s} on {fs}" for s in STUDIES for fs in FILESYSTEMS]
                           + SYNC)  # fmt: skip
    assert len(jobs) == len(schedules) and all(s["when"] == "now" for s in schedules)

    # 2. The next start undoes what was left, takes up the jobs left; stopped (SIGTERM) half-way
    #    it leaves nothing.
    server.start()
    done_before = sum(j["status"] == "succeeded" for j in jobs)
    wait_for("one more job", progress(server, done_before + 1), timeout=300)
    if ROOT:
        assert (
            "unmounting" in server.log() and "left by a run that did not clean up" in server.log()
        )
    daemon = pid_in(server.helper_dir / "daemon.pid")
    helper = pid_in(server.helper_dir / "first-run.pid")
    assert daemon and helper and alive(daemon)
    if ROOT:
        assert len(mounts_under(server.helper_dir)) == len(MOUNTS)  # the new mounts, not twice
    assert len(server.schedules()) == len(schedules)
    server.stop()
    wait_for("the helper's cleanup", lambda: not alive(helper), timeout=300)
    nothing_left(server, daemon)

    # 3. The third start finishes: the helper stops its daemon and undoes its mounts by itself.
    server.start()
    wait_for("the first run to finish", lambda: server.log().count("first run: done,") == 1,
             timeout=240)  # fmt: skip
    helper = pid_in(server.helper_dir / "first-run.pid") or helper
    wait_for("the helper to exit", lambda: not alive(helper), timeout=300)
    nothing_left(server, pid_in(server.helper_dir / "daemon.pid") or daemon)
    agent = server.agent()
    jobs = server.jobs()
    assert len(jobs) == len(schedules)  # no new job on a later start
    assert {j["status"] for j in jobs} == {"succeeded"}, jobs
    assert {j["leased_by"] for j in jobs} == {agent["name"]}
    check_runs(server, jobs)
    server.stop()

    # 4. A fourth start finds it done: no schedule, no job, no mount.
    server.start()
    wait_for("the helper to see it done", lambda: "first run: done before" in server.log(),
             timeout=300)  # fmt: skip
    assert len(server.schedules()) == len(schedules) and len(server.jobs()) == len(jobs)
    server.stop()
    assert mounts_under(server.helper_dir) == [] and loops_under(server.helper_dir) == []


def check_runs(server: FirstRunServer, jobs: list[dict[str, Any]]) -> None:
    """Every job's runs: labelled firstrun=true with its study and filesystem, measured on the
    filesystem the label says (the agent's own reading of the target's mount), every point of
    the study's quick parameters."""
    seen: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    interrupted = 0
    for job in jobs:
        for uuid in job["runs"]:
            run = server.get(f"/runs/{uuid}")
            labels = run["labels"]
            assert labels["firstrun"] == "true"
            assert run["environment"]["data"]["fs_type"] == labels["fs"]
            assert run["sync_mount"] == (labels["mount"] == "sync")
            assert run["target"] == job["spec"]["targets"][0]
            seen.setdefault((labels["study"], labels["fs"], labels["mount"]), []).append(run)
    assert sorted(seen) == sorted(
        [(s, fs, "default") for s in STUDIES for fs in FILESYSTEMS]
        + [("smallfiles-000", "ext4", "sync")] * bool(SYNC)
    )
    # Each point of each study on each filesystem at least once. A job given back half-way (the
    # helper killed, the server stopped) keeps the runs its first attempt finished: those
    # points appear once more, from the job that was interrupted, never from another job.
    expected = {
        ("smallfiles-000", "default"): [(250, f) for f in ("none", "file", "end")],
        ("smallfiles-000", "sync"): [(250, "none")],
        ("treewalk-002", "default"): [(n, t) for n in (300, 1200) for t in ("8", "auto")],
    }
    for (study, fs, mount), runs in seen.items():
        if study == "smallfiles-000":
            points = [(r["parameters"]["nfiles"], r["parameters"]["fsync"]) for r in runs]
        else:
            points = [(r["parameters"]["inodes"], str(r["parameters"]["threads"])) for r in runs]
        assert set(points) == set(expected[study, mount]), (study, fs, mount, points)
        assert len({r["job_id"] for r in runs}) == 1
        if len(points) > len(expected[study, mount]):
            interrupted += 1
    assert interrupted <= 2  # two starts were stopped half-way
    listed = server.get("/runs", label="firstrun:true", limit=500)["items"]
    assert len(listed) == sum(len(v) for v in seen.values())


def test_first_run_off_by_setting_by_make_and_on_a_database_with_runs(tmp_path: Path) -> None:
    """PERFATLAS_FIRST_RUN=0 starts no helper; `make up FIRST_RUN=0` serves with
    --no-first-run; a database with measured runs (and no first run before) gets none, where
    one with only `report defaults`' reference runs gets one (the other tests)."""
    recipe = subprocess.run(["make", "-n", "--no-print-directory", "up", "FIRST_RUN=0"],
                            cwd=REPO, capture_output=True, text=True, check=True).stdout  # fmt: skip
    (serve,) = [line for line in recipe.splitlines() if "perfatlas serve" in line]
    assert serve.endswith("serve --no-migrate --with-worker --no-first-run")
    recipe = subprocess.run(["make", "-n", "--no-print-directory", "up"],
                            cwd=REPO, capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "serve --no-migrate --with-worker --first-run" in recipe

    server = FirstRunServer(tmp_path)
    try:
        server.env["PERFATLAS_FIRST_RUN"] = "0"
        server.start()
        assert "first run" not in (tmp_path / "serve-1.log").read_text()
        assert not (server.data_dir / "firstrun").exists()
        made = server.post("/runs", run_body(agent="lab-1"))
        assert made.status_code == 201, made.text
        server.stop()

        del server.env["PERFATLAS_FIRST_RUN"]
        server.start()
        wait_for("the helper to see the runs", lambda: "first run: skipped, this database has "
                 "runs already" in server.log(), timeout=300)  # fmt: skip
        agents = server.get("/agents")
        assert "lab-1" in [a["name"] for a in agents]
        assert [a for a in agents if a["labels"].get("firstrun")] == []  # none enrolled
        assert server.schedules() == []
    finally:
        server.close()


def test_jobs_left_for_a_filesystem_not_there_now_are_cancelled(tmp_path: Path) -> None:
    """Killed half-way, then started where ext4 cannot be made (here: not asked for): the
    jobs left for ext4 are cancelled, never run in the bare folder; tmpfs's finish."""
    if not ROOT:
        skip_unless_able("a loop-mounted ext4 needs root")
    server = FirstRunServer(tmp_path)
    server.env["PERFATLAS_FIRST_RUN_STUDIES"] = "treewalk-002"
    try:
        # Killed as soon as its daemon starts, not once the worker is ready too: on a busy
        # machine the daemon has run a job or two by then.
        server.start(wait=False)
        wait_for("the daemon", lambda: pid_in(server.helper_dir / "daemon.pid"), timeout=300)
        helper = pid_in(server.helper_dir / "first-run.pid")
        assert helper
        killed = dt.datetime.now(dt.UTC)
        os.kill(helper, signal.SIGKILL)
        wait_for("the helper to die", lambda: not alive(helper), timeout=120)
        before = {j["spec"]["labels"]["fs"]: j["status"] for j in server.jobs()}
        server.stop()
        assert sorted(before) == ["ext4", "tmpfs"] and before["ext4"] != "succeeded", before

        server.env["PERFATLAS_FIRST_RUN_FILESYSTEMS"] = "tmpfs"
        server.start()
        wait_for("the jobs to settle", lambda: all(j["status"] not in ACTIVE for j in server.jobs()),
                 timeout=300)  # fmt: skip
        after = {j["spec"]["labels"]["fs"]: j for j in server.jobs()}
        assert after["ext4"]["status"] == "cancelled"
        # None of its runs ran in the bare folder after the restart. The daemon may have
        # finished points on the real ext4 before the kill landed (this test's poll came late
        # on a busy machine): those are kept (uploaded as it stops, or by the next daemon).
        for uuid in after["ext4"]["runs"]:
            run = server.get(f"/runs/{uuid}")
            assert run["environment"]["data"]["fs_type"] == "ext4", run["environment"]
            started = dt.datetime.fromisoformat(run["started_at"])
            assert started.replace(tzinfo=started.tzinfo or dt.UTC) < killed, run["started_at"]
        assert after["tmpfs"]["status"] == "succeeded"
        assert not (server.helper_dir / "mounts" / "mnt-ext4").exists()
        assert "cancelled job" in server.log()
    finally:
        server.close()
        clean_stale(server.helper_dir / "mounts", print)
