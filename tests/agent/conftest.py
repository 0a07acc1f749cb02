"""Agent test fixtures: real filesystems (tmpfs, loop-mounted ext4/xfs) and the agent CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import skip_unless_able

IS_ROOT = os.geteuid() == 0


@dataclass
class AgentResult:
    returncode: int
    stdout: str
    stderr: str
    runs: list[dict[str, Any]]


def agent_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "perfatlas_agent", *args]


def run_agent(
    *args: str, spool: Path, env: dict[str, str] | None = None, timeout: float = 600
) -> AgentResult:
    """Run the real CLI in its own process; with --output, the runs it wrote are returned."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    full_env["PERFATLAS_AGENT_SPOOL"] = str(spool)
    # Never the machine's /var/tmp fallback: a test's runs stay in the test's folders.
    full_env["PERFATLAS_AGENT_FALLBACK_SPOOL"] = f"{spool}-fallback"
    # The sizes each test asks for, as given: tests of --min-seconds pass it on the command line.
    full_env["PERFATLAS_AGENT_MIN_SECONDS"] = "0"
    full_env.update(env or {})
    proc = subprocess.run(
        agent_cmd(*args), capture_output=True, text=True, env=full_env, timeout=timeout
    )
    runs: list[dict[str, Any]] = []
    if "--output" in args:
        out = Path(args[args.index("--output") + 1])
        if out.exists():
            runs = json.loads(out.read_text())["runs"]
    return AgentResult(proc.returncode, proc.stdout, proc.stderr, runs)


def metric(run: dict[str, Any], name: str) -> float:
    for res in run["results"]:
        if res["metric"] == name:
            return float(res["value"])
    raise KeyError(f"{name} not in {[r['metric'] for r in run['results']]}")


@pytest.fixture
def spool(tmp_path: Path) -> Path:
    return tmp_path / "spool"


def _mount(args: list[str]) -> None:
    subprocess.run(args, check=True, capture_output=True)


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)


@pytest.fixture(scope="session")
def tmpfs_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A real tmpfs mounted in a temporary folder (needs root)."""
    if not IS_ROOT:
        skip_unless_able("mounting a tmpfs needs root")
    mnt = tmp_path_factory.mktemp("tmpfs")
    _mount(["mount", "-t", "tmpfs", "-o", "size=512m", "tmpfs", str(mnt)])
    yield mnt
    _umount(mnt)


@pytest.fixture
def tmpfs_target(tmpfs_root: Path) -> Iterator[Path]:
    target = tmpfs_root / f"t-{uuid.uuid4().hex[:8]}"
    yield target
    shutil.rmtree(target, ignore_errors=True)


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Any]:
    """Factory: small_tmpfs("2m") mounts a tmpfs of that size (a disk that fills up), unmounted
    at the end of the test."""
    made: list[Path] = []

    def get(size: str) -> Path:
        if not IS_ROOT:
            skip_unless_able("mounting a tmpfs needs root")
        mnt = tmp_path / f"small-{len(made)}"
        mnt.mkdir()
        _mount(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)])
        made.append(mnt)
        return mnt

    try:
        yield get
    finally:
        for mnt in made:
            _umount(mnt)


@dataclass
class LoopFs:
    fs_type: str
    options: str
    mount_point: Path


_MKFS = {
    "ext4": (["mkfs.ext4", "-q", "-F"], 128),
    "xfs": (["mkfs.xfs", "-q", "-f"], 320),
    "btrfs": (["mkfs.btrfs", "-q", "-f"], 320),
}


@pytest.fixture(scope="session")
def loopfs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Factory: loopfs("ext4", "sync") mounts a fresh image (on the machine's disk) once."""
    made: dict[tuple[str, str], LoopFs] = {}
    base = tmp_path_factory.mktemp("loop")

    def get(fs_type: str, options: str = "defaults") -> LoopFs:
        key = (fs_type, options)
        if key in made:
            return made[key]
        if not IS_ROOT:
            skip_unless_able("loop-mounting a filesystem image needs root")
        mkfs, size_mb = _MKFS[fs_type]
        if shutil.which(mkfs[0]) is None:
            skip_unless_able(
                f"{mkfs[0]} is not installed (Debian: see tests/agent/SYSTEM_PACKAGES)"
            )
        if not Path("/dev/loop-control").exists():
            skip_unless_able("no loop devices on this machine")
        image = base / f"{fs_type}-{options.replace(',', '_')}.img"
        with image.open("wb") as f:
            f.truncate(size_mb << 20)
        subprocess.run([*mkfs, str(image)], check=True, capture_output=True)
        mnt = base / f"mnt-{fs_type}-{options.replace(',', '_')}"
        mnt.mkdir()
        try:
            _mount(["mount", "-o", f"loop,{options}", str(image), str(mnt)])
        except subprocess.CalledProcessError as exc:
            skip_unless_able(f"cannot loop-mount {fs_type}: {exc.stderr.decode(errors='replace')}")
        made[key] = LoopFs(fs_type, options, mnt)
        return made[key]

    yield get
    for fs in made.values():
        _umount(fs.mount_point)


@dataclass
class LoopDevice:
    """A filesystem on a loop device of its own, for tests that change the device's settings."""

    fs_type: str
    mount_point: Path
    device: str  # loopN

    @property
    def sysfs(self) -> Path:
        return Path("/sys/block") / self.device

    def set_write_cache(self, mode: str) -> None:
        (self.sysfs / "queue/write_cache").write_text(mode)

    def flushes(self) -> int:
        """Flush requests the device has completed (/sys/block/X/stat, field 16)."""
        return int((self.sysfs / "stat").read_text().split()[15])


@pytest.fixture
def private_loop(tmp_path: Path) -> Iterator[Any]:
    """Factory: private_loop("ext4") attaches an image to a loop device of its own and mounts it;
    the device's write cache is set back to write back before it is detached (the kernel keeps
    a `write through` set by hand on the loop device, even for the next file attached to it)."""
    made: list[LoopDevice] = []

    def get(fs_type: str, image_dir: Path | None = None) -> LoopDevice:
        if not IS_ROOT:
            skip_unless_able("loop devices need root")
        mkfs, size_mb = _MKFS[fs_type]
        if shutil.which(mkfs[0]) is None:
            skip_unless_able(f"{mkfs[0]} is not installed (see tests/agent/SYSTEM_PACKAGES)")
        image = (image_dir or tmp_path) / f"{fs_type}-{uuid.uuid4().hex[:6]}.img"
        with image.open("wb") as f:
            f.truncate(size_mb << 20)
        subprocess.run([*mkfs, str(image)], check=True, capture_output=True)
        dev = subprocess.run(
            ["losetup", "-f", "--show", str(image)], check=True, capture_output=True, text=True
        ).stdout.strip()
        loop = LoopDevice(fs_type, tmp_path / f"mnt-{len(made)}", Path(dev).name)
        made.append(loop)
        loop.set_write_cache("write back")
        loop.mount_point.mkdir()
        _mount(["mount", dev, str(loop.mount_point)])
        return loop

    yield get
    for loop in made:
        _umount(loop.mount_point)
        loop.set_write_cache("write back")
        subprocess.run(["losetup", "-d", f"/dev/{loop.device}"], check=False, capture_output=True)
