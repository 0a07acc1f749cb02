"""records.newest_of, the newest runs of many points in one sort, against a plain oracle: each
point's records sorted by (start, uuid), newest first, ties in start broken by the larger uuid."""

from __future__ import annotations

import random
import uuid

import numpy as np

from perfatlas.rollups.records import RECORD, RUNS_PER_POINT, newest, newest_of


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
