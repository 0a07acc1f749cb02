"""The spool: every finished run is on disk (write, fsync, rename) until the server has it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

REJECTED = "rejected"


def default_spool_dir() -> Path:
    env = os.environ.get("PERFATLAS_AGENT_SPOOL")
    if env:
        return Path(env).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "perfatlas-agent" / "spool"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_durably(path: Path, data: bytes) -> None:
    """Write to a temporary name, fsync, rename over path, fsync the folder."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    _fsync_dir(path.parent)


class Spool:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or default_spool_dir()).expanduser()

    @property
    def rejected_dir(self) -> Path:
        return self.root / REJECTED

    def _ensure(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)

    def put(self, run: dict[str, Any]) -> Path:
        self._ensure()
        path = self.root / f"{run['uuid']}.json"
        write_durably(path, json.dumps(run, sort_keys=True).encode())
        return path

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
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            raise ValueError(f"{path} does not hold one run")
        return data

    def remove(self, run_uuid: str) -> None:
        path = self.root / f"{run_uuid}.json"
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
        write_durably(self.rejected_dir / f"{run_uuid}.reason.txt", reason.encode() + b"\n")
        if src.exists():
            os.replace(src, dst)
            _fsync_dir(self.rejected_dir)
            _fsync_dir(self.root)
        return dst
