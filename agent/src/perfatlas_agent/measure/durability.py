"""Where a flush goes: the block devices behind a filesystem and whether an fsync reaches
stable storage on them (seed 004: a cache that acknowledges writes before they are safe).

The kernel's write-cache mode (/sys/block/X/queue/write_cache) is `write back` when it sends
flushes to the device and `write through` when it does not. `write through` is safe only when
the device itself has no volatile cache; an administrator can also write `write through` over
a device that still caches (since Linux 6.11 this only sets a flag: the device keeps caching and
the kernel drops every flush). So the agent compares the kernel's mode with the device's own
cache where the device reports it: SCSI/SATA `device/scsi_disk/*/cache_type`, virtio-blk
`cache_type`, NVMe's volatile write cache bit (`nvme id-ctrl`, when nvme-cli is installed), and
a loop device's backing file (the host's page cache: it caches unless the loop device is backed
by something that cannot fsync). When it cannot tell, the answer is None (unknown)."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})
# Block devices that are memory: compressed RAM (zram) and the RAM disk driver (brd).
_MEMORY_DEVICES = re.compile(r"^(zram|ram)\d+$")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace").strip()
    except OSError:
        return None


def block_dir(major_minor: str) -> Path | None:
    """The sysfs folder of the whole disk behind major:minor (a partition maps to its disk)."""
    link = Path("/sys/dev/block") / major_minor
    if not link.exists():
        return None
    real = link.resolve()
    if (real / "partition").exists():
        real = real.parent
    return real


def resolve_major_minor(major_minor: str, source: str) -> str:
    """The real device of a mount: btrfs (and other multi-device filesystems) report an
    anonymous device (major 0) in st_dev and mountinfo, so use the mount source's device."""
    if not major_minor.startswith("0:") or not source.startswith("/"):
        return major_minor
    try:
        st = os.stat(source)
    except OSError:
        return major_minor
    if not stat.S_ISBLK(st.st_mode):
        return major_minor
    return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"


def btrfs_members(block: Path) -> list[Path]:
    """Every device of the btrfs filesystem that `block` belongs to (/sys/fs/btrfs/*/devices)."""
    root = Path("/sys/fs/btrfs")
    if not root.is_dir():
        return [block]
    for fs_dir in root.iterdir():
        devices = fs_dir / "devices"
        if not devices.is_dir():
            continue
        members = [d.resolve() for d in devices.iterdir()]
        disks = [m.parent if (m / "partition").exists() else m for m in members]
        if block in disks:
            return sorted(set(disks))
    return [block]


@dataclass(frozen=True)
class CacheFacts:
    kernel_mode: str  # "write back" | "write through" | "unknown"
    device_cache: str  # the device's own cache: "write back" | "write through" | "unknown"
    source: str  # where device_cache came from
    flush_to_device: bool | None
    memory: bool = False  # the data ends in memory (zram, a RAM disk, a loop file on tmpfs)


def _device_cache(block: Path) -> tuple[str, str]:
    """The device's own volatile cache, as the device (not the kernel's setting) says."""
    name = block.name
    if (block / "loop").is_dir():
        return "unknown", "loop without a backing file"
    for ct in sorted((block / "device/scsi_disk").glob("*/cache_type")):
        value = _read(ct)
        if value:
            return _cache_words(value), "scsi_disk cache_type"
    value = _read(block / "cache_type")  # virtio-blk
    if value:
        return _cache_words(value), "virtio cache_type"
    if name.startswith("nvme"):
        return _nvme_vwc(block)
    return "unknown", "the device does not report its cache"


def _cache_words(value: str) -> str:
    # scsi_disk says "write back", "write through", "none", "write back, no read (daft)"...
    if value.startswith("write back"):
        return "write back"
    if value.startswith(("write through", "none")):
        return "write through"
    return "unknown"


def _nvme_vwc(block: Path) -> tuple[str, str]:
    ctrl = re.sub(r"^(nvme\d+).*", r"\1", block.name)  # nvme0n1 -> nvme0
    if shutil.which("nvme") is None:
        return "unknown", "NVMe: install nvme-cli to read the volatile write cache bit"
    try:
        proc = subprocess.run(
            ["nvme", "id-ctrl", f"/dev/{ctrl}", "-o", "json"],
            capture_output=True, text=True, timeout=5, check=False,
        )  # fmt: skip
        vwc = int(json.loads(proc.stdout)["vwc"])
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        return "unknown", "NVMe: nvme id-ctrl failed"
    return ("write back" if vwc & 1 else "write through"), "NVMe id-ctrl vwc"


