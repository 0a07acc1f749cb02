"""Filesystems made for a study, as root: an image file per filesystem variant, mkfs'd, on a
loop device of its own (whose write cache the variant may set), mounted with the variant's
options; or a tmpfs. Everything made is undone, in reverse, by `release` or `close`, even after
a failure or an interrupt: unmount, restore the loop device's write cache, detach it, remove the
image. A release waits with SIGINT and SIGTERM held, delivering them once done (a study told
to stop between two filesystems stops); the final `close` ignores them, so a second Ctrl-C
cannot leave a mount."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import MountError

# mkfs command and the Debian package that has it.
MKFS = {
    "ext4": (["mkfs.ext4", "-q", "-F"], "e2fsprogs"),
    "xfs": (["mkfs.xfs", "-q", "-f"], "xfsprogs"),
    "btrfs": (["mkfs.btrfs", "-q", "-f"], "btrfs-progs"),
}
FILESYSTEMS = (*MKFS, "tmpfs")
MIN_IMAGE = {"xfs": 320 << 20, "btrfs": 320 << 20}


def missing_tool(fs: str) -> str | None:
    """Why `fs` cannot be made on this machine, or None."""
    if fs == "tmpfs":
        return None
    cmd, package = MKFS[fs]
    if shutil.which(cmd[0]) is None:
        return f"{cmd[0]} is not installed (Debian: apt install {package})"
    if not Path("/dev/loop-control").exists():
        return "this machine has no loop devices (/dev/loop-control)"
    return None


def _run(args: list[str]) -> str:
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise MountError(f"{' '.join(args)} failed: {(proc.stderr or proc.stdout).strip()[:300]}")
    return proc.stdout.strip()


def write_cache_path(device: str) -> Path:
    return Path("/sys/block") / Path(device).name / "queue/write_cache"


class Mounts:
    """Owns a temporary folder (images and mount points) and what is mounted in it."""

    def __init__(self, parent: Path | None, *, keep: bool, say: Callable[[str], None]) -> None:
        parent = parent or Path("/var/tmp" if Path("/var/tmp").is_dir() else tempfile.gettempdir())
        parent.mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix="perfatlas-study-", dir=parent))
        self.keep = keep
        self.say = say
        self._undo: dict[str, list[tuple[str, Callable[[], object]]]] = {}

    def _push(self, key: str, what: str, fn: Callable[[], object]) -> None:
        self._undo.setdefault(key, []).append((what, fn))

    def mount_point(self, key: str) -> Path:
        return self.root / f"mnt-{key}"

    def loop(self, key: str, fs: str, *, size: int, mount: str, write_cache: str) -> str:
        """mkfs an image, attach it, set the write cache, mount it at mount_point(key);
        returns the loop device. Each undo is registered before its step, and a signal waits
        until the whole is done: a Ctrl-C cannot leave a device attached but not undone."""
        image = self.root / f"{key}.img"
        mnt = self.mount_point(key)
        with signals_deferred():
            if not self.keep:
                self._push(key, f"remove {image.name}", lambda: image.unlink(missing_ok=True))
            with image.open("wb") as f:
                f.truncate(max(size, MIN_IMAGE.get(fs, 0)))  # sparse: takes only what is written
            _run([*MKFS[fs][0], str(image)])
            self._push(key, f"detach {image.name}'s loop device", lambda: _detach_image(image))
            device = _run(["losetup", "--find", "--show", str(image)])
            cache = write_cache_path(device)
            before = cache.read_text().strip()
            self._push(key, f"restore {device}'s write cache", lambda: cache.write_text(before))
            # Set even when it is the mode wanted: a loop device keeps a mode set by hand for
            # the next file attached to it, and the default variant must not inherit it.
            cache.write_text(write_cache)
            self._push(key, f"remove {mnt.name}", lambda: _rmdir(mnt))
            mnt.mkdir()
            self._push(key, f"unmount {mnt}", lambda: _umount(mnt))
            _run(["mount", *(["-o", "sync"] if mount == "sync" else []), device, str(mnt)])
        return device

    def tmpfs(self, key: str, *, size: int) -> None:
        mnt = self.mount_point(key)
        with signals_deferred():
            self._push(key, f"remove {mnt.name}", lambda: _rmdir(mnt))
            mnt.mkdir()
            self._push(key, f"unmount {mnt}", lambda: _umount(mnt))
            _run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)])

    def folder(self, key: str, path: Path) -> None:
        """A folder the study made in a target it was given, removed with the key."""
        self._push(key, f"remove {path}", lambda: shutil.rmtree(path, ignore_errors=True))

    def release(self, key: str) -> None:
        """Undo what was made for key, last first; every step is tried. A signal waits until
        the last step is done, then is delivered: between two filesystems of a study, a
        SIGTERM must still stop it (ignored, it was lost and the study went on to exit 0)."""
        with signals_deferred():
            # Taken once the signals are held: a signal's handler raising in between would
            # leave the steps neither done nor in _undo for close().
            steps = self._undo.pop(key, [])
            for what, fn in reversed(steps):
                try:
                    fn()
                except (OSError, MountError) as exc:
                    self.say(f"cleanup: could not {what}: {exc}")

    def close(self) -> None:
        """Undo everything left. Signals are ignored meanwhile: the study is ending anyway,
        and a second Ctrl-C must not cut the cleanup short."""
        with _signals_ignored():
            for key in reversed(list(self._undo)):
                self.release(key)
            if self.keep:
                self.say(f"kept {self.root} (--keep)")
            else:
                shutil.rmtree(self.root, ignore_errors=True)


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _stop_signals_handled(handler: Any) -> Iterator[None]:
    """SIGINT and SIGTERM go to `handler` inside the block, to their own handlers after it.
    Only the main thread gets signals (and may set their handlers): elsewhere, nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, previous in saved.items():
            signal.signal(sig, signal.SIG_DFL if previous is None else previous)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block is done, then are delivered to the handlers they
    had. Held by handlers of our own that only note them: blocking them in this thread alone
    would not do, as the kernel gives a signal sent to the process to any thread not blocking
    it, and Python then runs the handler in this one at once. They are blocked as well, for the
    commands run inside, which inherit the mask: a terminal's Ctrl-C does not kill them
    half-way."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    try:
        with _stop_signals_handled(lambda signum, _frame: held.append(signum)):
            old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
            try:
                yield
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)  # one sent meanwhile is noted
    finally:
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)


def _signals_ignored() -> contextlib.AbstractContextManager[None]:
    return _stop_signals_handled(signal.SIG_IGN)


def _umount(mnt: Path) -> None:
    for _ in range(10):
        proc = subprocess.run(["umount", str(mnt)], capture_output=True, check=False)
        if proc.returncode == 0 or not os.path.ismount(mnt):
            return
        time.sleep(0.2)  # busy: a process that was killed has not let go yet
    _run(["umount", "--lazy", str(mnt)])


def _rmdir(path: Path) -> None:
    if path.exists():
        path.rmdir()


def _detach_image(image: Path) -> None:
    """Detach every loop device backed by image (a lazily unmounted one goes when released)."""
    listed = _run(
        ["losetup", "--list", "--associated", str(image), "--output", "NAME", "--noheadings"]
    )
    for device in listed.split():
        for _ in range(10):
            proc = subprocess.run(["losetup", "--detach", device], capture_output=True)
            if proc.returncode == 0:
                break
            time.sleep(0.2)
        else:
            _run(["losetup", "--detach", device])
