"""Environment capture: a flat, diffable dict of what a run ran on (machine, device, fs)."""

from __future__ import annotations

import os
import platform
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfatlas_agent import __version__
from perfatlas_agent.measure.durability import (
    block_dir,
    btrfs_members,
    resolve_major_minor,
    storage_facts,
)


@dataclass(frozen=True)
class MountInfo:
    mount_point: str
    fs_type: str
    source: str
    options: str
    major_minor: str


def _read(path: str | Path) -> str | None:
    try:
        return Path(path).read_text(errors="replace").strip()
    except OSError:
        return None


def _unescape(text: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def find_mount(path: str | Path) -> MountInfo | None:
    """The mount holding path (longest mount point prefix in /proc/self/mountinfo)."""
    real = os.path.realpath(path)
    best: MountInfo | None = None
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        left, _, right = line.partition(" - ")
        parts = left.split()
        rparts = right.split()
        if len(parts) < 6 or len(rparts) < 2:
            continue
        mp = _unescape(parts[4])
        if real != mp and not real.startswith(mp.rstrip("/") + "/"):
            continue
        options = parts[5]
        super_opts = rparts[2] if len(rparts) > 2 else ""
        merged = ",".join(dict.fromkeys(options.split(",") + super_opts.split(",")))
        info = MountInfo(mp, rparts[0], _unescape(rparts[1]), merged, parts[2])
        if best is None or len(mp) >= len(best.mount_point):
            best = info
    return best


def _device_facts(block: Path) -> dict[str, Any]:
    facts: dict[str, Any] = {"block_device": block.name}
    rot = _read(block / "queue/rotational")
    if rot is not None:
        facts["rotational"] = rot == "1"
    sched = _read(block / "queue/scheduler")
    if sched:
        m = re.search(r"\[(\S+)\]", sched)
        facts["scheduler"] = m.group(1) if m else sched
    ra = _read(block / "queue/read_ahead_kb")
    if ra is not None and ra.isdigit():
        facts["read_ahead_kb"] = int(ra)
    for key, rel in (
        ("device_model", "device/model"),
        ("device_vendor", "device/vendor"),
        ("firmware", "device/firmware_rev"),
        ("firmware", "device/rev"),
    ):
        value = _read(block / rel)
        if value and key not in facts:
            facts[key] = value
    backing = _read(block / "loop/backing_file")
    if backing:
        facts["loop_backing_file"] = backing
        facts.setdefault("device_model", "loop")
    size = _read(block / "size")
    if size and size.isdigit():
        facts["device_bytes"] = int(size) * 512
    return facts


def _blocks(mount: MountInfo) -> list[Path]:
    """The whole disks under the mount (every member of a multi-device btrfs)."""
    block = block_dir(resolve_major_minor(mount.major_minor, mount.source))
    if block is None:
        return []
    if mount.fs_type == "btrfs":
        return btrfs_members(block)
    return [block]


def _run(cmd: list[str], timeout: float = 10.0, *, strict: bool = False) -> str | None:
    if shutil.which(cmd[0]) is None:
        return None
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, check=False, errors="replace"
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if strict and proc.returncode != 0:
        return None
    out = (proc.stdout or "") + (proc.stderr or "")
    return out if proc.returncode == 0 or out else None


def _parse_key_values(text: str) -> dict[str, str]:
    """`key = value` / `key: value` pairs as printed by xfs_info, dumpe2fs -h, btrfs."""
    out: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        if not line.strip():
            continue
        # xfs_info: "meta-data=/dev/loop0 isize=512 agcount=4, agsize=..." : section + k=v pairs
        m = re.match(r"^(\S+?)\s*=\s*(.*)$", line)
        if m and "=" in m.group(2) and ":" not in m.group(1):
            section = m.group(1)
            rest = m.group(2)
            first, _, rest = rest.partition(" ")
            if "=" not in first:
                out[f"{section}"] = first
            else:
                rest = first + " " + rest
            for km in re.finditer(r"([\w-]+)=(\S+?),?(?=\s|$)", rest):
                out[f"{section}.{km.group(1)}"] = km.group(2)
            continue
        if line.startswith(" ") and section and "=" in line:
            for km in re.finditer(r"([\w-]+)=(\S+?),?(?=\s|$)", line):
                out[f"{section}.{km.group(1)}"] = km.group(2)
            continue
        m = re.match(r"^([A-Za-z][\w /#()-]*?):\s+(.*)$", line)
        if m:
            out[m.group(1).strip()] = m.group(2).strip()
    return out


def _fs_info(mount: MountInfo) -> dict[str, str]:
    text: str | None = None
    if mount.fs_type == "xfs":
        text = _run(["xfs_info", mount.mount_point], strict=True)
    elif mount.fs_type in ("ext2", "ext3", "ext4") and mount.source.startswith("/dev/"):
        text = _run(["dumpe2fs", "-h", mount.source], strict=True)
    elif mount.fs_type == "btrfs":
        text = _run(["btrfs", "filesystem", "show", mount.mount_point], strict=True)
    if not text:
        return {}
    info = _parse_key_values(text)
    return dict(list(info.items())[:200])


_TOOL_VERSION_CMDS: dict[str, list[str]] = {
    "mkfs.xfs": ["mkfs.xfs", "-V"],
    "e2fsprogs": ["dumpe2fs", "-V"],
    "btrfs-progs": ["btrfs", "--version"],
    "tar": ["tar", "--version"],
    "find": ["find", "--version"],
    "fio": ["fio", "--version"],
}


def tool_versions() -> dict[str, str]:
    out: dict[str, str] = {}
    for name, cmd in _TOOL_VERSION_CMDS.items():
        text = _run(cmd, timeout=5)
        if text:
            first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
            out[name] = first[:120]
    return out


def _os_name() -> str:
    text = _read("/etc/os-release") or ""
    m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', text, re.MULTILINE)
    return m.group(1) if m else platform.system()


def _cpu_model() -> str:
    text = _read("/proc/cpuinfo") or ""
    m = re.search(r"^model name\s*:\s*(.*)$", text, re.MULTILINE)
    return m.group(1).strip() if m else platform.processor() or platform.machine()


def _ram_bytes() -> int | None:
    text = _read("/proc/meminfo") or ""
    m = re.search(r"^MemTotal:\s*(\d+) kB", text, re.MULTILINE)
    return int(m.group(1)) * 1024 if m else None


def machine_facts() -> dict[str, Any]:
    return {
        "kernel": platform.release(),
        "os": _os_name(),
        "arch": platform.machine(),
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count() or 1,
        "ram_bytes": _ram_bytes(),
        "hostname": socket.gethostname(),
        "python": platform.python_version(),
    }


def capture(target: str | Path, *, with_tools: bool = True) -> dict[str, Any]:
    """Everything known about the machine and the target's filesystem, keyed for diffing."""
    env: dict[str, Any] = machine_facts()
    mount = find_mount(target)
    if mount is not None:
        env["fs_type"] = mount.fs_type
        env["mount_point"] = mount.mount_point
        env["mount_options"] = mount.options
        env["device"] = mount.source
        blocks = _blocks(mount)
        if blocks:
            env.update(_device_facts(blocks[0]))
            if len(blocks) > 1:
                env["block_devices"] = [b.name for b in blocks]
        env.update(storage_facts(mount.fs_type, blocks))
        env["fs_info"] = _fs_info(mount)
    try:
        st = os.statvfs(target)
        # Only the filesystem's shape: free blocks and inodes change with every run, and an
        # environment is deduplicated (and diffed as the cause of a change) by its content.
        env["statvfs"] = {
            "f_bsize": st.f_bsize,
            "f_frsize": st.f_frsize,
            "f_blocks": st.f_blocks,
            "f_files": st.f_files,
            "f_namemax": st.f_namemax,
        }
    except OSError:
        pass
    env.setdefault("write_cache", "unknown")
    if with_tools:
        env["tool_versions"] = tool_versions()
    env["agent_version"] = __version__
    return env


def is_sync_mount(env: dict[str, Any]) -> bool | None:
    options = env.get("mount_options")
    if not isinstance(options, str):
        return None
    return "sync" in options.split(",")
