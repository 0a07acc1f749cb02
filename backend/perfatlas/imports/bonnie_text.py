"""Import the text table of Bonnie 1.x (and bonnie++ 1.0x): one run per row of figures.

    Coda filesystem, replicated on 2 servers, 300MB test file

           -------Sequential Output-------- ---Sequential Input-- --Random--
           -Per Char- --Block--- -Rewrite-- -Per Char- --Block--- --Seeks---
        MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU
       300  1474  8.3  1629  2.3  1022  4.7  1420  5.8  1380  3.4  19.1 0.2

The units row (K/sec five times, /sec once, each followed by %CPU) marks a table; the rows
below it, up to a blank line or the next header, are runs: an optional machine name, the size (a number of MB
under "MB", or bonnie++'s "300M"/"1G" under "Size"), then a rate and a CPU share for each
phase. The line above the table (its caption, "Coda filesystem, ...") is kept in the run's
meta. Tables quoted in mail ("> ") are read too: seed 001 is one."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from perfatlas.core.measurement import RunCreate
from perfatlas.imports.bonnie_metrics import (
    IO_PHASES,
    SOURCE,
    WORKLOAD,
    Collected,
    seqio_parameters,
)
from perfatlas.imports.common import check_run_count, invalid_run, run_uuid
from perfatlas.imports.errors import ImportFormatError

# Mail quoting (">", "> >") before a table's lines.
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+")
_UNITS = ["K/sec", "%CP", "K/sec", "%CP", "K/sec", "%CP", "K/sec", "%CP", "K/sec", "%CP", "/sec", "%CP"]  # fmt: skip
_SIZE = re.compile(r"[0-9]+(?:\.[0-9]+)?[KMGT]?", re.IGNORECASE)
_VERSION = re.compile(r"Version\s+([0-9][0-9.]*[a-z]?)")
TOO_QUICK = frozenset({"+++++", "+++"})
# What each figure of a row is, for messages.
FIGURES = [
    f"{name} {unit}"
    for name in ("Per Char output", "Block output", "Rewrite", "Per Char input", "Block input")
    for unit in ("K/sec", "%CPU")
] + ["Seeks /sec", "Seeks %CPU"]
MAX_CAPTION = 200
MAX_AGENT = 128


@dataclass(frozen=True, slots=True)
class Row:
    number: int  # line number in the file
    text: str
    machine: str | None
    size: str
    figures: list[float | None]


@dataclass(frozen=True, slots=True)
class Table:
    header: list[str]  # the table's lines down to its units row, unquoted
    caption: str | None
    version: str | None
    rows: list[Row]


def unquote(line: str) -> str:
    return _QUOTE.sub("", line).rstrip()


def _is_units_row(tokens: list[str]) -> bool:
    tail = tokens[-12:]
    return len(tokens) >= 13 and all(
        token.startswith(unit) if unit == "%CP" else token == unit
        for token, unit in zip(tail, _UNITS, strict=True)
    )


def find_tables(text: str) -> list[Table]:
    """Every table in the text; raises ImportFormatError for a table it cannot read."""
    lines = [unquote(line) for line in text.splitlines()]
    tables: list[Table] = []
    index = 0
    while index < len(lines):
        tokens = lines[index].split()
        candidate = "K/sec" in tokens and any(token.startswith("%CP") for token in tokens)
        if candidate and not _is_units_row(tokens):
            raise ImportFormatError(
                f"line {index + 1}: {_excerpt(lines[index])} is not a Bonnie units row: "
                f"expected the size column (MB or Size), then 'K/sec %CPU' five times (Per "
                f"Char, Block, Rewrite output; Per Char, Block input) and '/sec %CPU' (Seeks)"
            )
        if not candidate:
            index += 1
            continue
        size_unit = tokens[-13]
        first = index + 1
        rows: list[Row] = []
        index = first
        # Up to a blank line or the next table's header (bonnie++ 1.0x prints its file
        # table right below).
        while index < len(lines) and lines[index].strip() and lines[index].split()[0][0] != "-":
            rows.append(_row(lines[index], index + 1, size_unit))
            index += 1
        if not rows:
            raise ImportFormatError(
                f"line {first}: the Bonnie table's units row has no row of figures below it"
            )
        top = max(0, first - 3)
        header = [line for line in lines[top:first] if line.strip()]
        version = next((m[1] for line in header if (m := _VERSION.search(line))), None)
        tables.append(Table(header, _caption(lines, top), version, rows))
    return tables


def _caption(lines: list[str], top: int) -> str | None:
    """The nearest non-blank line above the table's header, when it is text, not a table."""
    index = top - 1
    while index >= 0 and not lines[index].strip():
        index -= 1
    if index < 0 or top - index > 3:
        return None
    line = lines[index].strip()
    if "%CP" in line or "Sequential" in line or re.fullmatch(r"[-0-9.+ ]+", line):
        return None
    return line[:MAX_CAPTION]


