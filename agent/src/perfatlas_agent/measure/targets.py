"""The target guard: the agent works only in an empty folder or in a work folder it made.

Two agents may share a target (one host, or one network mount seen by two machines): each holds a
shared lock on the work folder's marker while it runs, and only the last one out removes the
folder, so neither deletes the other's runs."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

from perfatlas_agent.errors import TargetError

WORK_SUBDIR = "perfatlas-agent.work"
MARKER = ".perfatlas-agent-owned"
MARKER_TEXT = b"made by perfatlas-agent; safe to delete\n"


class WorkFolder:
    """The agent's work folder inside a target, held until `release_target`."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def release(self) -> None:
        """Removes the folder unless another agent still holds it."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # another agent works here: it removes the folder when it is done
        else:
            shutil.rmtree(self.path, ignore_errors=True)
        finally:
            os.close(fd)


def _is_mount_point(path: Path) -> bool:
    return os.path.ismount(path)


def claim_target(target: Path, *, force: bool) -> WorkFolder:
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
    while True:
        work.mkdir(exist_ok=True)
        marker = work / MARKER
        fd = os.open(marker, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_SH)  # waits only while a last one out removes the folder
        try:
            same = os.stat(marker).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the folder was removed as we opened it: make it again
    os.pwrite(fd, MARKER_TEXT, 0)
    return WorkFolder(work, fd)


def release_target(work: WorkFolder) -> None:
    work.release()
