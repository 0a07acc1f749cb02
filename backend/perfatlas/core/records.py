"""One fixed-size record per result, as explore's rollups pack them, and the numbers of an
explore point computed from a point's records (docs/explore.md, "Explore's numbers").

A record is what a point needs of a result: its value, the spread of its repetitions (p5,
p95), their mean, min and max and how many there were, its trust flags, when its run started
(microseconds since the epoch, UTC) and the run's uuid (two 64-bit halves)."""

from __future__ import annotations

import datetime as dt
import functools
import math
import uuid as uuid_mod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfatlas.core.stats import quantile

RECORD = np.dtype(
    [("value", "<f8"), ("p5", "<f8"), ("p95", "<f8"), ("mean", "<f8"), ("min", "<f8"),
     ("max", "<f8"), ("started", "<i8"), ("hi", "<u8"), ("lo", "<u8"), ("n", "<i4"),
     ("flags", "<i4")]
)  # fmt: skip
# The same fields as PostgreSQL's binary send functions give them (big-endian; a timestamp in
# microseconds since 2000-01-01; the flags a smallint), in RECORD's order.
PG_RECORD = np.dtype(
    [("value", ">f8"), ("p5", ">f8"), ("p95", ">f8"), ("mean", ">f8"), ("min", ">f8"),
     ("max", ">f8"), ("started", ">i8"), ("hi", ">u8"), ("lo", ">u8"), ("n", ">i4"),
     ("flags", ">i2")]
)  # fmt: skip
# A result's row of `results` packed as PG_RECORD, in SQL.
PG_RECORD_SQL = (
    "float8send(value) || float8send(p5) || float8send(p95) || float8send(mean) || "
    "float8send(min) || float8send(max) || timestamptz_send(started_at) || uuid_send(run_uuid) "
    "|| int4send(n) || int2send(flags)"
)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_PG_EPOCH_MICROS = 946_684_800 * 1_000_000
_MICRO = dt.timedelta(microseconds=1)
_LOW = (1 << 64) - 1
RUNS_PER_POINT = 20


def micros(moment: dt.datetime) -> int:
    """Microseconds since the epoch, exactly (no float on the way)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return (moment - EPOCH) // _MICRO


def pack(
    rows: Sequence[tuple[float, float, float, float, float, float, dt.datetime, Any, int, int]],
) -> np.ndarray[Any, Any]:
    """Records from (value, p5, p95, mean, min, max, started_at, run uuid, n, flags) rows."""
    out = np.empty(len(rows), dtype=RECORD)
    if not rows:
        return out
    columns = list(zip(*rows, strict=True))
    for name, column in zip(("value", "p5", "p95", "mean", "min", "max"), columns, strict=False):
        out[name] = column
    out["started"] = [micros(moment) for moment in columns[6]]
    ints = [_uuid(u).int for u in columns[7]]
    out["hi"] = [i >> 64 for i in ints]
    out["lo"] = [i & _LOW for i in ints]
    out["n"] = columns[8]
    out["flags"] = columns[9]
    return out


def _uuid(value: Any) -> uuid_mod.UUID:
    return value if isinstance(value, uuid_mod.UUID) else uuid_mod.UUID(str(value))


def from_postgresql(buffer: bytes) -> np.ndarray[Any, Any]:
    """Records from results PostgreSQL packed as PG_RECORD."""
    if len(buffer) % PG_RECORD.itemsize:
        raise ValueError(f"{len(buffer)} bytes are not records of {PG_RECORD.itemsize}")
    return from_postgresql_fields(np.frombuffer(buffer, dtype=PG_RECORD))


def from_postgresql_fields(given: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Records from an array with PG_RECORD's fields (and perhaps others)."""
    out = np.empty(len(given), dtype=RECORD)
    for name in RECORD.names or ():
        out[name] = given[name]
    out["started"] += _PG_EPOCH_MICROS
    return out


def unpack(buffer: bytes | bytearray) -> np.ndarray[Any, Any]:
    if len(buffer) % RECORD.itemsize:
        raise ValueError(f"a rollup of {len(buffer)} bytes, not records of {RECORD.itemsize}")
    return np.frombuffer(buffer, dtype=RECORD)