def _backing_file_facts(backing: str, depth: int) -> tuple[bool | None, bool]:
    """Where a loop device's flush (an fsync of its backing file) ends: (flush, memory)."""
    from perfatlas_agent.measure.env import find_mount  # env builds on this module

    mount = find_mount(backing)
    if mount is None or depth > 3:
        return None, False
    if mount.fs_type in MEMORY_FILESYSTEMS:
        return False, True
    block = block_dir(resolve_major_minor(mount.major_minor, mount.source))
    if block is None:
        return None, False
    below = [cache_facts(b, depth + 1) for b in _members(mount.fs_type, block)]
    return combine([b.flush_to_device for b in below]), all(b.memory for b in below)


def _members(fs_type: str, block: Path) -> list[Path]:
    return btrfs_members(block) if fs_type == "btrfs" else [block]


def cache_facts(block: Path, depth: int = 0) -> CacheFacts:
    """The kernel's mode, the device's own cache, and whether a flush reaches stable storage."""
    mode = _read(block / "queue/write_cache") or ""
    kernel = mode if mode in ("write back", "write through") else "unknown"
    if _MEMORY_DEVICES.match(block.name):
        return CacheFacts(kernel, "unknown", "memory (zram/ram disk)", False, memory=True)
    backing = _read(block / "loop/backing_file") if (block / "loop").is_dir() else None
    if backing:
        # A loop device's flush is an fsync of its file: it goes as far as that file's
        # filesystem takes it (nowhere on tmpfs), unless the kernel drops it here.
        below, memory = _backing_file_facts(backing.removesuffix(" (deleted)"), depth)
        loop_flush = {"write back": below, "write through": False}.get(kernel)
        source = "loop: the backing file's page cache (a flush becomes its fsync)"
        return CacheFacts(kernel, "write back", source, loop_flush, memory=memory)
    slaves = sorted(p.resolve() for p in (block / "slaves").glob("*"))
    if slaves:
        # A stacked device (dm, md): a flush reaches storage only if it does on every member.
        members = [cache_facts(s, depth) for s in slaves]
        below = combine([m.flush_to_device for m in members])
        if kernel == "write through" and any(m.device_cache == "write back" for m in members):
            below = False  # dropped at this level, above members that cache
        memory = all(m.memory for m in members)
        return CacheFacts(kernel, "members", "its member devices", below, memory=memory)
    device, source = _device_cache(block)
    flush: bool | None
    if kernel == "write back":
        flush = True  # the kernel sends flushes (REQ_PREFLUSH/FUA) to the device
    elif kernel == "write through":
        # No flushes are sent: safe when the device has no volatile cache, lost when it has.
        flush = {"write back": False, "write through": True}.get(device)
    else:
        flush = None
    return CacheFacts(kernel, device, source, flush)


def combine(values: list[bool | None]) -> bool | None:
    """False if any is False, None if any is unknown, else True."""
    if any(v is False for v in values):
        return False
    if not values or any(v is None for v in values):
        return None
    return True


def storage_facts(fs_type: str, blocks: list[Path]) -> dict[str, Any]:
    """memory_backed, write_cache (the kernel's words), device_write_cache, flush_to_device."""
    if fs_type in MEMORY_FILESYSTEMS:
        return {"memory_backed": True, "flush_to_device": False, "write_cache": "unknown"}
    if not blocks:
        return {"memory_backed": None, "flush_to_device": None, "write_cache": "unknown"}
    facts = [cache_facts(b) for b in blocks]
    modes = {f.kernel_mode for f in facts}
    devices = {f.device_cache for f in facts}
    out: dict[str, Any] = {
        "memory_backed": all(f.memory for f in facts),
        "write_cache": modes.pop() if len(modes) == 1 else "unknown",
        "device_write_cache": devices.pop() if len(devices) == 1 else "unknown",
        "device_write_cache_source": facts[0].source,
        "flush_to_device": combine([f.flush_to_device for f in facts]),
    }
    return out
