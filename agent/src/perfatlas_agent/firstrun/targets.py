"""Where the first run measures: a folder on an already mounted tmpfs (no root needed), and as
root loop-mounted ext4, xfs and btrfs images (when their mkfs is installed), one per variant
the studies run there (the default mount; `-o sync`; the write cache set to write through),
made with the studies' mounts module at fixed paths under the first run's folder, so the
schedules' targets stay true from one `make up` to the next. A run killed without its cleanup leaves mounts and
loop devices there: `clean_stale` undoes them before anything is made again."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfatlas_agent.errors import MountError
from perfatlas_agent.measure.env import find_mount
from perfatlas_agent.studies.model import DEFAULT, Variant
from perfatlas_agent.studies.mounts import MKFS, Mounts, missing_tool
from perfatlas_agent.studies.places import writable_tmpfs

Say = Callable[[str], None]
DEFAULT_VARIANT = Variant(DEFAULT)
DISK_FILESYSTEMS = tuple(MKFS)  # ext4, xfs, btrfs
ALL_FILESYSTEMS = ("tmpfs", *DISK_FILESYSTEMS)
IMAGE_BYTES = 1 << 30  # a quick study's image (sparse: takes what is written)


@dataclass(frozen=True)
class Target:
    fs: str
    folder: Path  # the spec's target: a folder inside the filesystem
    memory: bool
    # How it is mounted: a tmpfs only ever has the default.
    variant: Variant = DEFAULT_VARIANT

    @property
    def key(self) -> str:
        return mount_key(self.fs, self.variant)


def mount_key(fs: str, variant: Variant) -> str:
    """A target's name among the first run's mounts: ext4, ext4-sync, ext4-write-through."""
    return fs if variant.name == DEFAULT else f"{fs}-{variant.name}"


class FixedMounts(Mounts):
    """The studies' Mounts at a fixed folder (not a new temporary one)."""

    def __init__(self, root: Path, *, say: Say) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.keep = False
        self.say = say
        self._undo = {}


def tmpfs_folder(tmpfs: Path, root: Path) -> Path:
    """The first run's folder on a tmpfs: fixed for its root (one `make up` to the next), apart
    from another first run's on the same machine (another data folder), which removes its own
    when it is done."""
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:12]
    return tmpfs / f"perfatlas-firstrun-{os.getuid()}-{digest}"


def parse_filesystems(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALL_FILESYSTEMS]
    if unknown:
        raise ValueError(
            f"unknown filesystem {', '.join(unknown)}; known: {', '.join(ALL_FILESYSTEMS)}"
        )
    return list(dict.fromkeys(names))


def planned(
    root: Path, filesystems: list[str], *, is_root: bool, say: Say,
    variants: Sequence[Variant] = (DEFAULT_VARIANT,),
) -> list[Target]:  # fmt: skip
    """The targets this machine allows, in order, a disk filesystem once per variant; says
    what it leaves out and why."""
    out: list[Target] = []
    for fs in filesystems:
        if fs == "tmpfs":
            found = writable_tmpfs()
            if found is None:
                say("first run: no writable tmpfs is mounted (/dev/shm): left out tmpfs")
                continue
            out.append(Target("tmpfs", tmpfs_folder(found, root), memory=True))
            continue
        if not is_root:
            say(f"first run: {fs} needs root (a loop-mounted image): left out")
            continue
        why = missing_tool(fs)
        if why:
            say(f"first run: left out {fs}: {why}")
            continue
        for variant in variants:
            folder = root / f"mnt-{mount_key(fs, variant)}" / "bench"
            out.append(Target(fs, folder, memory=False, variant=variant))
    return out


def mounted_under(root: Path) -> list[str]:
    """Mount points at or under root, deepest first (from /proc/self/mountinfo)."""
    real = os.path.realpath(root)
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].replace("\\040", " ")
        if point == real or point.startswith(real.rstrip("/") + "/"):
            found.append(point)
    return sorted(set(found), key=len, reverse=True)


def loop_devices_of(root: Path) -> list[str]:
    """Loop devices whose backing file is in root."""
    if shutil.which("losetup") is None:
        return []
    proc = subprocess.run(["losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    real = os.path.realpath(root).rstrip("/") + "/"
    out = []
    for line in proc.stdout.splitlines():
        name, _, back = line.strip().partition(" ")
        back = back.strip().removesuffix(" (deleted)")
        if back.startswith(real):
            out.append(name)
    return out


def clean_stale(root: Path, say: Say) -> None:
    """Unmount and detach what a killed first run left in root, and remove its images."""
    for point in mounted_under(root):
        say(f"first run: unmounting {point}, left by a run that did not clean up")
        subprocess.run(["umount", point], capture_output=True, check=False)
        if os.path.ismount(point):
            subprocess.run(["umount", "--lazy", point], capture_output=True, check=False)
    for device in loop_devices_of(root):
        say(f"first run: detaching {device}, left by a run that did not clean up")
        subprocess.run(["losetup", "--detach", device], capture_output=True, check=False)
    if root.is_dir():
        for image in root.glob("*.img"):
            image.unlink(missing_ok=True)
        for folder in root.glob("mnt-*"):
            if not os.path.ismount(folder):
                shutil.rmtree(folder, ignore_errors=True)


def prepare(root: Path, targets: list[Target], say: Say) -> tuple[FixedMounts, list[Target]]:
    """Mount each disk filesystem's image and make every target folder; returns the mounts
    (close them to undo) and the targets ready (one that failed is said and left out)."""
    clean_stale(root, say)
    mounts = FixedMounts(root, say=say)
    ready: list[Target] = []
    for target in targets:
        try:
            if not target.memory:
                variant = target.variant
                device = mounts.loop(target.key, target.fs, size=IMAGE_BYTES,
                                     mount=variant.mount, write_cache=variant.write_cache)  # fmt: skip
                say(f"first run: {target.fs} image ({variant.describe()}) on {device} at "
                    f"{mounts.mount_point(target.key)}")  # fmt: skip
            else:
                mount = find_mount(target.folder.parent)
                if mount is None or mount.fs_type != "tmpfs":
                    raise MountError(f"{target.folder.parent} is not on a tmpfs any more")
                mounts.folder(target.key, target.folder)
            target.folder.mkdir(parents=True, exist_ok=True)
            ready.append(target)
        except (MountError, OSError) as exc:
            say(f"first run: left out {target.key}: {exc}")
            mounts.release(target.key)
    return mounts, ready
