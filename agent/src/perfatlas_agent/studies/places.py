"""`perfatlas-agent study run`: where a study runs (loop images and a tmpfs made as root, or
folders given), its specs turned into RunRequests for each, all run by
send.deliver.run_requests (the code of `run --spec`), each filesystem made just before its first
run and undone after its last, and everything undone at the end whatever happens."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from perfatlas_agent.errors import MountError, ParameterError
from perfatlas_agent.measure.durability import MEMORY_FILESYSTEMS, block_dir, resolve_major_minor
from perfatlas_agent.measure.env import find_mount
from perfatlas_agent.measure.sweep import RunRequest
from perfatlas_agent.send.deliver import Upload, run_requests
from perfatlas_agent.studies.model import DEFAULT, Options, Study, Variant
from perfatlas_agent.studies.mounts import FILESYSTEMS, Mounts, missing_tool, signals_deferred

Say = Callable[[str], None]


@dataclass
class Place:
    """One filesystem (and variant) the study runs on."""

    key: str
    fs: str
    variant: Variant
    kind: Literal["loop", "tmpfs", "folder"]
    folder: Path | None = None  # kind folder: the folder given (or a tmpfs found mounted)
    memory: bool = False
    labels: dict[str, str] = dataclasses.field(default_factory=dict)  # override the variant's

    @property
    def title(self) -> str:
        where = f" in {self.folder}" if self.folder is not None else ""
        return f"{self.fs} ({self.variant.describe()}){where}"


def parse_filesystems(text: str) -> list[str]:
    """`ext4,tmpfs`; `none` makes none (only the --target folders)."""
    if text.strip() == "none":
        return []
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in FILESYSTEMS]
    if unknown or not names:
        raise ParameterError(
            f"--filesystems: unknown filesystem {', '.join(unknown) or '(none)'}; "
            f"known: {', '.join(FILESYSTEMS)} (or none)"
        )
    return list(dict.fromkeys(names))


def writable_tmpfs() -> Path | None:
    """A tmpfs already mounted that this user may write in (/dev/shm first)."""
    for candidate in ("/dev/shm", os.environ.get("XDG_RUNTIME_DIR", ""), "/tmp"):
        if not candidate:
            continue
        mount = find_mount(candidate)
        if mount and mount.fs_type == "tmpfs" and os.access(candidate, os.W_OK | os.X_OK):
            return Path(candidate)
    return None


def _folder_labels(study: Study, folder: Path) -> tuple[str, dict[str, str], bool]:
    """fs, the labels a folder's own mount gives (mount, write_cache), memory-backed."""
    mount = find_mount(folder)
    fs = mount.fs_type if mount else "unknown"
    memory = fs in MEMORY_FILESYSTEMS
    labels = {"mount": "sync" if mount and "sync" in mount.options.split(",") else "default"}
    if study.label_write_cache:
        mode = "memory" if memory else "unknown"
        block = block_dir(resolve_major_minor(mount.major_minor, mount.source)) if mount else None
        if block is not None and not memory:
            with contextlib.suppress(OSError):
                mode = (block / "queue/write_cache").read_text().strip().replace(" ", "-")
        labels["write_cache"] = mode
    return fs, labels, memory


def plan_places(
    study: Study, filesystems: list[str], targets: list[Path], *, root: bool, say: Say
) -> list[Place]:
    """Where the study can run here; says what it cannot do and why."""
    places: list[Place] = []
    for fs in filesystems:
        if fs == "tmpfs":
            if root:
                places.append(Place("tmpfs", "tmpfs", study.variant(DEFAULT), "tmpfs", memory=True))
                continue
            found = writable_tmpfs()
            if found is None:
                say("skipped tmpfs: mounting one needs root, and no writable tmpfs is mounted")
                continue
            _, labels, _ = _folder_labels(study, found)
            places.append(Place("tmpfs", "tmpfs", study.variant(DEFAULT), "folder", found,
                                memory=True, labels=labels))  # fmt: skip
            continue
        if not root:
            say(f"skipped {fs}: needs root to make a loop-mounted image "
                f"(or give --target DIR, a folder on {fs})")  # fmt: skip
            continue
        why = missing_tool(fs)
        if why:
            say(f"skipped {fs}: {why}")
            continue
        for v in study.variants:
            places.append(Place(f"{fs}-{v.name}", fs, v, "loop"))
    for i, folder in enumerate(targets):
        folder = folder.expanduser().absolute()
        if not folder.is_dir():
            raise ParameterError(f"--target {folder} is not a folder")
        fs, labels, memory = _folder_labels(study, folder)
        places.append(Place(f"target{i}", fs, study.variant(DEFAULT), "folder", folder,
                            memory=memory, labels=labels))  # fmt: skip
        others = [v.name for v in study.variants if v.name != DEFAULT]
        if others:
            say(f"--target {folder}: runs the default variant's specs as the folder is mounted "
                f"({labels['mount']}); the variants {', '.join(others)} need loop images (root)")  # fmt: skip
    return places


