"""A large `/runs/batch` body stored without holding all of its runs at once.

Validated whole, a batch is its runs as Python objects: a 30 MB body of 1,000 runs of samples
became about 70 MB of models beside its bytes, and the rows written from them as much again
(the API's resident size grew by some 220 MB for one such upload). Here the body is kept as
the one bytes object it arrived as, and its runs are read from it one at a time:

1. The spans of the runs in the body (`run_spans`): a scan of its brackets and strings, for the
   plain shape `{"runs": [{...}, ...]}`. Any other text (another key, a run that is not an
   object, malformed JSON, no runs or too many) is validated whole, as a small batch is, so
   that its errors are exactly those.
2. Each run validated from its span, then reduced to its head (runs/heads.py) and body hash:
   every error of every run is collected (a 422 names runs[N]... as the whole batch's
   validation does), and nothing is stored unless every run is valid.
3. In the request's one transaction (all or nothing, as before): the existing runs and
   conflicts, the agents, environments and series from the heads, then the new runs' rows a
   chunk at a time, in uuid order (as a small batch's), each chunk validated again from its
   spans and dropped before the next is read.

The second validation of the new runs and the scan cost CPU (in-process, tests/bench/
large_batch_ab.py: +20 % for a 30 MB body of samples, nearly double for a body of many small
results), paid only by bodies of settings.large_batch_bytes (PERFATLAS_LARGE_BATCH_BYTES, 8 MiB)
and more; smaller ones are validated whole and go through group commit."""

from __future__ import annotations

import uuid as uuid_mod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from sqlalchemy.orm import Session

from perfatlas.alerts.service import Requested
from perfatlas.core.config import Settings
from perfatlas.core.measurement import MAX_BATCH_RUNS, RunCreate
from perfatlas.flows.after_ingest import commit_ingest, request_after_ingest
from perfatlas.runs.heads import RunHead, head_of
from perfatlas.runs.ingest import Ingested, ingest_heads, unique_runs
from perfatlas.runs.keys import body_hash

# The runs validated again for their rows at a time: about this much of the body's text.
STORE_CHUNK_BYTES = 2 * 2**20

_SPACE = frozenset(b" \t\n\r")
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPEN = frozenset(b"[{")
_SPECIAL = (b'"', b"[", b"]", b"{", b"}")