def within(records: np.ndarray[Any, Any], ranges: Iterable[tuple[int | None, int | None]]) -> Any:
    """A mask of the records that started in any of the [from, to) ranges (µs; None: open)."""
    started = records["started"]
    mask = np.zeros(len(records), dtype=bool)
    for start, end in ranges:
        inside = np.ones(len(records), dtype=bool)
        if start is not None:
            inside &= started >= start
        if end is not None:
            inside &= started < end
        mask |= inside
    return mask


def _quantile(values: np.ndarray[Any, Any], q: float) -> float:
    # quantile reads the values at floor(q * (n - 1)) and the next: partitioning puts those two
    # in place without sorting the rest.
    at = math.floor(q * (len(values) - 1))
    return quantile(np.partition(values, [at, min(at + 1, len(values) - 1)]), q)


def newest_records(records: np.ndarray[Any, Any], limit: int = RUNS_PER_POINT) -> Any:
    """The `limit` newest of records with started, hi and lo fields, newest first (ties by uuid,
    the larger first)."""
    if len(records) > limit:
        started = records["started"]
        nth = len(records) - limit
        records = records[started >= np.partition(started, nth)[nth]]
    order = np.lexsort((records["lo"], records["hi"], records["started"]))[::-1][:limit]
    return records[order]


def _from_int(number: int) -> uuid_mod.UUID:
    """uuid.UUID(int=number) without its checks, as the standard library makes one (a number
    of 128 bits from two 64-bit halves needs none): a plot of 720 points names 14,400 runs,
    whose checked construction took a tenth of explore's time."""
    made = _NEW(uuid_mod.UUID)
    _SET_INT(made, number)
    _SET_SAFE(made, _UNKNOWN)
    return made


_UNKNOWN = uuid_mod.SafeUUID.unknown  # read once: an enum member's lookup costs a microsecond
# UUID's slots set through their descriptors: object.__setattr__ looks each name up first (a
# quarter of the time of 14,400 uuids).
_NEW = object.__new__
_SET_INT = uuid_mod.UUID.__dict__["int"].__set__
_SET_SAFE = uuid_mod.UUID.__dict__["is_safe"].__set__


assert _from_int(0x1234 << 64 | 5) == uuid_mod.UUID(int=0x1234 << 64 | 5)


def uuids(records: np.ndarray[Any, Any]) -> list[uuid_mod.UUID]:
    """The run uuids of records with hi and lo fields."""
    return _joined(records["hi"], records["lo"])


def _joined(high: Any, low: Any) -> list[uuid_mod.UUID]:
    """The uuids of arrays of their high and low 64-bit halves."""
    halves = zip(high.tolist(), low.tolist(), strict=True)
    return [_from_int((hi << 64) | lo) for hi, lo in halves]


def newest(records: np.ndarray[Any, Any], limit: int = RUNS_PER_POINT) -> list[uuid_mod.UUID]:
    """The newest runs, newest first (ties by uuid, the larger first)."""
    return uuids(newest_records(records, limit))


def newest_of(
    parts: Sequence[np.ndarray[Any, Any]], limit: int = RUNS_PER_POINT
) -> list[list[uuid_mod.UUID]]:
    """newest() of each of `parts` (records, none empty) at once: one sort of all their keys
    costs a fraction of one sort per part (a plot of 720 points of 30 runs each: 2 ms, not 30)."""
    if not parts:
        return []
    # A long part is cut to its newest first (newest_records' partition), which one sort of
    # everything would not do.
    parts = [p if len(p) <= 4 * limit else newest_records(p, limit) for p in parts]
    lengths = np.fromiter((len(p) for p in parts), dtype=np.int64, count=len(parts))
    hi = np.concatenate([p["hi"] for p in parts])
    lo = np.concatenate([p["lo"] for p in parts])
    started = np.concatenate([p["started"] for p in parts])
    owner = np.repeat(np.arange(len(parts)), lengths)
    # Each part's records together, oldest first (ties by uuid, the smaller first): its newest
    # are its last `limit`, read backwards.
    order = _oldest_first(owner, started, hi, lo)
    counts = np.minimum(lengths, limit)
    last = np.repeat(np.cumsum(lengths) - 1, counts)
    back = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    picked = order[last - back]
    made = _joined(hi[picked], lo[picked])
    out: list[list[uuid_mod.UUID]] = []
    at = 0
    for count in map(int, counts):
        out.append(made[at : at + count])
        at += count
    return out


