"""`perfatlas-agent run`: one or more RunRequests (one per target of a spec), every run spooled
as it is measured, then uploaded (or written to --output)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfatlas_agent import attachments as att
from perfatlas_agent.client import UploadReport, check_server
from perfatlas_agent.progress import make_reporter
from perfatlas_agent.report import (
    EXIT_INTERRUPTED,
    EXIT_RUN_FAILED,
    exit_code,
    flush_spool,
    print_summary,
    say,
)
from perfatlas_agent.runner import Interrupted, RunRequest, plan_runs, run_sweep
from perfatlas_agent.spool import Spool, write_durably


@dataclass
class Upload:
    server: str | None
    token: str | None
    spool: Spool
    retry_deadline: float


# Called before each request with its index and the reporter's message function; False skips
# the request (a study mounts the filesystem a request runs on here, and skips those it cannot).
BeforeRequest = Callable[[int, RunRequest, Callable[[str], None]], bool]


def run_requests(
    requests: list[RunRequest], upload: Upload, output: Path | None,
    *, before: BeforeRequest | None = None,
) -> int:  # fmt: skip
    """Runs every request in turn; returns the exit status."""
    spool, server = upload.spool, upload.server
    use_spool = bool(server) or output is None
    for request in requests:
        plan_runs(request)  # bad parameters are reported before anything else
    if server:
        # Seconds, not the length of the whole workload, to find a wrong token or server.
        problem = check_server(server, upload.token)
        if problem:
            say(f"{problem}; running anyway: the runs are spooled and the upload retried",
                fg="yellow")  # fmt: skip
    runs: list[dict[str, Any]] = []
    files: dict[str, list[att.AttachmentFile]] = {}
    claim = spool.claim() if use_spool else None

    def on_run(one: dict[str, Any]) -> None:
        files[one["uuid"]] = att.take(one)
        if claim is not None:
            claim.add(one["uuid"])  # claimed before it is spooled: no other process sends it
            spool.put(one, files[one["uuid"]])
        runs.append(one)

    reporter = make_reporter()
    interrupted = False
    try:
        for index, request in enumerate(requests):
            if before is not None and not before(index, request, reporter.message):
                continue
            if len(requests) > 1 and before is None:
                reporter.message(f"target {request.target}")
            run_sweep(request, reporter, on_run)
    except (Interrupted, KeyboardInterrupt):
        # KeyboardInterrupt: Ctrl-C (or SIGTERM) in `before`, outside any run.
        interrupted = True
        reporter.message(f"interrupted: {len(runs)} run(s) measured are kept")
    finally:
        reporter.close()
    print_summary(runs)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        write_durably(output, json.dumps({"runs": runs}, indent=1).encode())
        say(f"wrote {len(runs)} run(s) to {output}")
        written = _write_attachments(output, files)
        if written:
            say(f"wrote {written} attachment(s) under {att.output_dir(output)}")
    report: UploadReport | None = None
    try:
        if server:
            report = flush_spool(spool, server, upload.token, upload.retry_deadline, claim)
    finally:
        if claim is not None:
            claim.release()
    if not server and use_spool:
        say(
            f"{len(runs)} run(s) kept in the spool {spool.root}; no server configured "
            "(--server or PERFATLAS_SERVER), send them later with `perfatlas-agent upload`",
            fg="yellow",
        )
    code = exit_code(report)
    failed = [r for r in runs if r["status"] == "failed"]
    if failed and not code:
        say(f"{len(failed)} run(s) failed (recorded with status failed)", fg="red")
        code = EXIT_RUN_FAILED
    return EXIT_INTERRUPTED if interrupted else code


def _write_attachments(output: Path, files: dict[str, list[att.AttachmentFile]]) -> int:
    """Each run's files beside the JSON (runs.attachments/<uuid>/<name>), which
    `perfatlas-agent upload runs.json` sends with the runs."""
    written = 0
    for run_uuid, kept in files.items():
        if not kept:
            continue
        folder = att.output_dir(output) / run_uuid
        folder.mkdir(parents=True, exist_ok=True)
        for one in kept:
            write_durably(folder / one.name, one.content)
            written += 1
    return written