@dataclass
class StudyRun:
    study: Study
    options: Options
    places: list[Place]
    agent_name: str
    labels: dict[str, str]  # the user's --label
    image_dir: Path | None = None
    keep: bool = False

    def run(self, upload: Upload, output: Path | None, say: Say) -> int:
        mounts: Mounts | None = None
        try:
            # A signal held while the folder is made is delivered as the block ends: inside
            # the try, so the folder is removed.
            with signals_deferred():
                mounts = Mounts(self.image_dir, keep=self.keep, say=say)
            return self._run(mounts, upload, output)
        finally:
            if mounts is not None:
                mounts.close()

    def _target(self, place: Place, mounts: Mounts) -> Path:
        if place.kind == "folder":
            assert place.folder is not None
            return place.folder / f"perfatlas-study-{uuid.uuid4().hex[:8]}"
        return mounts.mount_point(place.key) / "bench"

    def _run(self, mounts: Mounts, upload: Upload, output: Path | None) -> int:
        requests: list[RunRequest] = []
        owner: list[int] = []
        targets: list[Path] = []
        for index, place in enumerate(self.places):
            target = self._target(place, mounts)
            targets.append(target)
            specs = self.study.specs(self.options, place.variant.name, [str(target)],
                                     memory=place.memory, labels=self.labels)  # fmt: skip
            for spec in specs:
                labels = {**spec.labels, **place.labels, "fs": place.fs}
                spec = dataclasses.replace(spec, labels=labels)
                for request in spec.requests(agent_name=self.agent_name):
                    requests.append(request)
                    owner.append(index)
        if not requests:
            raise ParameterError("nothing to run: no filesystem or --target could be used here")
        current: list[int] = []
        failed: set[int] = set()

        def before(i: int, request: RunRequest, say: Say) -> bool:
            index = owner[i]
            place = self.places[index]
            if index in failed:
                return False
            if not current or current[0] != index:
                if current:
                    mounts.release(self.places[current.pop()].key)
                try:
                    self._make(place, mounts, targets[index], say)
                except (MountError, OSError) as exc:
                    say(f"skipped {place.title}: {exc}")
                    mounts.release(place.key)
                    failed.add(index)
                    return False
                current.append(index)
            mine = [j for j, o in enumerate(owner) if o == index]
            say(f"[{i + 1}/{len(requests)}] {place.title}: {request.workload} "
                f"({mine.index(i) + 1}/{len(mine)} on this filesystem)")  # fmt: skip
            return True

        return run_requests(requests, upload, output, before=before)

    def _make(self, place: Place, mounts: Mounts, target: Path, say: Say) -> None:
        if place.kind == "folder":
            target.mkdir()
            mounts.folder(place.key, target)
            say(f"== {place.title}: running in {target}")
            return
        if place.kind == "tmpfs":
            size = (1 << 30) if self.options.quick else max(self.options.ram_bytes // 2, 1 << 30)
            mounts.tmpfs(place.key, size=size)
            say(f"== {place.title}: tmpfs of {size >> 20} MiB at {mounts.mount_point(place.key)}")
            return
        size = self.study.image_bytes(self.options)
        free = os.statvfs(mounts.root).f_bavail * os.statvfs(mounts.root).f_frsize
        if free < size:
            say(f"note: the {size >> 30} GiB image may not fit: {free >> 30} GiB free in "
                f"{mounts.root} (--image-dir picks another folder)")  # fmt: skip
        device = mounts.loop(place.key, place.fs, size=size, mount=place.variant.mount,
                             write_cache=place.variant.write_cache)  # fmt: skip
        say(f"== {place.title}: {device} ({place.variant.write_cache}) mounted at "
            f"{mounts.mount_point(place.key)}")  # fmt: skip
