"""Known units and the direction (higher or lower is better) each one implies."""

from __future__ import annotations

from typing import Literal

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
