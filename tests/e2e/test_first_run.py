"""The Overview during `make up`'s first run, in the browser: the server started with make up's
commands (`perfatlas serve --with-worker --first-run` on SQLite), two quick studies on tmpfs
run by the real agent's daemon. While jobs are left the card counts them, as the API does
(the daemon held meanwhile);
when all are done it links each study to its default report (installed by make up's
`perfatlas report defaults`), which opens."""

from __future__ import annotations

import os
import re
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.agent.daemon_helpers import wait_for
from tests.agent.firstrun.test_first_run import FirstRunServer, alive, pid_in
from tests.conftest import REPO
from tests.e2e.conftest import shot, use_token

STUDIES = ["smallfiles-000", "treewalk-002"]


class DaemonHold:
    """Stops the first run's daemon (SIGSTOP) as soon as its pid file appears, from a thread
    watching it closely while the server starts: the two quick studies on tmpfs take some six
    seconds, which on a busy machine can pass before the server's worker is ready and the test
    begins. The helper queues both jobs before it starts the daemon."""

    def __init__(self, pid_file: Path) -> None:
        self.pid_file = pid_file
        self.pid: int | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(0.01):
            try:
                pid = pid_in(self.pid_file)
            except ValueError:  # read while the helper was writing it
                continue
            if pid is not None and alive(pid):
                os.kill(pid, signal.SIGSTOP)
                self.pid = pid
                return

    def release(self) -> None:
        self._done.set()
        self._thread.join()
        if self.pid is not None and alive(self.pid):
            os.kill(self.pid, signal.SIGCONT)


@pytest.fixture
def first_run_server(tmp_path: Path) -> Iterator[tuple[FirstRunServer, DaemonHold]]:
    if not (REPO / "frontend" / "dist" / "index.html").is_file():
        pytest.fail("the web UI is not built: run `make ui` (make test builds it first)")
    server = FirstRunServer(tmp_path)
    server.env["PERFATLAS_FIRST_RUN_STUDIES"] = ",".join(STUDIES)
    server.env["PERFATLAS_FIRST_RUN_FILESYSTEMS"] = "tmpfs"
    hold = DaemonHold(server.helper_dir / "daemon.pid")
    try:
        server.start()
        yield server, hold
    finally:
        hold.release()
        server.close()
    helper = pid_in(server.helper_dir / "first-run.pid")
    if helper:
        wait_for("the helper's cleanup", lambda: not alive(helper), timeout=120)


def test_the_overview_follows_the_first_run(
    page: Any, first_run_server: tuple[FirstRunServer, DaemonHold]
) -> None:
    server, hold = first_run_server
    use_token(page, server.admin_token)

    final = ("succeeded", "failed", "cancelled", "expired")
    # The daemon held while the card is drawn, so that no job ends under it.
    wait_for("the first run's daemon, held", lambda: hold.pid, timeout=120)
    try:
        jobs = wait_for("the first run's two jobs", lambda: two_jobs(server))
        done = sum(j["status"] in final for j in jobs)
        assert done < 2, f"the first run ended before its daemon was held: {jobs}"
        page.goto(f"{server.url}/")
        card = page.get_by_test_id("first-run-card")
        expect(card.get_by_role("heading")).to_contain_text(
            f"Running the two studies on this machine (quick): {done} of 2 jobs done"
        )
        # What the card counts is what the API says.
        assert sum(j["status"] in final for j in server.jobs()) == done
        shot(page, "first-run-overview-running")
        expect(card.get_by_role("link", name=re.compile("jobs"))).to_have_attribute(
            "href", f"/jobs?agent={server.agent()['name']}"
        )
    finally:
        hold.release()

    wait_for("the first run to finish", lambda: "first run: done," in server.log(), timeout=180)
    page.reload()
    card = page.get_by_test_id("first-run-card")
    expect(card.get_by_role("heading")).to_have_text("The studies run on this machine (quick)")
    expect(card.get_by_role("link", name=re.compile("2 of 2 jobs succeeded"))).to_be_visible()
    items = card.get_by_role("listitem")
    expect(items).to_have_count(2)
    for item, study in zip(items.all(), STUDIES, strict=True):
        # make up's `perfatlas report defaults` installed the study's report: a link to it.
        link = item.get_by_role("link", name=study)
        expect(link).to_have_attribute("href", f"/reports/study-{study}")
        expect(item).to_contain_text("1 of 1 job succeeded")
        expect(item).not_to_contain_text("the report will appear")
    shot(page, "first-run-overview-done")
    items.first.get_by_role("link").click()
    expect(page).to_have_url(f"{server.url}/reports/study-{STUDIES[0]}")
    # The report's own title (the overview before it has a heading too).
    expect(page.get_by_test_id("report-title")).to_have_text(re.compile(f"^Study {STUDIES[0]}: "))
    shot(page, "first-run-first-report", full_page=False)


def two_jobs(server: FirstRunServer) -> list[dict[str, Any]] | None:
    jobs = server.jobs()
    return jobs if len(jobs) == 2 else None