def _oldest_first(owner: np.ndarray[Any, Any], started: Any, hi: Any, lo: Any) -> Any:
    """np.lexsort((lo, hi, started, owner)), sooner: the owner and the start as one 64-bit key
    where they fit, sorted by one argsort of integers (a thirtieth of lexsort's time for 22,500
    records); the uuid's halves only where two records of a part start together."""
    if not len(started):
        return np.lexsort((lo, hi, started, owner))
    first = int(started.min())
    shift = (int(started.max()) - first).bit_length()
    if shift + int(owner[-1]).bit_length() > 62:
        return np.lexsort((lo, hi, started, owner))
    key = (owner.astype(np.int64) << shift) | (started - first)
    order = np.argsort(key, kind="stable")
    ranked = key[order]
    if bool(np.any(ranked[1:] == ranked[:-1])):
        return np.lexsort((lo, hi, key))
    return order


@dataclass
class Summary:
    n: int
    repetitions: int
    median: float
    mean: float
    min: float
    max: float
    p5: float
    p95: float
    flags: int
    runs: list[uuid_mod.UUID]
    # A 95 % interval of the median (median_interval); None where it is not known.
    median_low: float | None = None
    median_high: float | None = None


EXACT_RANKS = 400
# From this many runs on, order statistics of their values bound a 95 % interval of the median.
MEDIAN_INTERVAL_RUNS = 6


@functools.lru_cache(maxsize=1024)
def median_rank(n: int) -> int:
    """The largest k (1-based) such that the k-th smallest and k-th largest of n values bound
    their median with at least 95 % confidence (P(Binomial(n, 1/2) < k) <= 2.5 %: no
    distribution assumed); exact, in integers, up to EXACT_RANKS values, then the normal
    approximation, which is within one rank there."""
    if n > EXACT_RANKS:
        return max(1, math.floor((n - 1.959964 * math.sqrt(n)) / 2))
    k, below, whole = 0, 0, 2**n
    while k < n:
        below += math.comb(n, k)
        if below * 40 > whole:
            break
        k += 1
    return max(k, 1)


def median_interval(
    values: np.ndarray[Any, Any], low: float, high: float
) -> tuple[float | None, float | None]:
    """A 95 % interval of the median of the runs' `values`: from MEDIAN_INTERVAL_RUNS runs on,
    the order statistics that bound it; for fewer, the smallest and largest repetition (`low`,
    `high`): at three repetitions a side, Compare's interval excludes a change exactly when
    these ranges do not overlap (core/significance.py)."""
    n = len(values)
    if n < MEDIAN_INTERVAL_RUNS:
        return low, high
    k = median_rank(n)
    ranks = sorted({k - 1, n - k})
    ordered = np.partition(values, ranks)
    return float(ordered[k - 1]), float(ordered[n - k])


def summarize(records: np.ndarray[Any, Any], runs: list[uuid_mod.UUID] | None = None) -> Summary:
    """A point's numbers from its records (at least one); `runs`: their newest, when known
    (newest_of)."""
    reps = records["n"].astype(np.int64)
    repetitions = int(reps.sum())
    low, high = float(records["min"].min()), float(records["max"].max())
    median_low, median_high = median_interval(records["value"].copy(), low, high)
    return Summary(
        n=len(records), repetitions=repetitions,
        median=_quantile(records["value"].copy(), 0.5),
        mean=math.fsum(np.asarray(records["mean"] * reps, dtype=np.float64)) / repetitions,
        min=low, max=high,
        p5=_quantile(records["p5"].copy(), 0.05), p95=_quantile(records["p95"].copy(), 0.95),
        flags=int(np.bitwise_or.reduce(records["flags"])), runs=newest(records) if runs is None else runs,
        median_low=median_low, median_high=median_high,
    )  # fmt: skip


