"""The spool: every finished run is on disk (write, fsync, rename) until the server has it.

Several agent processes may share one spool. Each `run` claims the runs it makes (a lock file
under `.owners/` that it holds while it lives, listing their uuids), so another process leaves
them to it; a claim whose process died is released. Flushes take `.flush.lock` in turn, so two
processes never send one run at the same time.

A run's attachments wait in `<uuid>.attachments/` beside it, written before the run itself (so
a spooled run always has them whole). They are sent once the server has the run, and each
file leaves the spool when the server acknowledged it; the folder outlives the run's JSON
until then.

A poisoned file (not JSON, nested too deep to read, not one run, or a run whose uuid is not its
file's name) never blocks the others: `load` raises UnreadableRun, and the flush moves the file
to `rejected/` with the reason. Temporary files of a write that died are removed by the next
flush (`clean_leftovers`)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import stat
import time
import uuid as uuid_mod
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import UnreadableRun
from perfatlas_agent.measure.attachments import AttachmentFile

REJECTED = "rejected"
ERRORS = "errors"
OWNERS = ".owners"
ATTACHMENTS = ".attachments"


def default_spool_dir() -> Path:
    env = os.environ.get("PERFATLAS_AGENT_SPOOL")
    if env:
        return Path(env).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "perfatlas-agent" / "spool"


def default_fallback_dir() -> Path:
    """Where a run goes when the spool cannot take it (full, read-only): /var/tmp survives a
    reboot, and is often another filesystem than the spool's."""
    env = os.environ.get("PERFATLAS_AGENT_FALLBACK_SPOOL")
    if env:
        return Path(env).expanduser()
    return Path("/var/tmp") / f"perfatlas-agent-{os.getuid()}" / "spool"


# `.<name>.<pid>.tmp` (write_durably) and `.<pid>-<hex>.lock.tmp` (a claim being made).
_TMP_PID = re.compile(r"^\.(?:.*\.)?(\d+)\.tmp$|^\.(\d+)-[0-9a-f]+\.lock\.tmp$")
# A temporary file without a pid in its name is a leftover once this old.
_TMP_STALE_S = 3600.0


