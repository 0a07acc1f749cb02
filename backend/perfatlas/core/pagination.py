"""Cursor pages and `name:value` filters, as every list route takes them."""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Sequence

from perfatlas.core.errors import Invalid


def encode_cursor(started_at: dt.datetime, run_id: int) -> str:
    return base64.urlsafe_b64encode(f"{started_at.isoformat()}|{run_id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[dt.datetime, int]:
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
        stamp, run_id = text.rsplit("|", 1)
        # What this API gives out: a UTC time and a row id (a BIGINT).
        started = dt.datetime.fromisoformat(stamp)
        if started.utcoffset() != dt.timedelta(0) or not 0 < int(run_id) < 2**63:
            raise ValueError(cursor)
        return started, int(run_id)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Invalid("cursor", "not a cursor this API gave out") from exc


def parse_pairs(field: str, values: Sequence[str]) -> dict[str, list[str]]:
    """`k:v` filters (repeated; several values of one key mean any of them)."""
    pairs: dict[str, list[str]] = {}
    for item in values:
        key, sep, value = item.partition(":")
        if not sep or not key:
            raise Invalid(field, f"{item!r} is not of the form name:value")
        pairs.setdefault(key, []).append(value)
    return pairs
