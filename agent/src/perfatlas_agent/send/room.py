"""Room for the runs a command will make, checked before anything is measured: a run measured
for an hour and then lost to a full disk is the worst way to learn the disk was full."""

from __future__ import annotations

import os
from pathlib import Path

from perfatlas_agent.errors import NoRoom
from perfatlas_agent.measure.attachments import MAX_RUN_BYTES
from perfatlas_agent.measure.sweep import RunRequest, plan_runs
from perfatlas_agent.workloads.base import Workload

# A run's JSON: environment, parameters, labels, meta and its metrics (measured: 4.5 KB for a
# `command` run of 3 repetitions, 15 KB for `smallfile` of 5), plus every metric's samples per
# repetition. Bounds, with room to spare, not estimates.
RUN_JSON_BYTES = 256 * 1024
REPETITION_BYTES = 16 * 1024
# Folder entries, lock files, the reasons beside rejected runs.
SLACK_BYTES = 256 * 1024


def writes_attachments(workload: Workload) -> bool:
    return type(workload).attachments is not Workload.attachments


def bound(requests: list[RunRequest]) -> tuple[int, int]:
    """(runs, bytes): the runs the requests make and a bound on the bytes they need kept:
    every run's JSON, and one run's attachments at their limit (later runs' files go to the
    fallback spool if they do not fit, rather than refusing a sweep over a worst case)."""
    runs = 0
    total = SLACK_BYTES
    files = 0
    for request in requests:
        workload, points = plan_runs(request)
        runs += len(points)
        total += len(points) * (RUN_JSON_BYTES + (request.repetitions + 1) * REPETITION_BYTES)
        if writes_attachments(workload):
            files = MAX_RUN_BYTES
    return runs, total + files


def free_bytes(folder: Path) -> int:
    """Bytes an unprivileged writer may still use where folder is (or would be made)."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    st = os.statvfs(probe)
    return st.f_bavail * st.f_frsize


def mib(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB"


def check_room(folder: Path, what: str, requests: list[RunRequest]) -> None:
    """NoRoom, saying how much is free and needed, when folder cannot keep the requests' runs."""
    runs, need = bound(requests)
    try:
        free = free_bytes(folder)
    except OSError as exc:
        raise NoRoom(f"{what} {folder} cannot be used ({exc}); nothing was run") from exc
    if free < need:
        raise NoRoom(
            f"{what} {folder} has {mib(free)} free, and the {runs} run(s) asked for may need "
            f"up to {mib(need)} there; nothing was run. Free some space, or point it at "
            "another filesystem"
        )
