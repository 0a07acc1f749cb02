"""`perfatlas-agent upload [FILE]`: FILE's runs through the spool, as many as it can hold at a
time, then the spool and the fallback spool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from perfatlas_agent.errors import UploadError
from perfatlas_agent.measure.attachments import output_dir, read_dir
from perfatlas_agent.send.client import UploadReport
from perfatlas_agent.send.report import (
    EXIT_LEFT,
    EXIT_REJECTED,
    exit_code,
    flush_spool,
    load_runs,
    merge,
    say,
)
from perfatlas_agent.send.spool import Spool


def queue(spool: Spool, runs: list[dict[str, Any]], file: Path) -> tuple[int, str | None]:
    """Spool runs in order until one does not fit: (how many were spooled, why it stopped)."""
    for count, one in enumerate(runs):
        try:
            spool.put(one, read_dir(output_dir(file) / str(one["uuid"])))
        except OSError as exc:
            return count, str(exc)
    return len(runs), None


def upload_command(
    file: Path | None, spool: Spool, fallback: Spool, server: str | None, token: str | None,
    deadline: float,
) -> int:  # fmt: skip
    reports: list[UploadReport] = []
    left: list[dict[str, Any]] = []
    spool.clean_leftovers()
    if file is not None:
        left = load_runs(file)
        total = len(left)
        while left:
            count, problem = queue(spool, left, file)
            left = left[count:]
            say(f"queued {count} run(s) from {file}")
            if problem is None or not server:
                if problem is not None:
                    say(f"the spool {spool.root} is full ({problem})", fg="red")
                break
            # The spool is full: what it holds goes up (and leaves it), then the rest.
            say(f"the spool {spool.root} is full ({problem}); sending what it holds", fg="yellow")
            reports.append(flush_spool(spool, server, token, deadline))
            if not reports[-1].delivered or reports[-1].error:
                break  # nothing left the spool: another round would queue nothing
        if left:
            say(
                f"{len(left)} of the {total} run(s) of {file} were not queued (no room in the "
                f"spool); they are still in {file}: run `perfatlas-agent upload {file}` again "
                "once there is room (a run sent twice is stored once)",
                fg="red",
            )
    spools = [spool]
    if fallback.root != spool.root and fallback.owned() and fallback.pending():
        spools.append(fallback)
    if not server:
        waiting = sum(len(s.pending()) for s in spools)
        raise UploadError(
            f"no server: pass --server or set PERFATLAS_SERVER ({waiting} run(s) in the spool "
            f"{', '.join(str(s.root) for s in spools)})"
        )
    for one in spools:
        if one is fallback:
            say(f"sending the runs of the fallback spool {fallback.root}")
        if one.pending() or one.attachments_waiting():
            reports.append(flush_spool(one, server, token, deadline))
    if not reports and not left:
        say(f"nothing to upload; the spool {spool.root} is empty")
        return 0
    code = exit_code(merge(reports))
    return EXIT_LEFT if left and code in (0, EXIT_REJECTED) else code
