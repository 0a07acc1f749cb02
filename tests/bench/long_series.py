"""bench_server.py's long series: the newest 10,000 points of a series ten times longer than the
seeded one (BENCH_LONG_SERIES points, uploaded and folded after the query phase), read as the
UI asks, from explore's rollups (runs/series_rolled.py), beside the anchor, the same points read
from the results' covering index (a `since` before the series' first point sends the read there),
the two alternated in one run. What a read costs should not grow with the series' length."""

from __future__ import annotations

import datetime as dt
import os
import random
import time
from collections.abc import Callable
from typing import Any

import httpx
import orjson

# Run as a script's module: the script's folder is on sys.path.
from common import SERIES_POINTS, percentile, sweep_run

LONG_POINTS = int(os.environ.get("BENCH_LONG_SERIES", "100000"))
BATCH_RUNS = 1000
REPEATS = 60
AGENT = "host-long"
# A series of its own, before the seeded runs (from 2025-01-01): its 100,000 runs 15 s apart
# take 17 days, and a run may not start in the future.
START = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)


def _upload(base: str, token: str) -> float:
    """LONG_POINTS runs of one configuration, one metric each; returns the seconds taken."""
    rng = random.Random(7)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    started = time.perf_counter()
    with httpx.Client(base_url=base, headers=headers, timeout=300) as client:
        for first in range(0, LONG_POINTS, BATCH_RUNS):
            runs = [
                sweep_run(agent=AGENT, workload="smallfile", params={"nfiles": 1000, "size": "1K"},
                          started=START + dt.timedelta(seconds=15 * i), rng=rng, metrics=1,
                          labels={"version": f"2.{i // 10_000}"})
                for i in range(first, min(first + BATCH_RUNS, LONG_POINTS))
            ]  # fmt: skip
            client.post(
                "/api/v1/runs/batch", content=orjson.dumps({"runs": runs})
            ).raise_for_status()
    return time.perf_counter() - started


def _summary(times: list[float]) -> dict[str, Any]:
    return {
        "p50_ms": percentile(times, 0.5), "p95_ms": percentile(times, 0.95),
        "max_ms": max(times), "n": len(times),
    }  # fmt: skip


def long_series_phase(
    base: str, upload_token: str, client: httpx.Client, fold: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """Upload the long series, `fold` it (and VACUUM, as after the seeding: an index-only scan
    visits the table for every page not yet marked all-visible), then time its newest points
    both ways."""
    print(f"long series: {LONG_POINTS} points...", flush=True)
    upload_seconds = _upload(base, upload_token)
    folded = fold()
    (series,) = client.get(
        "/api/v1/series", params={"workload": "smallfile", "metric": "m0.mb_per_s", "agent": AGENT}
    ).json()["items"]
    path = f"/api/v1/series/{series['id']}/points"
    rolled = {"limit": SERIES_POINTS, "samples": "false", "fields": "run,p5,p95"}
    indexed = {**rolled, "since": (START - dt.timedelta(days=1)).isoformat()}
    answers = [client.get(path, params=p).json() for p in (rolled, indexed)]
    # The same points either way (the header too: the whole series' count and newest time).
    assert answers[0] == answers[1], "the two reads differ"
    assert answers[0]["series"]["points"] == LONG_POINTS
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(REPEATS + 3):
        for which in (0, 1) if i % 2 else (1, 0):
            started = time.perf_counter()
            client.get(path, params=(rolled, indexed)[which]).raise_for_status()
            if i >= 3:
                times[which].append((time.perf_counter() - started) * 1000)
    return {
        "series_length": LONG_POINTS, "points": len(answers[0]["value"]),
        "upload_seconds": round(upload_seconds, 1), "fold_seconds": round(folded["seconds"], 1),
        "from_rollups": _summary(times[0]),
        "from_results_index": _summary(times[1]),
    }  # fmt: skip
