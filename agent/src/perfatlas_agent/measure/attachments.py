"""Files kept with a run (the command's script, raw per-operation latencies, tool output):
made by the workloads, bounded here, spooled beside the run and uploaded after it is stored
(PUT /api/v1/runs/{uuid}/attachments/{name}, idempotent)."""

from __future__ import annotations

import hashlib
import mimetypes
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The server's defaults (PERFATLAS_ATTACHMENT_MAX_BYTES, _RUN_MAX_BYTES): a file over the
# limit is cut here, with a note, rather than refused there.
MAX_BYTES = 1024 * 1024
MAX_RUN_BYTES = 4 * 1024 * 1024
# The key a run dict carries its files under between the sweep and the spool; taken off
# (take()) before the run is stored or sent, since the server's run body has no such field.
KEY = "_attachments"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._+-]")
_MEDIA_TYPES = {
    ".csv": "text/csv",
    ".txt": "text/plain; charset=utf-8",
    ".log": "text/plain; charset=utf-8",
    ".sh": "text/x-shellscript",
    ".py": "text/x-python",
    ".json": "application/json",
    ".fio": "text/plain",
}


@dataclass(frozen=True, slots=True)
class AttachmentFile:
    name: str
    content: bytes
    truncated: bool = False

    @property
    def media_type(self) -> str:
        return media_type_of(self.name)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


def media_type_of(name: str) -> str:
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return _MEDIA_TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"


def safe_name(text: str) -> str:
    """A file name the server takes and every filesystem keeps (no separators, no control
    characters): anything else becomes _."""
    return _SAFE_NAME.sub("_", text).strip(".")[:200] or "file"


def head(name: str, content: bytes, limit: int = MAX_BYTES) -> AttachmentFile:
    """The first `limit` bytes, cut at a line end, with a last line saying what was left out."""
    if len(content) <= limit:
        return AttachmentFile(name, content)
    note = f"# truncated by perfatlas-agent: {len(content)} bytes, kept the first {{}}\n"
    room = limit - len(note) - 12
    cut = content.rfind(b"\n", 0, room) + 1 or room
    return AttachmentFile(name, content[:cut] + note.format(cut).encode(), truncated=True)


def tail(name: str, content: bytes, limit: int = MAX_BYTES) -> AttachmentFile:
    """The last `limit` bytes (the end of a log matters most), with a first line saying so."""
    if len(content) <= limit:
        return AttachmentFile(name, content)
    note = f"[truncated by perfatlas-agent: {len(content)} bytes, kept the last {{}}]\n"
    keep = limit - len(note) - 12
    return AttachmentFile(name, note.format(keep).encode() + content[-keep:], truncated=True)


class LatencyLog:
    """Raw per-operation latencies as CSV, filled after each timed phase from its preallocated
    arrays; rows past the limit are counted, not formatted, and a last line says how many were
    left out. partialread: repetition, op, offset, bytes, seconds."""

    HEADER = "repetition,op,offset,bytes,seconds"

    def __init__(self, name: str, limit: int = MAX_BYTES, header: str = HEADER) -> None:
        self.name = name
        self.room = limit - 120  # the note
        self.parts = [header + "\n"]
        self.size = len(self.parts[0])
        self.kept = 0
        self.dropped = 0

    def add(self, rep: int, offsets: Sequence[int], nbytes: int, lat_ns: Sequence[int]) -> None:
        self.add_rows(
            len(offsets), lambda op: f"{rep},{op},{offsets[op]},{nbytes},{lat_ns[op] / 1e9:.9f}"
        )

    def add_rows(self, count: int, row: Callable[[int], str]) -> None:
        """Rows 0..count-1, each made by row(i) only while there is room."""
        for index in range(count):
            if self.dropped:
                self.dropped += count - index
                return
            text = row(index) + "\n"
            if self.size + len(text) > self.room:
                self.dropped += count - index
                return
            self.parts.append(text)
            self.size += len(text)
            self.kept += 1

    def file(self) -> AttachmentFile | None:
        if not self.kept and not self.dropped:
            return None
        text = "".join(self.parts)
        if self.dropped:
            total = self.kept + self.dropped
            text += f"# truncated by perfatlas-agent: kept the first {self.kept} of {total} rows\n"
        return AttachmentFile(self.name, text.encode(), truncated=bool(self.dropped))


def fit_run(
    files: Sequence[AttachmentFile], budget: int = MAX_RUN_BYTES
) -> tuple[list[AttachmentFile], list[str]]:
    """The files that fit the run's budget, in the order given (the most useful first), and
    the names left out."""
    kept: list[AttachmentFile] = []
    left_out: list[str] = []
    used = 0
    seen: set[str] = set()
    for one in files:
        if one.name in seen:
            continue
        seen.add(one.name)
        if used + len(one.content) > budget:
            left_out.append(one.name)
            continue
        kept.append(one)
        used += len(one.content)
    return kept, left_out


def manifest(files: Sequence[AttachmentFile]) -> list[dict[str, Any]]:
    """What the run's meta records of its files (the server keeps the files themselves)."""
    return [
        {"name": f.name, "size": len(f.content), "sha256": f.sha256, "media_type": f.media_type,
         "truncated": f.truncated}
        for f in files
    ]  # fmt: skip


def output_dir(output: Path) -> Path:
    """Where --output F puts the runs' files: F's name with .attachments, beside F, one
    folder per run uuid (runs.json -> runs.attachments/<uuid>/latencies.csv)."""
    return output.with_name(output.stem + ".attachments")


def read_dir(folder: Path) -> list[AttachmentFile]:
    """The files of one run written by --output (for `perfatlas-agent upload F`)."""
    if not folder.is_dir():
        return []
    return [
        AttachmentFile(p.name, p.read_bytes())
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.startswith(".")
    ]


def take(run: dict[str, Any]) -> list[AttachmentFile]:
    """The run's files, taken off the run dict (which is then what the server's API takes)."""
    files = run.pop(KEY, None)
    return list(files) if files else []
