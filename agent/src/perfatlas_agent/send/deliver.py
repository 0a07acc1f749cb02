"""`perfatlas-agent run`: one or more RunRequests (one per target of a spec), every run spooled
as it is measured, then uploaded (or written to --output)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import Interrupted, NoRoom
from perfatlas_agent.measure import attachments as att
from perfatlas_agent.measure.progress import make_reporter
from perfatlas_agent.measure.sweep import RunRequest, plan_runs, run_sweep
from perfatlas_agent.send.client import Client, UploadReport
from perfatlas_agent.send.keep import Held, Keeper, print_unkept, send_directly
from perfatlas_agent.send.probe import check_server
from perfatlas_agent.send.report import (
    EXIT_INTERRUPTED,
    EXIT_NO_ROOM,
    EXIT_RUN_FAILED,
    exit_code,
    flush_spool,
    merge,
    print_summary,
    say,
)
from perfatlas_agent.send.room import check_room
from perfatlas_agent.send.spool import Claim, Spool, default_fallback_dir, write_durably


@dataclass
class Upload:
    server: str | None
    token: str | None
    spool: Spool
    retry_deadline: float
    # Where a run goes when the spool cannot take it (README: "Uploading and the spool").
    fallback: Spool = field(default_factory=lambda: Spool(default_fallback_dir()))


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
    # Before any work, a place that can keep what is measured.
    if use_spool:
        spool.clean_leftovers()
        check_room(spool.root, "the spool", requests)
    if output is not None:
        check_room(output.parent, "the folder of --output", requests)
    if server:
        # Seconds, not the length of the whole workload, to find a wrong token or server.
        problem = check_server(server, upload.token)
        if problem:
            say(f"{problem}; running anyway: the runs are spooled and the upload retried",
                fg="yellow")  # fmt: skip
    runs: list[dict[str, Any]] = []
    files: dict[str, list[att.AttachmentFile]] = {}
    try:
        claim = spool.claim() if use_spool else None
    except OSError as exc:  # a read-only spool, one not ours: said before anything is measured
        raise NoRoom(f"the spool {spool.root} cannot be written ({exc}); nothing was run") from exc
    keeper = Keeper(spool, upload.fallback, lambda m: say(m, fg="red"))

    def on_run(one: dict[str, Any]) -> None:
        files[one["uuid"]] = att.take(one)
        if claim is not None:
            keeper.keep(one, files[one["uuid"]], claim)
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
    try:
        code = _keep_and_send(upload, keeper, claim, runs, files, output)
    finally:
        if claim is not None:
            claim.release()
        keeper.release()
    failed = [r for r in runs if r["status"] == "failed"]
    if failed and not code:
        say(f"{len(failed)} run(s) failed (recorded with status failed)", fg="red")
        code = EXIT_RUN_FAILED
    return EXIT_INTERRUPTED if interrupted else code


def _keep_and_send(
    upload: Upload, keeper: Keeper, claim: Claim | None, runs: list[dict[str, Any]],
    files: dict[str, list[att.AttachmentFile]], output: Path | None,
) -> int:  # fmt: skip
    """After the runs: --output written, the spool and the fallback spool flushed, the runs
    held in memory sent directly, and any run still not kept printed; the exit status."""
    spool, server = upload.spool, upload.server
    written_to_output = output is not None and _write_output(output, runs, files)
    unkept: list[Held] = []
    if claim is None and not written_to_output:  # --output was the only place for them
        unkept = [(r, files[r["uuid"]]) for r in runs]
    reports: list[UploadReport] = []
    if server:
        reports.append(flush_spool(spool, server, upload.token, upload.retry_deadline, claim))
        if keeper.in_fallback:
            reports.append(flush_spool(upload.fallback, server, upload.token,
                                       upload.retry_deadline, keeper.fallback_claim))  # fmt: skip
    if keeper.in_memory and server:
        with Client(server, upload.token, deadline_s=upload.retry_deadline) as client:
            sent, unkept = send_directly(client, keeper.in_memory, lambda m: say(m, fg="red"))
        reports.append(sent)
        if sent.delivered:
            say(f"delivered {sent.delivered} run(s) held in memory", fg="green")
    else:
        unkept += keeper.in_memory
    if not server and claim is not None:
        where = f"the spool {spool.root}"
        if keeper.in_fallback:
            where += f" ({len(keeper.in_fallback)} in the fallback spool {upload.fallback.root})"
        say(
            f"{len(runs) - len(keeper.in_memory)} run(s) kept in {where}; no server configured "
            "(--server or PERFATLAS_SERVER), send them later with `perfatlas-agent upload`",
            fg="yellow",
        )
    code = exit_code(merge(reports))
    if unkept and written_to_output:
        say(f"{len(unkept)} run(s) neither spooled nor delivered are kept only in {output}",
            fg="red")  # fmt: skip
        code = EXIT_NO_ROOM
    elif unkept:
        print_unkept(unkept, lambda m: say(m, fg="red"))
        code = EXIT_NO_ROOM
    return code


def _write_output(
    output: Path, runs: list[dict[str, Any]], files: dict[str, list[att.AttachmentFile]]
) -> bool:
    """--output (and the files beside it); False, said loudly, when it cannot be written."""
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        write_durably(output, json.dumps({"runs": runs}, indent=1).encode())
        say(f"wrote {len(runs)} run(s) to {output}")
        written = _write_attachments(output, files)
    except OSError as exc:
        say(f"cannot write {output} ({exc})", fg="red")
        return False
    if written:
        say(f"wrote {written} attachment(s) under {att.output_dir(output)}")
    return True


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
