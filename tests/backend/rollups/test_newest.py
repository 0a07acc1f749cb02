"""records.newest_of, the newest runs of many points in one sort, against a plain oracle: each
point's records sorted by (start, uuid), newest first, ties in start broken by the larger uuid."""

from __future__ import annotations

import random
import uuid

import numpy as np

from perfatlas.core.records import RECORD, RUNS_PER_POINT, newest, newest_of


def _records(rng: random.Random, count: int) -> np.ndarray:
    out = np.zeros(count, dtype=RECORD)
    # Few distinct starts, so that ties are common; uuids whose halves tie too.
    starts = [rng.choice([0, 1, 2, 10**15, 2**62]) for _ in range(count)]
    ids = [uuid.UUID(int=rng.choice([0, 1 << 64, rng.getrandbits(128)]) | rng.getrandbits(3))
           for _ in range(count)]  # fmt: skip
    out["started"] = starts
    out["hi"] = [u.int >> 64 for u in ids]
    out["lo"] = [u.int & ((1 << 64) - 1) for u in ids]
    return out


def _oracle(records: np.ndarray) -> list[uuid.UUID]:
    rows = [(int(r["started"]), (int(r["hi"]) << 64) | int(r["lo"])) for r in records]
    rows.sort(reverse=True)
    return [uuid.UUID(int=u) for _, u in rows[:RUNS_PER_POINT]]


def test_newest_of_many_points_matches_the_oracle_and_newest() -> None:
    rng = random.Random(20261205)
    # Points of one record, of exactly the limit, of fewer and of many more.
    sizes = [1, RUNS_PER_POINT, RUNS_PER_POINT - 1, RUNS_PER_POINT + 1, 3, 200, 57, 1, 2]
    parts = [_records(rng, n) for n in sizes]
    found = newest_of(parts)
    assert len(found) == len(parts)
    for part, runs in zip(parts, found, strict=True):
        assert runs == _oracle(part)
        assert runs == newest(part)
        assert all(type(u) is uuid.UUID and str(uuid.UUID(str(u))) == str(u) for u in runs)
    assert newest_of([]) == []


def _spread(rng: random.Random, count: int, starts: list[int]) -> np.ndarray:
    out = np.zeros(count, dtype=RECORD)
    out["started"] = [rng.choice(starts) for _ in range(count)]
    out["hi"] = [rng.choice([0, rng.getrandbits(64)]) for _ in range(count)]
    out["lo"] = [rng.getrandbits(64) for _ in range(count)]
    return out


def test_newest_of_with_starts_of_a_year_matches_the_oracle() -> None:
    """Starts within a year (the owner and start fit one 64-bit key): all distinct within each
    point, and with ties (broken by the uuid)."""
    rng = random.Random(20261206)
    year = 1_735_689_600_000_000  # 2025-01-01 in µs
    distinct = [year + i * 1_000_003 for i in range(5000)]
    rng.shuffle(distinct)
    sizes = [1, 30, 31, 45, RUNS_PER_POINT, 80, 2, 7]
    unique = []
    for n in sizes:  # each point's starts its own, none shared
        unique.append(np.zeros(n, dtype=RECORD))
        unique[-1]["started"] = [distinct.pop() for _ in range(n)]
        unique[-1]["hi"] = [rng.getrandbits(64) for _ in range(n)]
        unique[-1]["lo"] = [rng.getrandbits(64) for _ in range(n)]
    tied = [_spread(rng, n, [year, year + 1, year + 31_536_000_000_000]) for n in sizes]
    for parts in (unique, tied, [*unique, *tied]):
        found = newest_of(parts)
        for part, runs in zip(parts, found, strict=True):
            assert runs == _oracle(part)
