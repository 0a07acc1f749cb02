"""A measured run is never lost: it goes to the spool; when the spool cannot take it (full,
read-only) to the fallback spool; when neither can, it is held in memory and sent to the server
directly; and a run that is still not kept anywhere is printed on stdout, loudly."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Callable
from typing import Any

from perfatlas_agent.errors import UploadError
from perfatlas_agent.measure.attachments import AttachmentFile
from perfatlas_agent.send.client import Client, UploadReport, describe_error
from perfatlas_agent.send.spool import Claim, Spool

Held = tuple[dict[str, Any], list[AttachmentFile]]


class Keeper:
    """Where each run of one invocation went: `spool`, `fallback`, or `in_memory`."""

    def __init__(self, spool: Spool, fallback: Spool | None, say: Callable[[str], None]) -> None:
        self.spool = spool
        self.fallback = fallback if fallback is not None and fallback.root != spool.root else None
        self.say = say
        self.fallback_claim: Claim | None = None
        self.in_fallback: list[str] = []
        self.in_memory: list[Held] = []

    def keep(self, run: dict[str, Any], files: list[AttachmentFile], claim: Claim) -> None:
        run_uuid = str(run["uuid"])
        try:
            claim.add(run_uuid)  # claimed before it is spooled: no other process sends it
            self.spool.put(run, files)
            return
        except OSError as exc:
            self.say(f"cannot write run {run_uuid} to the spool {self.spool.root} ({exc})")
        if self.fallback is not None and self.fallback.usable():
            try:
                if self.fallback_claim is None:
                    self.fallback_claim = self.fallback.claim()
                self.fallback_claim.add(run_uuid)
                self.fallback.put(run, files)
            except OSError as exc:
                self.say(f"cannot write it to the fallback spool {self.fallback.root} ({exc})")
            else:
                self.in_fallback.append(run_uuid)
                self.say(f"run {run_uuid} kept in the fallback spool {self.fallback.root}")
                return
        self.in_memory.append((run, files))
        self.say(f"run {run_uuid} held in memory: it is sent to the server directly")

    def release(self) -> None:
        if self.fallback_claim is not None:
            self.fallback_claim.release()


def send_directly(
    client: Client, held: list[Held], on_message: Callable[[str], None]
) -> tuple[UploadReport, list[Held]]:
    """POST each held run (no spool to batch from), then its files; returns the report and the
    runs the server did not take (refused, or not reached), which only the caller now has."""
    report = UploadReport()
    left: list[Held] = []
    for index, (run, files) in enumerate(held):
        run_uuid = str(run["uuid"])
        try:
            response = client.post("/api/v1/runs", run)
        except UploadError as exc:
            report.error = str(exc)
            left += held[index:]
            break
        if response.status_code in (401, 403):
            report.error = f"the server refused the token ({describe_error(response)})"
            report.token_refused = True
            left += held[index:]
            break
        if response.status_code not in (200, 201):
            reason = describe_error(response)
            if response.status_code in (409, 413, 422):
                report.rejected.append((run_uuid, reason))
            else:
                report.held.append((run_uuid, f"the server did not take it: {reason}"))
            left.append((run, files))
            continue
        (report.created if response.status_code == 201 else report.existing).append(run_uuid)
        for one in files:
            name = urllib.parse.quote(one.name, safe="")
            try:
                put = client.put(
                    f"/api/v1/runs/{run_uuid}/attachments/{name}", one.content, one.media_type
                )
            except UploadError as exc:
                put_problem = str(exc)
            else:
                if put.status_code == 201:
                    report.attachments_sent += 1
                    continue
                if put.status_code == 200:
                    report.attachments_existing += 1
                    continue
                put_problem = describe_error(put)
            report.attachments_rejected.append((f"{run_uuid}/{one.name}", put_problem))
            on_message(f"attachment {one.name} of run {run_uuid} not stored: {put_problem}")
    return report, left


def print_unkept(left: list[Held], say: Callable[[str], None]) -> None:
    """The last resort: the runs' JSON on stdout (one line, `{"runs": [...]}`), which
    `perfatlas-agent upload FILE` takes once saved to a file."""
    say(
        f"LOST UNLESS SAVED: {len(left)} run(s) could not be spooled nor delivered; their JSON "
        'is the line on stdout starting with {"runs": save it to a file and send it with '
        "`perfatlas-agent upload FILE`"
    )
    files = [f"{run['uuid']}/{one.name}" for run, kept in left for one in kept]
    if files:
        say(f"their attachments are not kept: {', '.join(files)}")
    print(json.dumps({"runs": [run for run, _ in left]}, sort_keys=True), flush=True)