def summarize_many(
    parts: Sequence[np.ndarray[Any, Any]], runs: Sequence[list[uuid_mod.UUID]]
) -> list[Summary]:
    """summarize() of each of `parts` (records, none empty) with its newest `runs`, the same
    numbers to the bit, a batch at a time: each field's values laid out one part a row (padded
    with NaN, which sorts last, as partition puts it) and sorted along the rows at once, instead
    of a dozen numpy calls per point (720 points of 31 runs: 4 ms, not 15). Parts of very
    unequal lengths, whose padding would outweigh them, are summarised one by one."""
    if not parts:
        return []
    lengths = np.fromiter((len(p) for p in parts), dtype=np.int64, count=len(parts))
    width = int(lengths.max())
    total = int(lengths.sum())
    if len(parts) * width > 2 * total + 1024:
        return [summarize(p, r) for p, r in zip(parts, runs, strict=True)]
    every = _concatenated(parts)
    starts = np.cumsum(lengths) - lengths
    rows = np.repeat(np.arange(len(parts)), lengths)
    columns = np.arange(total) - np.repeat(starts, lengths)
    reps = every["n"].astype(np.int64)
    repetitions: list[int] = _listed(np.add.reduceat(reps, starts))
    low: list[float] = _listed(np.minimum.reduceat(every["min"], starts))
    high: list[float] = _listed(np.maximum.reduceat(every["max"], starts))
    flags: list[int] = _listed(np.bitwise_or.reduceat(every["flags"], starts))
    weighted: list[float] = _listed(np.asarray(every["mean"] * reps, dtype=np.float64))

    def ordered(name: str) -> np.ndarray[Any, Any]:
        # A part's values in order along its row: the order statistics summarize's partitions
        # put in place, read at the same positions.
        grid = np.full((len(parts), width), np.nan)
        grid[rows, columns] = every[name]
        grid.sort(axis=1)
        return grid

    values = ordered("value")
    median = _quantiles(values, lengths, 0.5)
    p5 = _quantiles(ordered("p5"), lengths, 0.05)
    p95 = _quantiles(ordered("p95"), lengths, 0.95)
    out = []
    bounds: list[tuple[int, int]] = list(zip(_listed(starts), _listed(lengths), strict=True))
    for i, (start, n) in enumerate(bounds):
        median_low: float | None = low[i]
        median_high: float | None = high[i]
        if n >= MEDIAN_INTERVAL_RUNS:
            k = median_rank(n)
            median_low, median_high = float(values[i, k - 1]), float(values[i, n - k])
        out.append(Summary(
            n=n, repetitions=repetitions[i], median=median[i],
            mean=math.fsum(weighted[start : start + n]) / repetitions[i], min=low[i],
            max=high[i], p5=p5[i], p95=p95[i], flags=flags[i], runs=runs[i],
            median_low=median_low, median_high=median_high,
        ))  # fmt: skip
    return out


def _quantiles(grid: np.ndarray[Any, Any], lengths: Any, q: float) -> list[float]:
    """stats.quantile of each row of `grid` (its first `lengths` values in order), at once."""
    pos = q * (lengths - 1).astype(np.float64)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, lengths - 1)
    at = np.arange(len(grid))
    below, above = grid[at, lo], grid[at, hi]
    return _listed(below + (above - below) * (pos - lo))


def _concatenated(parts: Sequence[np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
    """Records end to end: joined as bytes (np.concatenate of structured arrays compares their
    fields once per part, which costs more than the rest of a batch's numbers)."""
    if all(p.dtype == RECORD for p in parts):
        return np.frombuffer(b"".join(p.tobytes() for p in parts), dtype=RECORD)
    return np.concatenate(parts)


def _listed(array: np.ndarray[Any, Any]) -> list[Any]:
    """A one-dimensional array's items as Python numbers."""
    return array.tolist()  # type: ignore[return-value]