class BatchInvalid(Exception):
    """Runs of the batch failed validation: pydantic's errors, located from `runs`."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(f"{len(errors)} errors")
        self.errors = errors


@dataclass(slots=True)
class _Run:
    """A run of the body, as long as the batch is stored: where it is, its head and hash."""

    index: int
    span: tuple[int, int]
    head: RunHead
    digest: str


@dataclass
class LargeBatch:
    raw: bytes | bytearray
    runs: list[_Run]
    environments: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def agents(self) -> list[str]:
        """Every run's agent, in the batch's order (auth.service.check_runs_agents)."""
        return [run.head.agent for run in self.runs]

    def run(self, index: int) -> RunCreate:
        start, end = self.runs[index].span
        return RunCreate.model_validate_json(self.raw[start:end])

    def load(self, heads: Sequence[RunHead]) -> Iterator[list[RunCreate]]:
        """These runs (unique, each of this batch) validated again, a chunk at a time."""
        index_of = {run.head.uuid: run.index for run in reversed(self.runs)}
        chunk: list[RunCreate] = []
        size = 0
        for head in heads:
            index = index_of[head.uuid]
            chunk.append(self.run(index))
            start, end = self.runs[index].span
            size += end - start
            if size >= STORE_CHUNK_BYTES:
                yield chunk
                chunk, size = [], 0
        if chunk:
            yield chunk


def prepare(raw: bytes | bytearray, *, large: int) -> LargeBatch | None:
    """The batch read run by run (BatchInvalid with every run's errors), or None when it is
    smaller than `large` bytes (settings.large_batch_bytes) or not of the plain shape: then it
    is validated whole."""
    if len(raw) < large:
        return None
    spans = run_spans(raw)
    if spans is None or not 1 <= len(spans) <= MAX_BATCH_RUNS:
        return None
    batch = LargeBatch(raw, [])
    errors: list[dict[str, Any]] = []
    for index, (start, end) in enumerate(spans):
        try:
            run = RunCreate.model_validate_json(raw[start:end])
        except ValidationError as exc:
            found = exc.errors()
            if any(e["type"] == "json_invalid" for e in found):
                return None  # the whole body's parse says where, as for a small batch
            errors += ({**e, "loc": ("runs", index, *e["loc"])} for e in found)
            continue
        if errors:
            continue  # only the errors are wanted now
        head = head_of(run)
        if head.environment_hash is not None:
            batch.environments.setdefault(head.environment_hash, run.environment)
        batch.runs.append(_Run(index, (start, end), head, body_hash(run)))
    if errors:
        raise BatchInvalid(errors)
    return batch


def store(session: Session, settings: Settings, batch: LargeBatch) -> tuple[list[Ingested], int]:
    """The batch stored and its series' checks requested, committed (as group_commit's
    `store` does for a small batch, alone): each unique run's outcome, in the batch's order,
    and how many series were not waiting for a check. Invalid for a uuid met twice with two
    bodies, Conflict for a run stored with another body: then nothing is stored."""
    digests: dict[uuid_mod.UUID, str] = {}
    hashed = ((run.index, run.head.uuid, run.digest) for run in batch.runs)
    heads = [batch.runs[index].head for index in unique_runs(hashed, digests)]

    def work() -> tuple[list[Ingested], Requested]:
        stored = ingest_heads(
            session, heads=heads, digests=digests, environments=batch.environments,
            load=batch.load, ignore_labels=settings.series_ignore_labels,
        )  # fmt: skip
        return stored, request_after_ingest(session, settings, stored)

    return commit_ingest(session, work)


def run_spans(raw: bytes | bytearray) -> list[tuple[int, int]] | None:
    """The (start, end) of each element of `runs` in a body `{"runs": [{...}, ...]}` (JSON
    whitespace allowed between the tokens), each an object whose brackets balance outside
    strings; None for any other text. Each element's own JSON is checked by its validation."""
    scan = _Scanner(raw)
    pos = scan.skip_space(0)
    if not raw.startswith(b"{", pos):
        return None
    pos = scan.skip_space(pos + 1)
    if not raw.startswith(b'"runs"', pos):
        return None
    pos = scan.skip_space(pos + 6)
    if not raw.startswith(b":", pos):
        return None
    pos = scan.skip_space(pos + 1)
    if not raw.startswith(b"[", pos):
        return None
    spans: list[tuple[int, int]] = []
    pos = scan.skip_space(pos + 1)
    if raw.startswith(b"]", pos):
        return None  # no runs: the whole validation says so
    while True:
        if not raw.startswith(b"{", pos):
            return None
        end = scan.object_end(pos)
        if end is None:
            return None
        spans.append((pos, end))
        pos = scan.skip_space(end)
        if raw.startswith(b",", pos):
            pos = scan.skip_space(pos + 1)
            continue
        if not raw.startswith(b"]", pos):
            return None
        pos = scan.skip_space(pos + 1)
        if not raw.startswith(b"}", pos) or scan.skip_space(pos + 1) != len(raw):
            return None
        return spans


class _Scanner:
    """Finds a body's brackets and quotes with bytes.find (the numbers between them, most of a
    batch, are skipped in C), each the next of its kind after a position."""

    def __init__(self, raw: bytes | bytearray) -> None:
        self.raw = raw
        self.size = len(raw)
        self.next = {char: self._find(char, 0) for char in _SPECIAL}

    def _find(self, char: bytes, pos: int) -> int:
        found = self.raw.find(char, pos)
        return self.size if found < 0 else found

    def skip_space(self, pos: int) -> int:
        while pos < self.size and self.raw[pos] in _SPACE:
            pos += 1
        return pos

    def object_end(self, pos: int) -> int | None:
        """The position after the bracket that closes the one at `pos`; None if none does."""
        raw, depth = self.raw, 0
        while True:
            for char, at in self.next.items():
                if at < pos:
                    self.next[char] = self._find(char, pos)
            char = min(self.next, key=self.next.__getitem__)
            at = self.next[char]
            if at >= self.size:
                return None
            if raw[at] == _QUOTE:
                pos = self._string_end(at)
                if pos < 0:
                    return None
                continue
            pos = at + 1
            depth += 1 if raw[at] in _OPEN else -1
            if depth == 0:
                return pos

    def _string_end(self, at: int) -> int:
        """The position after the quote closing the string opened at `at`; -1 if none does."""
        raw = self.raw
        end = raw.find(b'"', at + 1)
        while end > 0:
            backslashes = 0
            while raw[end - 1 - backslashes] == _BACKSLASH:
                backslashes += 1
            if backslashes % 2 == 0:
                return end + 1
            end = raw.find(b'"', end + 1)
        return -1
