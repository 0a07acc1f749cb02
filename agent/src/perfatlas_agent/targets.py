"""The target guard: the agent works only in an empty folder or in a work folder it made."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from perfatlas_agent._exceptions import TargetError

WORK_SUBDIR = "perfatlas-agent.work"
MARKER = ".perfatlas-agent-owned"


def _is_mount_point(path: Path) -> bool:
    return os.path.ismount(path)


def claim_target(target: Path, *, force: bool) -> Path:
    """Make (or reuse) the agent-owned work folder inside target; refuse foreign content."""
    target = target.expanduser().absolute()
    if target.exists() and not target.is_dir():
        raise TargetError(f"target {target} is not a folder")
    target.mkdir(parents=True, exist_ok=True)
    work = target / WORK_SUBDIR
    ignorable = {WORK_SUBDIR}
    if _is_mount_point(target):
        ignorable.add("lost+found")
    foreign = sorted(e for e in os.listdir(target) if e not in ignorable)
    if foreign and not force:
        shown = ", ".join(foreign[:5]) + (" ..." if len(foreign) > 5 else "")
        raise TargetError(
            f"target {target} is not empty ({shown}); the agent only runs in an empty folder or "
            "one it owns. Point it at an empty folder, or pass --force to run in a subfolder "
            f"{WORK_SUBDIR}/ that it creates and removes."
        )
    if work.exists() and not (work / MARKER).exists():
        raise TargetError(
            f"{work} exists but was not made by the agent; remove it or pick another target"
        )
    work.mkdir(exist_ok=True)
    marker = work / MARKER
    if not marker.exists():
        marker.write_text("made by perfatlas-agent; safe to delete\n")
    return work


def release_target(work: Path) -> None:
    if (work / MARKER).exists():
        shutil.rmtree(work, ignore_errors=True)
