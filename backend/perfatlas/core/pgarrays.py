"""PostgreSQL arrays in binary (`array_send(array_agg(column))`) read as numpy arrays.

Reading 10,000 rows of a covering index as Python rows costs far more than the query: every
value becomes a Python object (datetimes and UUIDs are the dearest), and the garbage they leave
makes the slow tail. One row of binary arrays, decoded by numpy, creates a few objects per
column instead, and orjson writes numpy arrays (and datetime64 as RFC 3339) directly."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
from numpy.typing import NDArray

# timestamptz in binary: microseconds since 2000-01-01 00:00 UTC.
_PG_EPOCH_US = 946_684_800_000_000
_HEADER = struct.Struct(">iii")
_DIM = struct.Struct(">ii")
_LENGTH = struct.Struct(">i")


def _elements(data: bytes | None, item: np.dtype[Any]) -> tuple[NDArray[Any], list[Any] | None]:
    """The elements of a one-dimensional binary array of a fixed-size type: a numpy array when
    there is no NULL, else a list (None for NULL) built from the raw items."""
    if data is None:  # array_agg over no rows
        return np.empty(0, item), None
    ndim, has_null, _ = _HEADER.unpack_from(data, 0)
    if ndim == 0:
        return np.empty(0, item), None
    if ndim != 1:
        raise ValueError(f"expected a one-dimensional array, got {ndim} dimensions")
    (count, _) = _DIM.unpack_from(data, _HEADER.size)
    offset = _HEADER.size + _DIM.size
    if not has_null:
        records = np.frombuffer(
            data, dtype=np.dtype([("len", ">i4"), ("v", item)]), count=count, offset=offset
        )
        return records["v"], None
    values: list[Any] = []
    for _ in range(count):
        (length,) = _LENGTH.unpack_from(data, offset)
        offset += _LENGTH.size
        if length < 0:
            values.append(None)
        else:
            values.append(np.frombuffer(data, item, count=1, offset=offset)[0])
            offset += length
    return np.empty(0, item), values


def floats(data: bytes | None) -> NDArray[np.float64] | list[float | None]:
    array, with_nulls = _elements(data, np.dtype(">f8"))
    if with_nulls is not None:
        return [None if v is None else float(v) for v in with_nulls]
    return array.astype(np.float64)


def ints(data: bytes | None, size: int = 4) -> NDArray[np.int64] | list[int | None]:
    array, with_nulls = _elements(data, np.dtype(f">i{size}"))
    if with_nulls is not None:
        return [None if v is None else int(v) for v in with_nulls]
    return array.astype(np.int64)


def timestamps(data: bytes | None) -> NDArray[np.datetime64]:
    """timestamptz[] without NULLs as naive UTC datetime64[us] (orjson's OPT_NAIVE_UTC writes
    them as `2025-01-01T00:00:00+00:00`, as it writes an aware datetime)."""
    array, with_nulls = _elements(data, np.dtype(">i8"))
    if with_nulls is not None:
        raise ValueError("NULL in a timestamp array")
    return (array.astype(np.int64) + _PG_EPOCH_US).view("datetime64[us]")


def uuids(data: bytes | None) -> NDArray[np.uint8]:
    """uuid[] without NULLs as an (n, 16) array of bytes."""
    array, with_nulls = _elements(data, np.dtype(("u1", (16,))))
    if with_nulls is not None:
        raise ValueError("NULL in a uuid array")
    return array.reshape(-1, 16)


def uuids_json(raw: NDArray[np.uint8]) -> bytes:
    """A JSON array of the canonical strings of (n, 16) uuid bytes, built without a Python
    object per uuid."""
    n = len(raw)
    if n == 0:
        return b"[]"
    # (n, 32): the hex digits of each uuid
    digits = np.frombuffer(np.ascontiguousarray(raw).tobytes().hex().encode(), np.uint8)
    digits = digits.reshape(n, 32)
    out = np.empty((n, 39), np.uint8)
    out[:, 0] = out[:, 37] = ord('"')
    out[:, 38] = ord(",")
    out[:, 9] = out[:, 14] = out[:, 19] = out[:, 24] = ord("-")
    out[:, 1:9] = digits[:, 0:8]
    out[:, 10:14] = digits[:, 8:12]
    out[:, 15:19] = digits[:, 12:16]
    out[:, 20:24] = digits[:, 16:20]
    out[:, 25:37] = digits[:, 20:32]
    body = out.tobytes()
    return b"[" + body[:-1] + b"]"
