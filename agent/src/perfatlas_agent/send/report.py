"""What the command line prints about uploads and runs, and the exit codes it derives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from perfatlas_agent.errors import InputError, UnreadableRun
from perfatlas_agent.send.client import Client, UploadReport, flush
from perfatlas_agent.send.spool import Claim, Spool

EXIT_LEFT = 1
EXIT_REJECTED = 3
EXIT_TOKEN = 4
EXIT_RUN_FAILED = 5
# The spool cannot keep runs: before a run, nothing was measured; after, the runs neither
# spooled anywhere nor delivered were printed on stdout.
EXIT_NO_ROOM = 6
EXIT_INTERRUPTED = 130


def say(text: str, *, err: bool = True, fg: str | None = None) -> None:
    click.secho(text, err=err, fg=fg)


def flush_spool(
    spool: Spool, server: str, token: str | None, deadline: float, claim: Claim | None = None
) -> UploadReport:
    def on_retry(problem: str, wait: float) -> None:
        say(f"upload failed ({problem}); retrying in {wait:.1f}s", fg="yellow")

    with Client(server, token, deadline_s=deadline, on_retry=on_retry) as client:
        report = flush(spool, client, on_message=lambda m: say(m, fg="red"), claim=claim)
    # Counted per invocation: a run made by another process is never reported as this one's.
    mine = claim.uuids if claim is not None else None
    created = [u for u in report.created if mine is None or u in mine]
    existing = [u for u in report.existing if mine is None or u in mine]
    if created or existing:
        whose = " of this invocation" if mine is not None else ""
        say(
            f"uploaded {len(created) + len(existing)} run(s){whose} to {server} "
            f"({len(created)} new, {len(existing)} already there)",
            fg="green",
        )
    if mine is not None:
        earlier = [u for u in report.created + report.existing if u not in mine]
        if earlier:
            say(f"also uploaded {len(earlier)} run(s) left in the spool by earlier invocations")
    attached = report.attachments_sent + report.attachments_existing
    if attached:
        say(
            f"uploaded {attached} attachment(s) ({report.attachments_sent} new, "
            f"{report.attachments_existing} already there)",
            fg="green",
        )
    for name, reason in report.attachments_rejected:
        say(f"REJECTED attachment {name}: {reason}", fg="red")
    if report.attachments_remaining:
        say(
            f"{report.attachments_remaining} attachment(s) of stored runs remain in the spool "
            f"{spool.root}; `perfatlas-agent upload` sends them",
            fg="yellow",
        )
    for run_uuid, reason in report.rejected:
        say(f"REJECTED {run_uuid}: {reason}", fg="red")
    if report.rejected:
        say(
            f"{len(report.rejected)} run(s) moved to {spool.rejected_dir}; "
            "they will not be retried",
            fg="red",
        )
    for run_uuid, reason in report.held:
        say(f"KEPT {run_uuid}: {reason}", fg="red")
    if report.error:
        say(f"upload error: {report.error}", fg="red")
    if report.remaining:
        say(
            f"{report.remaining} run(s) remain in the spool {spool.root}; "
            "`perfatlas-agent upload` sends them (`perfatlas-agent status` lists them)",
            fg="yellow",
        )
    if report.left_to_others:
        pids = ", ".join(str(p) for p in sorted(set(report.left_to_others.values())))
        say(
            f"{len(report.left_to_others)} run(s) in the spool belong to a running "
            f"perfatlas-agent (pid {pids}), which uploads them itself"
        )
    return report


def exit_code(report: UploadReport | None) -> int:
    if report is None:
        return 0
    if report.token_refused:
        return EXIT_TOKEN
    if report.remaining or report.attachments_remaining or report.held or report.error:
        return EXIT_LEFT
    if report.rejected or report.attachments_rejected:
        return EXIT_REJECTED
    return 0


def merge(reports: list[UploadReport]) -> UploadReport | None:
    """One report of several flushes (of the spool and the fallback spool, or of rounds)."""
    if not reports:
        return None
    out = UploadReport()
    for one in reports:
        out.created += one.created
        out.existing += one.existing
        out.rejected += one.rejected
        out.held += one.held
        out.remaining += one.remaining
        out.attachments_sent += one.attachments_sent
        out.attachments_existing += one.attachments_existing
        out.attachments_rejected += one.attachments_rejected
        out.attachments_remaining += one.attachments_remaining
        out.left_to_others.update(one.left_to_others)
        out.error = one.error or out.error
        out.token_refused = out.token_refused or one.token_refused
    return out


def print_summary(runs: list[dict[str, Any]]) -> None:
    for one in runs:
        params = " ".join(f"{k}={v}" for k, v in one["parameters"].items() if k != "cmd")
        click.echo(f"{one['workload']} {params} [{one['status']}] {one['uuid']}")
        for res in one["results"]:
            click.echo(f"    {res['metric']:<34} {res['value']:>14.3f} {res['unit']}")
        warning = one["meta"].get("warning")
        if warning:
            click.echo(f"    note: {warning}")


def load_runs(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read runs from {path}: {exc}") from exc
    if isinstance(data, dict) and isinstance(data.get("runs"), list):
        data = data["runs"]
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not all(isinstance(r, dict) and "uuid" in r for r in data):
        raise InputError(f'{path} holds no runs (expected {{"runs": [...]}})')
    return data


def print_status(spool: Spool) -> None:
    """What the spool holds: runs waiting (with the server's message if it failed on one),
    runs owned by a running agent, and runs the server rejected."""
    others = spool.claimed_by_others()
    pending = spool.pending()
    click.echo(f"spool {spool.root}: {len(pending)} run(s) waiting to be uploaded")
    for path in pending:
        try:
            run = spool.load(path)
        except FileNotFoundError:  # delivered just now by another process
            continue
        except UnreadableRun as exc:  # the next flush moves it to rejected/
            click.echo(f"  {path.stem}  (unreadable: {exc})")
            continue
        line = f"  {path.stem}  {run.get('workload')}  {run.get('agent')}  {run.get('started_at')}"
        if path.stem in others:
            line += f"  [being run by pid {others[path.stem]}]"
        click.echo(line)
        error = spool.error_of(path.stem)
        if error:
            click.echo(f"      the server failed on it: {error}")
    for run_uuid in spool.attachments_waiting():
        names = ", ".join(p.name for p in spool.attachment_files(run_uuid))
        click.echo(f"  attachments of stored run {run_uuid} waiting: {names}")
    for folder in spool.rejected_attachments():
        for path in sorted(p for p in folder.iterdir() if not p.name.startswith(".")):
            reason = folder / f".{path.name}.reason.txt"
            text = reason.read_text().strip() if reason.exists() else "(no reason recorded)"
            click.echo(f"  attachment {folder.name.split('.')[0]}/{path.name} rejected: {text}")
    rejected = spool.rejected()
    if rejected:
        click.echo(f"{len(rejected)} run(s) rejected by the server (in {spool.rejected_dir}):")
        for path in rejected:
            reason = spool.rejected_dir / f"{path.stem}.reason.txt"
            text = reason.read_text().strip() if reason.exists() else "(no reason recorded)"
            click.echo(f"  {path.stem}: {text}")
