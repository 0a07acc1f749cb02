"""What a command ran with: the scripts it names (kept whole, with their sha256), the
executable's checksum, and the tail of what it printed: the toolchain kept with the results
(seed 003's atlasperf.git.tar.gz)."""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from perfatlas_agent.measure.attachments import MAX_BYTES, AttachmentFile, head, safe_name, tail

MAX_SCRIPTS = 4
# Hashing a huge binary would hold up the run for nothing anyone reads.
MAX_HASHED_EXECUTABLE = 64 << 20
# Per repetition, and for all of a run's repetitions together, of each stream.
REP_TAIL_BYTES = 32 << 10
RUN_TAIL_BYTES = 256 << 10
_INTERPRETERS = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "python", "python3", "perl", "ruby", "node", "awk",
     "env", "fio", "tclsh", "lua"}
)  # fmt: skip


@dataclass
class FileFacts:
    path: Path
    sha256: str | None
    size: int
    script: bytes | None  # the content, when it is a script (text) kept whole


@dataclass
class Toolchain:
    template: str
    command: str = ""
    files: list[FileFacts] = field(default_factory=list)
    stdout: list[tuple[str, str]] = field(default_factory=list)  # (repetition, tail)
    stderr: list[tuple[str, str]] = field(default_factory=list)

    def record(self, rep: str, command: str, stdout: str, stderr: str) -> None:
        self.command = command
        self.stdout.append((rep, stdout[-REP_TAIL_BYTES:]))
        self.stderr.append((rep, stderr[-REP_TAIL_BYTES:]))

    def attachments(self) -> list[AttachmentFile]:
        out = [AttachmentFile("command.txt", self._describe().encode())]
        used: set[str] = {"command.txt"}
        for facts in self.files:
            if facts.script is None:
                continue
            name = f"script-{safe_name(facts.path.name)}"
            while name in used:
                name = "_" + name
            used.add(name)
            out.append(head(name, facts.script, MAX_BYTES))
        for stream, sections in (("stdout", self.stdout), ("stderr", self.stderr)):
            if any(text for _, text in sections):
                text = "".join(f"=== {rep} ===\n{body}\n" for rep, body in sections)
                out.append(tail(f"{stream}.txt", text.encode(errors="replace"), RUN_TAIL_BYTES))
        return out

    def _describe(self) -> str:
        lines = [
            f"command template: {self.template}",
            f"command as run (last repetition): {self.command}",
        ]
        for facts in self.files:
            kind = "script" if facts.script is not None else "executable"
            digest = facts.sha256 or f"not hashed (larger than {MAX_HASHED_EXECUTABLE} bytes)"
            lines.append(f"{kind}: {facts.path} ({facts.size} bytes) sha256 {digest}")
        return "\n".join(lines) + "\n"


def _is_text(data: bytes) -> bool:
    return b"\x00" not in data[:8192]


def _resolve(token: str, first: bool) -> Path | None:
    if "/" in token:
        path = Path(token).expanduser()
    elif first:
        found = shutil.which(token)
        path = Path(found) if found else Path(token)
    else:
        return None
    return path if path.is_absolute() and path.is_file() else None


def find_files(command: str) -> list[FileFacts]:
    """The files a command names: its executable (hashed) and the scripts it runs, whether
    executed (#!) or handed to an interpreter (sh run.sh, python3 bench.py). Paths must be
    absolute (or on PATH for the first word): the command runs in a fresh folder."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    found: list[FileFacts] = []
    seen: set[Path] = set()
    interpreter = False
    starts = True  # the word starts a command (the first, or after && || ; |)
    for word in words:
        if word in ("&&", "||", ";", "|"):
            interpreter, starts = False, True
            continue
        path = _resolve(word, first=starts)
        starts = False
        if path is None or path in seen:
            continue
        seen.add(path)
        size = path.stat().st_size
        with path.open("rb") as f:
            start = f.read(8192)
        script = start.startswith(b"#!") or (interpreter and _is_text(start))
        content: bytes | None = None
        digest: str | None = None
        if script and size <= 16 * MAX_BYTES:
            content = path.read_bytes()
            digest = hashlib.sha256(content).hexdigest()
        elif size <= MAX_HASHED_EXECUTABLE:
            digest = _sha256_file(path)
        found.append(FileFacts(path, digest, size, content))
        interpreter = path.name in _INTERPRETERS or path.name.startswith("python")
        if sum(1 for f in found if f.script is not None) >= MAX_SCRIPTS:
            break
    return found


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY)
    try:
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()