def _excerpt(line: str) -> str:
    line = line.strip()
    return repr(line if len(line) <= 60 else line[:57] + "...")


def _row(line: str, number: int, size_unit: str) -> Row:
    tokens = line.split()
    if len(tokens) not in (13, 14):
        raise ImportFormatError(
            f"line {number}: {_excerpt(line)} has {len(tokens)} columns; a row of a Bonnie "
            f"table has the size (and perhaps the machine's name before it) and 12 figures"
        )
    machine = tokens[0] if len(tokens) == 14 else None
    size = tokens[-13]
    if not _SIZE.fullmatch(size):
        raise ImportFormatError(
            f"line {number}: {size[:40]!r} where the size belongs is not a size such as 300 or 1G"
        )
    figures: list[float | None] = []
    for what, token in zip(FIGURES, tokens[-12:], strict=True):
        if token in TOO_QUICK:
            figures.append(None)
            continue
        try:
            value = float(token)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0:
            raise ImportFormatError(
                f"line {number}: {token[:40]!r} where the {what} belongs is not a number "
                f"(or '+++++')"
            )
        figures.append(value)
    if size_unit.upper() == "MB" and size.replace(".", "", 1).isdigit():
        size = f"{size}M"  # Bonnie's MB are MiB, which bonnie++ writes as M
    return Row(number, line, machine, size, figures)


def text_runs(
    text: str,
    *,
    agent: str | None,
    target: str | None,
    labels: dict[str, str],
    started_at: dt.datetime,
) -> list[RunCreate]:
    """One run per row of every table in the text (none if it has no table)."""
    tables = find_tables(text)
    check_run_count(sum(len(t.rows) for t in tables), what="rows of Bonnie tables")
    runs: list[RunCreate] = []
    seen: Counter[str] = Counter()
    for table in tables:
        for row in table.rows:
            key = " ".join([*table.header, row.text, table.caption or ""]).split()
            occurrence = seen[" ".join(key)]
            seen[" ".join(key)] += 1
            try:
                runs.append(_run(table, row, occurrence, agent=agent, target=target,
                                 labels=labels, started_at=started_at))  # fmt: skip
            except ValidationError as exc:
                raise invalid_run(exc, where=f"line {row.number}") from None
    return runs


def _run(
    table: Table,
    row: Row,
    occurrence: int,
    *,
    agent: str | None,
    target: str | None,
    labels: dict[str, str],
    started_at: dt.datetime,
) -> RunCreate:
    run_agent = agent or (row.machine or "")[:MAX_AGENT] or "imported"
    run_target = target or "unknown"
    got = Collected()
    for offset, phase in enumerate(IO_PHASES):
        got.rate(phase, row.figures[2 * offset])
        got.cpu(phase, row.figures[2 * offset + 1])
    environment: dict[str, Any] = {}
    if table.version:
        environment["tools"] = {"bonnie++": table.version}
    if row.machine:
        environment["hostname"] = row.machine
    meta: dict[str, Any] = {
        "format": "text",
        "not_measured": got.not_measured,
        "bonnie_columns": got.columns,
        "table": "\n".join([*table.header, row.text]),
    }
    if table.caption:
        meta["caption"] = table.caption
    record = {
        "table": " ".join([*table.header, row.text]).split(),
        "caption": table.caption,
        "occurrence": occurrence,
        "metrics": 3,  # as bonnie.py's: 3 since the runs are seqio's
    }
    return RunCreate(
        uuid=run_uuid("bonnie-text", record, agent=run_agent, target=run_target, labels=labels),
        workload=WORKLOAD,
        agent=run_agent,
        target=run_target,
        parameters=seqio_parameters({"size": row.size}),
        labels={**SOURCE, **labels},
        cold_method="none",  # Bonnie reads what its writes left in the page cache
        started_at=started_at,
        environment=environment,
        meta=meta,
        results=got.results,
    )
