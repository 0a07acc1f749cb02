"""bonnie's columns as PerfAtlas metrics: the I/O phases get the names and units of the
agent's `seqio` workload, so one compare table holds bonnie imports and seqio runs.

| bonnie column | metric | unit |
|---|---|---|
| putc (Per Chr output) | putc.mb_per_s | MB/s |
| put_block (Block output) | write.mb_per_s | MB/s |
| rewrite | rewrite.mb_per_s | MB/s |
| getc (Per Chr input) | getc.mb_per_s | MB/s |
| get_block (Block input) | read.mb_per_s | MB/s |
| seeks | seeks.per_s | seeks/s |
| <phase>_cpu | <prefix>.cpu | % |
| <phase>_latency (slowest operation) | <prefix>.lat_max | us |

bonnie's "K/sec" is KiB (1024 bytes) per second; the agent's MB is decimal (10^6 bytes,
perfatlas_agent.workloads.seqio.MB), so MB/s = KiB/s / 976.5625 (= x 1024 / 10^6; 976.5625 is
exact in binary, so the division is the one rounding).
The file phases (seq_create...) keep their names and files/s. Each stored metric's bonnie
column, value and unit are kept in the run's meta (`bonnie_columns`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from perfatlas.core.measurement import ParamValue, ResultCreate
from perfatlas.core.units import Direction

KIB = 1024
MB = 1_000_000
KIB_PER_MB = MB / KIB  # 976.5625

IO_PHASES = ("putc", "put_block", "rewrite", "getc", "get_block", "seeks")
FILE_PHASES = ("seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del")
# The prefix of each phase's metrics: seqio's phase names.
PREFIX = {
    "putc": "putc",
    "put_block": "write",
    "rewrite": "rewrite",
    "getc": "getc",
    "get_block": "read",
    "seeks": "seeks",
} | {phase: phase for phase in FILE_PHASES}


@dataclass(frozen=True, slots=True)
class Rate:
    metric: str
    unit: str
    bonnie_unit: str
    divisor: float  # stored value = bonnie's value / divisor


RATES = {
    phase: Rate(f"{PREFIX[phase]}.mb_per_s", "MB/s", "KiB/s", KIB_PER_MB)
    for phase in IO_PHASES
    if phase != "seeks"
}
RATES["seeks"] = Rate("seeks.per_s", "seeks/s", "seeks/s", 1.0)
RATES |= {phase: Rate(phase, "files/s", "files/s", 1.0) for phase in FILE_PHASES}


def cpu_metric(phase: str) -> str:
    return f"{PREFIX[phase]}.cpu"


def latency_metric(phase: str) -> str:
    return f"{PREFIX[phase]}.lat_max"


@dataclass(slots=True)
class Collected:
    """The results of one bonnie run, what it did not measure, and where each came from."""

    results: list[ResultCreate] = field(default_factory=list)
    not_measured: list[str] = field(default_factory=list)
    columns: dict[str, dict[str, Any]] = field(default_factory=dict)

    def _add(self, metric: str, unit: str, value: float, column: str, raw: object, raw_unit: str,
             direction: Direction | None = None) -> None:  # fmt: skip
        self.results.append(
            ResultCreate(metric=metric, unit=unit, value=value, direction=direction)
        )
        self.columns[metric] = {"column": column, "value": raw, "unit": raw_unit}

    def rate(self, phase: str, value: float | None) -> None:
        rate = RATES[phase]
        if value is None:
            self.not_measured.append(rate.metric)
            return
        self._add(rate.metric, rate.unit, value / rate.divisor, phase, value, rate.bonnie_unit)

    def cpu(self, phase: str, value: float | None) -> None:
        metric = cpu_metric(phase)
        if value is None:
            self.not_measured.append(metric)
            return
        self._add(metric, "%", value, f"{phase}_cpu", value, "%", direction="lower")

    def latency(self, phase: str, microseconds: float | None, text: str = "") -> None:
        metric = latency_metric(phase)
        if microseconds is None:
            self.not_measured.append(metric)
            return
        self._add(metric, "us", microseconds, f"{phase}_latency", text, "us")


# bonnie's runs are stored as seqio runs (the same metrics), told apart by this label: the
# bonnie-001 report's tables, and Explore's seqio plots, hold both. Imports made before this
# kept workload `bonnie` (docs/api.md, POST /import/bonnie).
WORKLOAD = "seqio"
SOURCE = {"source": "bonnie++"}
_SIZE = re.compile(r"([0-9]+)([KMGT]?)", re.IGNORECASE)
_SHIFT = {"": 20, "K": 10, "M": 20, "G": 30, "T": 40}  # a bare number is MiB (bonnie -s)


def size_bytes(text: str) -> int | None:
    """bonnie's size as bytes: `300M`, `1G`, `64` (MiB, as bonnie's -s takes it); None if the
    text is none of those (a bonnie++ `size:chunk` pair keeps only the size)."""
    found = _SIZE.fullmatch(text.strip().split(":")[0])
    if found is None:
        return None
    return int(found.group(1)) << _SHIFT[found.group(2).upper()]


def seqio_parameters(params: dict[str, ParamValue]) -> dict[str, ParamValue]:
    """bonnie's parameters with seqio's beside them: the file size and block size in bytes
    (filesize, blocksize: seqio's x axes), and cache=warm: bonnie never drops the page cache
    before it reads (it asks for a file of twice RAM instead)."""
    out = dict(params)
    size = size_bytes(str(params["size"])) if "size" in params else None
    if size is not None:
        out["filesize"] = size
    chunk = params.get("chunk_size")
    if isinstance(chunk, int) and not isinstance(chunk, bool):
        out["blocksize"] = chunk  # bytes
    elif isinstance(chunk, str) and chunk[-1:].isalpha():
        block = size_bytes(chunk)  # 4k
        if block is not None:
            out["blocksize"] = block
    out["cache"] = "warm"
    return out