def _writer_alive(path: Path) -> bool:
    match = _TMP_PID.match(path.name)
    if match is None:
        try:
            return time.time() - path.stat().st_mtime < _TMP_STALE_S
        except FileNotFoundError:
            return True
    pid = int(match.group(1) or match.group(2))
    if pid == os.getpid():
        return False  # this process's own writes remove their temporary file when they fail
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_durably(path: Path, data: bytes) -> None:
    """Write to a temporary name in the same folder, fsync, rename over path, fsync the folder.
    A write that fails (ENOSPC...) removes its temporary file and leaves path as it was."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


class Spool:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or default_spool_dir()).expanduser()

    @property
    def rejected_dir(self) -> Path:
        return self.root / REJECTED

    def _ensure(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)

    def put(self, run: dict[str, Any], files: list[AttachmentFile] | None = None) -> Path:
        """Spool a run (its files first). On a failed write (OSError: ENOSPC, EROFS...) the
        spool is left as it was (no half-written run, no files of a run it does not hold) and
        the error raised: the caller still holds the run."""
        self._ensure()
        folder = self.attachments_dir(str(run["uuid"]))
        made_folder = False
        try:
            if files:
                made_folder = not folder.is_dir()
                folder.mkdir(exist_ok=True, mode=0o700)
                for one in files:
                    write_durably(folder / one.name, one.content)
            path = self.root / f"{run['uuid']}.json"
            write_durably(path, json.dumps(run, sort_keys=True).encode())
        except OSError:
            if made_folder:  # else the files would pass for those of a run the server has
                shutil.rmtree(folder, ignore_errors=True)
            raise
        return path

    def owned(self) -> bool:
        """The folder is a real folder (not a link) of this user: the fallback spool lives in
        the world-writable /var/tmp, where another user could have made it first."""
        try:
            st = os.lstat(self.root)
        except OSError:
            return False
        return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()

    def usable(self) -> bool:
        """The folder can be written by this user: made here if need be, and owned()."""
        try:
            self._ensure()
        except OSError:
            return False
        return self.owned()

    def clean_leftovers(self) -> int:
        """Remove the temporary files of writes whose process died; returns how many."""
        if not self.root.is_dir():
            return 0
        folders = [self.root, self.root / ERRORS, self.root / OWNERS, self.rejected_dir]
        folders += self.root.glob(f"*{ATTACHMENTS}")
        folders += self.rejected_dir.glob(f"*{ATTACHMENTS}")
        removed = 0
        for folder in folders:
            if not folder.is_dir():
                continue
            for path in folder.glob(".*.tmp"):
                if _writer_alive(path):
                    continue
                with contextlib.suppress(OSError):  # gone already, or a read-only spool
                    path.unlink()
                    removed += 1
        return removed

    # ---- attachments: sent after their run is stored ----

    def attachments_dir(self, run_uuid: str) -> Path:
        return self.root / f"{run_uuid}{ATTACHMENTS}"

    def attachment_files(self, run_uuid: str) -> list[Path]:
        folder = self.attachments_dir(run_uuid)
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))

    def attachments_waiting(self) -> list[str]:
        """Runs the server has (their JSON left the spool) whose attachments are not all sent."""
        if not self.root.is_dir():
            return []
        waiting = []
        for folder in sorted(self.root.glob(f"*{ATTACHMENTS}")):
            run_uuid = folder.name.removesuffix(ATTACHMENTS)
            if (self.root / f"{run_uuid}.json").exists():
                continue
            if self.attachment_files(run_uuid):
                waiting.append(run_uuid)
            else:
                with contextlib.suppress(OSError):
                    folder.rmdir()
        return waiting

    def attachment_sent(self, path: Path) -> None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # the last one
        _fsync_dir(self.root)

    def rejected_attachments(self) -> list[Path]:
        """Folders under rejected/ of files the server refused (and those of refused runs)."""
        if not self.rejected_dir.is_dir():
            return []
        return sorted(p for p in self.rejected_dir.glob(f"*{ATTACHMENTS}") if p.is_dir())

    def reject_attachment(self, path: Path, reason: str) -> Path:
        """Move an attachment the server refused to rejected/<uuid>.attachments/, with why."""
        dst_dir = self.rejected_dir / path.parent.name
        dst_dir.mkdir(parents=True, exist_ok=True)
        write_durably(dst_dir / f".{path.name}.reason.txt", reason.encode() + b"\n")
        dst = dst_dir / path.name
        if path.exists():
            os.replace(path, dst)
            _fsync_dir(dst_dir)
        with contextlib.suppress(OSError):
            path.parent.rmdir()
        return dst

    def pending(self) -> list[Path]:
        """Spooled runs, oldest first (temporary files of an interrupted write are ignored)."""
        if not self.root.is_dir():
            return []
        stamped: list[tuple[int, str, Path]] = []
        for p in self.root.glob("*.json"):
            if p.name.startswith("."):
                continue
            try:
                stamped.append((p.stat().st_mtime_ns, p.name, p))
            except FileNotFoundError:  # another agent process delivered it just now
                continue
        return [p for _, _, p in sorted(stamped)]

    def rejected(self) -> list[Path]:
        if not self.rejected_dir.is_dir():
            return []
        return sorted(self.rejected_dir.glob("*.json"))

    @staticmethod
    def load(path: Path) -> dict[str, Any]:
        """The run in path. FileNotFoundError when it went (another process delivered it);
        UnreadableRun, with the reason, for anything else that makes it unusable."""
        try:
            data = json.loads(path.read_bytes())
        except FileNotFoundError:
            raise
        except RecursionError:
            raise UnreadableRun("nested too deeply to read (not a run the agent wrote)") from None
        except UnicodeDecodeError as exc:
            raise UnreadableRun(f"not UTF-8 text ({exc})") from None
        except ValueError as exc:
            raise UnreadableRun(f"not JSON ({exc})") from None
        except OSError as exc:
            raise UnreadableRun(f"cannot be read ({exc})") from None
        except Exception as exc:  # whatever else a file can do to a parser: never block a flush
            raise UnreadableRun(f"cannot be read ({type(exc).__name__}: {exc})") from None
        if not isinstance(data, dict):
            raise UnreadableRun(f"holds a JSON {type(data).__name__}, not one run")
        if str(data.get("uuid")) != path.stem:
            # Sent as it is, the server would store the other uuid and this file never leave.
            raise UnreadableRun(
                f"its uuid {str(data.get('uuid'))[:80]!r} is not its file's name {path.stem!r}"
            )
        return data

    def remove(self, run_uuid: str) -> None:
        path = self.root / f"{run_uuid}.json"
        with contextlib.suppress(FileNotFoundError):
            (self.root / ERRORS / f"{run_uuid}.txt").unlink()
        try:
            path.unlink()
        except FileNotFoundError:
            return
        _fsync_dir(self.root)

    def reject(self, run_uuid: str, reason: str) -> Path:
        """Move a run the server refused to rejected/, with the server's reason beside it."""
        self.rejected_dir.mkdir(parents=True, exist_ok=True)
        src = self.root / f"{run_uuid}.json"
        dst = self.rejected_dir / src.name
        with contextlib.suppress(OSError):  # a full disk: the file still goes, the flush says why
            write_durably(self.rejected_dir / f"{run_uuid}.reason.txt", reason.encode() + b"\n")
        if src.exists():
            os.replace(src, dst)
            _fsync_dir(self.rejected_dir)
            _fsync_dir(self.root)
        folder = self.attachments_dir(run_uuid)
        if folder.is_dir():  # a run refused keeps its files beside it
            with contextlib.suppress(OSError):
                os.replace(folder, self.rejected_dir / folder.name)
        return dst

    # ---- runs the server failed on (5xx): kept, with the server's message, and retried ----

    def note_error(self, run_uuid: str, message: str) -> None:
        (self.root / ERRORS).mkdir(parents=True, exist_ok=True)
        write_durably(self.root / ERRORS / f"{run_uuid}.txt", message.encode() + b"\n")

    def error_of(self, run_uuid: str) -> str | None:
        try:
            return (self.root / ERRORS / f"{run_uuid}.txt").read_text().strip()
        except OSError:
            return None

    # ---- per-invocation ownership and the flush lock ----

    @contextlib.contextmanager
    def flush_lock(self) -> Iterator[None]:
        self._ensure()
        fd = os.open(self.root / ".flush.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def claim(self) -> Claim:
        """This process's claim on the runs it will spool (held until release or exit)."""
        return Claim(self)

    def claimed_by_others(self, mine: Claim | None = None) -> dict[str, int]:
        """uuid -> pid of every run claimed by another live process; dead claims are removed."""
        owners = self.root / OWNERS
        if not owners.is_dir():
            return {}
        found: dict[str, int] = {}
        for path in sorted(owners.glob("*.lock")):
            if mine is not None and path == mine.path:
                continue
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # its process is alive and holds it
                    head = path.name.split("-")[0]
                    pid = int(head) if head.isdigit() else 0
                    for line in path.read_bytes().decode(errors="replace").split():
                        found[line] = pid
                    continue
                path.unlink(missing_ok=True)  # its process died: the runs are anyone's
            finally:
                os.close(fd)
        return found


class Claim:
    """A lock file in .owners/, locked before it gets its name (so it is never seen unlocked)."""

    def __init__(self, spool: Spool) -> None:
        owners = spool.root / OWNERS
        owners.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = f"{os.getpid()}-{uuid_mod.uuid4().hex[:8]}.lock"
        tmp = owners / f".{name}.tmp"
        self.fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        self.path = owners / name
        os.replace(tmp, self.path)
        self.uuids: set[str] = set()

    def add(self, run_uuid: str) -> None:
        os.write(self.fd, f"{run_uuid}\n".encode())
        self.uuids.add(run_uuid)

    def release(self) -> None:
        if self.fd < 0:
            return
        self.path.unlink(missing_ok=True)
        os.close(self.fd)
        self.fd = -1
