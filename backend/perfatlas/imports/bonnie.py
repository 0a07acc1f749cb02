"""Import bonnie++ CSV lines (CSV formats 1.96, 1.97 and 1.98): one run per line; a file
without CSV lines may hold Bonnie 1.x text tables (bonnie_text.py): one run per row."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from perfatlas.core.measurement import ParamValue, RunCreate
from perfatlas.imports.bonnie_metrics import (
    FILE_PHASES,
    IO_PHASES,
    SOURCE,
    WORKLOAD,
    Collected,
    seqio_parameters,
)
from perfatlas.imports.bonnie_text import text_runs
from perfatlas.imports.common import Parsed, check_run_count, decode_text, invalid_run, run_uuid
from perfatlas.imports.errors import ImportFormatError

WHAT = (
    "bonnie++ CSV lines (what bonnie++ -q prints on stdout, or the last line of its report) "
    "or a Bonnie 1.x text table (K/sec and %CPU for Per Char, Block, Rewrite, Per Char, Block, "
    "Seeks)"
)

# A phase shorter than bonnie++'s minimum time prints "+++++" for the rate and "+++" for CPU.
TOO_QUICK = frozenset({"+++++", "+++"})
HEADER_STARTS = ("format_version,", "name,")
# Latencies are bonnie++'s maximum time of a single operation, printed as "%dus", "%dms", "%ds".
_LATENCY = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ns|us|ms|s)")
_PER_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
_VERSION = re.compile(r"[0-9]+\.[0-9]+[a-z]?")
_INTEGER = re.compile(r"-?[0-9]+")
MAX_AGENT = 128


@dataclass(frozen=True, slots=True)
class Layout:
    """Where bonnie++ puts each column, from bon_csv2html(1) and bon_time.cpp."""

    fields: int
    run_parameters: tuple[str, ...]  # the columns from 3 on, before the first phase
    io_start: int
    file_parameters_start: int
    file_start: int
    latency_start: int


# Format 1.98 (bonnie++ 1.98 to 2.00a) added the number of seeks and of seeker processes
# after the chunk size. The header line bonnie++ 2.00a prints with -x still names the 1.97
# columns, so the header is never used to find columns.
LAYOUTS = {
    "1.96": Layout(48, ("concurrency", "seed", "size", "chunk_size"), 7, 19, 24, 36),
    "1.97": Layout(48, ("concurrency", "seed", "size", "chunk_size"), 7, 19, 24, 36),
    "1.98": Layout(
        50,
        ("concurrency", "seed", "size", "chunk_size", "num_seeks", "seek_proc_count"),
        9,
        21,
        26,
        38,
    ),
}


def parse_bonnie(
    data: bytes | str,
    *,
    agent: str | None,
    target: str | None,
    labels: dict[str, str],
    started_at: dt.datetime | None = None,
) -> list[RunCreate]:
    """One run per bonnie++ CSV line; raises ImportFormatError for lines it cannot read."""
    return read_bonnie(data, agent=agent, target=target, labels=labels, started_at=started_at).runs


def read_bonnie(
    data: bytes | str,
    *,
    agent: str | None,
    target: str | None,
    labels: dict[str, str],
    started_at: dt.datetime | None = None,
) -> Parsed:
    """parse_bonnie(), saying whether the runs got a time: bonnie++ CSV has none, so without
    started_at they get the time of this import (a re-import keeps the first one's)."""
    text = decode_text(data, what=WHAT)
    start = started_at or dt.datetime.now(dt.UTC)
    lines: list[tuple[int, str, list[str]]] = []
    first_text_line: tuple[int, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith(HEADER_STARTS):
            continue
        fields = line.split(",")
        if not _VERSION.fullmatch(fields[0]) and len(fields) < 10:
            # bonnie++ without -q prints its text report before the CSV line; those lines are
            # skipped, but only when the file has CSV lines too.
            first_text_line = first_text_line or (number, line)
            continue
        lines.append((number, line, fields))
    # Counted before any run is built: a file of a million lines costs no more than reading it.
    check_run_count(len(lines), what="bonnie++ CSV lines")
    runs: list[RunCreate] = []
    seen: Counter[str] = Counter()
    for number, line, fields in lines:
        occurrence = seen[line]
        seen[line] += 1
        try:
            run = _run(fields, number, line, occurrence, agent=agent, target=target,
                       labels=labels, started_at=start)  # fmt: skip
        except ValidationError as exc:
            raise invalid_run(exc, where=f"line {number}") from None
        runs.append(run)
    if not runs and first_text_line is not None:
        # No CSV line: a Bonnie 1.x text table, then (bonnie_text.py).
        runs = text_runs(text, agent=agent, target=target, labels=labels, started_at=start)
    if not runs:
        if first_text_line is not None:
            number, line = first_text_line
            raise ImportFormatError(
                f"line {number} is not a bonnie++ CSV line ({_excerpt(line)}) and the file has "
                f"none; expected {WHAT}"
            )
        raise ImportFormatError(f"the file has no bonnie++ CSV line; expected {WHAT}")
    return Parsed(runs=runs, timeless=started_at is None)


def _excerpt(line: str) -> str:
    return repr(line if len(line) <= 60 else line[:57] + "...")


def _layout(fields: list[str], number: int) -> Layout:
    version = fields[0]
    layout = LAYOUTS.get(version)
    if layout is None:
        if _VERSION.fullmatch(version):
            known = ", ".join(LAYOUTS)
            raise ImportFormatError(
                f"line {number}: bonnie++ CSV format {version} is not supported "
                f"(supported: {known}; bonnie++ before 1.90 wrote a different CSV)"
            )
        raise ImportFormatError(
            f"line {number} is not a bonnie++ CSV line: its first field {fields[0][:40]!r} is "
            f"not a format version such as 1.98"
        )
    if len(fields) != layout.fields:
        raise ImportFormatError(
            f"line {number} has {len(fields)} comma-separated fields, but bonnie++ CSV format "
            f"{version} has {layout.fields}"
        )
    return layout


def _run(
    fields: list[str],
    number: int,
    line: str,
    occurrence: int,
    *,
    agent: str | None,
    target: str | None,
    labels: dict[str, str],
    started_at: dt.datetime,
) -> RunCreate:
    layout = _layout(fields, number)
    hostname = fields[2]
    run_agent = agent or hostname[:MAX_AGENT] or "imported"
    run_target = target or "unknown"
    got = Collected()
    for offset, phase in enumerate(IO_PHASES):
        _phase(fields, number, layout.io_start + 2 * offset, phase, got)
    for offset, phase in enumerate(FILE_PHASES):
        _phase(fields, number, layout.file_start + 2 * offset, phase, got)
    for offset, phase in enumerate(IO_PHASES + FILE_PHASES):
        _latency(fields, number, layout.latency_start + offset, phase, got)

    environment: dict[str, Any] = {"tools": {"bonnie++": fields[1]}}
    if hostname:
        environment["hostname"] = hostname
    meta: dict[str, Any] = {
        "format_version": fields[0],
        "bonnie_version": fields[1],
        "not_measured": got.not_measured,
        "bonnie_columns": got.columns,
        "csv": line,
    }
    # "metrics": 2 since bonnie's columns became seqio's metrics (bonnie_metrics.py), 3 since
    # the runs are seqio's: a line imported before keeps its run; importing it now adds one.
    record = {"line": line, "occurrence": occurrence, "metrics": 3}
    return RunCreate(
        uuid=run_uuid("bonnie", record, agent=run_agent, target=run_target, labels=labels),
        workload=WORKLOAD,
        agent=run_agent,
        target=run_target,
        parameters=seqio_parameters(_parameters(fields, layout)),
        labels={**SOURCE, **labels},
        cold_method="none",  # bonnie++ reads what its writes left in the page cache
        started_at=started_at,
        environment=environment,
        meta=meta,
        results=got.results,
    )


def _parameters(fields: list[str], layout: Layout) -> dict[str, ParamValue]:
    named = [(name, fields[3 + offset]) for offset, name in enumerate(layout.run_parameters)]
    start = layout.file_parameters_start
    num_files, max_size, min_size, num_dirs, file_chunk_size = fields[start : start + 5]
    # bonnie++ 1.96 to 2.00a write the number of directories one column late (in the one
    # bon_csv2html(1) calls file_chunk_size) and never write the file chunk size; a writer
    # that follows the documented layout fills num_dirs itself.
    if not num_dirs and file_chunk_size:
        num_dirs, file_chunk_size = file_chunk_size, ""
    named += [
        ("num_files", num_files),
        ("max_size", max_size),
        ("min_size", min_size),
        ("num_dirs", num_dirs),
        ("file_chunk_size", file_chunk_size),
    ]
    return {name: _parameter(value) for name, value in named if value}


def _parameter(text: str) -> ParamValue:
    # "64M" stays as bonnie++ prints it; only plain integers (and not "007") become numbers.
    if _INTEGER.fullmatch(text) and str(int(text)) == text:
        return int(text)
    return text


def _number(fields: list[str], number: int, column: int, name: str) -> float | None:
    text = fields[column].strip()
    if not text or text in TOO_QUICK:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ImportFormatError(
            f"line {number}, field {column + 1} ({name}): {text[:40]!r} is not a number, "
            f"'+++++' or empty"
        )
    return value


def _phase(fields: list[str], number: int, column: int, phase: str, got: Collected) -> None:
    got.rate(phase, _number(fields, number, column, phase))
    got.cpu(phase, _number(fields, number, column + 1, f"{phase}_cpu"))


def _latency(fields: list[str], number: int, column: int, phase: str, got: Collected) -> None:
    text = fields[column].strip()
    if not text or text in TOO_QUICK:
        got.latency(phase, None)
        return
    match = _LATENCY.fullmatch(text)
    if match is None:
        raise ImportFormatError(
            f"line {number}, field {column + 1} ({phase}_latency): {text[:40]!r} is not a "
            f"latency such as 1234us, 56ms or 2s"
        )
    got.latency(phase, float(match[1]) * _PER_US[match[2]], text)
