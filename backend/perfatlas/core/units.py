"""Parameters in human units: sizes stored in bytes, durations in seconds, read and written as
people write them (128k, 128 KiB, 4M, 250ms, 2s).

Which parameters are sizes or durations is declared here, by name, from the agent's workloads
(their ParamSpec of kind "size"; tests/backend/core/test_units.py holds the two lists together), not
guessed from the values: a `count` of 131072 is not 128 KiB. frontend/src/lib/units.ts formats
them the same way.

Metrics' units: the known ones, and the direction (higher or lower is better) each implies."""

from __future__ import annotations

import math
import re
from typing import Literal

from perfatlas.core.errors import Invalid

BYTES, SECONDS = "bytes", "s"

# Every size parameter of the agent's workloads (fio bs/size, seqio, partialread, smallfile,
# treeops, extract) and the usual names of one given to the command workload.
SIZE_PARAMETERS = frozenset({
    "size", "filesize", "blocksize", "segsize", "readsize", "bs", "perchar_size", "bytes",
    "block_size", "file_size", "record_size", "recordsize",
})  # fmt: skip
# Durations in seconds: the command workload's timeout, and the usual names of one.
DURATION_PARAMETERS = frozenset({"timeout", "duration", "runtime", "interval"})

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*([kmgtp]?)(i?b?)\s*$", re.IGNORECASE)
_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ns|us|µs|ms|s|sec|m|min|h)?\s*$", re.I)
_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "m": 60.0,
            "min": 60.0, "h": 3600.0}  # fmt: skip
_SIZE_NAMES = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]


def unit_of(dimension: str | None) -> str | None:
    """BYTES or SECONDS for a parameter declared as a size or a duration (named `param.NAME` or
    bare NAME), else None."""
    if not dimension:
        return None
    name = dimension.removeprefix("param.")
    if "." in name:
        return None  # label.X, env.X: free text, whatever their name
    if name in SIZE_PARAMETERS:
        return BYTES
    if name in DURATION_PARAMETERS:
        return SECONDS
    return None


def parse_size(text: str) -> int:
    """Bytes from 131072, 128k, 128K, 128 KiB, 128kb, 4M, 4 MiB, 1.5M; binary multiples (k = 1024,
    as the agent reads them). ValueError when it is not a whole number of bytes."""
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a size (examples: 4096, 128k, 128 KiB, 4M, 1.5 MiB)")
    number, prefix, _ = m.groups()
    value = float(number) * 1024 ** _POWER[prefix.lower()]
    if value != int(value):
        raise ValueError(f"size {text!r} is not a whole number of bytes")
    return int(value)


def parse_duration(text: str) -> float:
    """Seconds from 250ms, 2s, 1.5 min, 1h, 30 (seconds)."""
    m = _DURATION.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a duration (examples: 250ms, 2s, 1.5min, 1h)")
    number, unit = m.groups()
    return float(number) * _SECONDS[(unit or "s").lower()]


def format_size(value: float) -> str:
    """131072 -> 128 KiB, 4194304 -> 4 MiB, 1572864 -> 1.5 MiB, 1023 -> 1023 B."""
    if not math.isfinite(value):
        return str(value)
    size, power = abs(value), 0
    while size >= 1024 and power < len(_SIZE_NAMES) - 1:
        size, power = size / 1024, power + 1
    sign = "-" if value < 0 else ""
    text = f"{size:.2f}".rstrip("0").rstrip(".") if power else f"{size:g}"
    return f"{sign}{text} {_SIZE_NAMES[power]}"


def format_duration(value: float) -> str:
    """0.25 -> 250 ms, 2 -> 2 s, 90 -> 1.5 min."""
    if not math.isfinite(value):
        return str(value)
    for limit, scale, name in ((1e-6, 1e9, "ns"), (1e-3, 1e6, "µs"), (1.0, 1e3, "ms"),
                               (60.0, 1.0, "s"), (3600.0, 1 / 60, "min")):  # fmt: skip
        if abs(value) < limit:
            return f"{value * scale:.3g} {name}"
    return f"{value / 3600:.3g} h"


def humanize(dimension: str | None, value: object) -> str | None:
    """A value of a size or duration parameter as people write it; None for anything else."""
    unit = unit_of(dimension)
    if unit is None or value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return format_size(number) if unit == BYTES else format_duration(number)


def _json_texts(number: float) -> list[str]:
    # As the databases write the stored JSON number: 131072, or 0.25, or 3600.0 for a float
    # parameter that happens to be whole; a filter matches either spelling.
    if number == int(number):
        return [str(int(number)), f"{int(number)}.0"]
    return [repr(number)]


def filter_values(dimension: str, values: list[str], *, field: str) -> list[str]:
    """A filter's values of a size or duration parameter as stored (128k -> 131072), or a 422
    on `field` naming the parameter; other dimensions' values unchanged."""
    unit = unit_of(dimension)
    if unit is None:
        return values
    name = dimension.removeprefix("param.")
    stored: list[str] = []
    for value in values:
        # As typed too: a value stored as text (a size of "30B" from an older agent) still
        # matches itself.
        if value not in stored:
            stored.append(value)
        try:
            number = float(parse_size(value)) if unit == BYTES else parse_duration(value)
        except ValueError as exc:
            raise Invalid(field, f"{name}: {exc}") from exc
        stored += [t for t in _json_texts(number) if t not in stored]
    return stored


Direction = Literal["higher", "lower"]

TIME_UNITS = ("s", "ms", "us", "ns")
RATE_UNITS = (
    "B/s",
    "KB/s",
    "KiB/s",
    "MB/s",
    "MiB/s",
    "GB/s",
    "GiB/s",
    "ops/s",
    "iops",
    "files/s",
    "inodes/s",
    "seeks/s",
    "req/s",
)
OTHER_UNITS = ("B", "KB", "KiB", "MB", "MiB", "GB", "GiB", "count", "x", "%", "1")
KNOWN_UNITS = frozenset(TIME_UNITS + RATE_UNITS + OTHER_UNITS)


def implied_direction(unit: str) -> Direction | None:
    if unit in TIME_UNITS:
        return "lower"
    if unit in RATE_UNITS:
        return "higher"
    return None
