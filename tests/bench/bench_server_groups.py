"""Group compare over the database bench_server.py leaves (perfatlas_bench: 1 M results, or
what BENCH_RESULTS stored there): the runs in the groups found through explore's rollups
(compare/candidates.py), beside the anchor measured in the same run, the same comparison with
the runs found by scanning every result of the workload as before. Both answers must be equal.

In process (the service function, one session per request), so that the anchor is the same
code with the candidate step switched off. Writes tests/bench/results/groups.json
(groups-10m.json, groups-30m.json when more is stored; BENCH_OUT names another file)."""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

from perfatlas.compare import candidates, groups
from perfatlas.core.db import get_engine, session_factory

# Run as a script: its own folder is on sys.path.
from bench_server import DB, RESULTS, pending_runs, sizes  # isort: skip
from common import PG, admin_dsn, percentile  # isort: skip

REPEATS = int(os.environ.get("BENCH_GROUPS_REPEATS", "10"))
# The scan reads every result of the workload: seconds a request at 30 M, so fewer repeats.
ANCHOR_REPEATS = int(os.environ.get("BENCH_GROUPS_ANCHOR_REPEATS", "3"))

# As a user narrows a comparison on the seeded sweep (common.py make_runs): one machine, one
# configuration, two versions; two filesystems; three versions over every machine of one k.
CASES: dict[str, dict[str, Any]] = {
    "versions_on_one_agent": {
        "workload": "partialread", "by": "version", "values": ["1.7.1", "1.8.2"],
        "metrics": ["m0.mb_per_s"], "filters": ["agent:host-3", "k:10", "segsize:32768"]},
    "fs_types_all_metrics": {
        "workload": "seqio", "by": "fs_type", "values": ["ext4", "xfs"],
        "metrics": [], "filters": ["agent:host-1", "version:trunk", "k:1", "segsize:131072"]},
    "three_versions_every_agent": {
        "workload": "extract", "by": "version", "values": ["1.7.1", "1.8.2", "trunk"],
        "metrics": ["m4.mb_per_s"], "filters": ["k:50", "segsize:1048576"]},
}  # fmt: skip


def compare(factory: Any, case: dict[str, Any]) -> dict[str, Any]:
    with factory() as session:
        answer = groups.compare_groups(
            session, workload=case["workload"], by=case["by"], values=case["values"],
            metrics=case["metrics"], filters=case["filters"], min_effect_pct=5.0,
        )  # fmt: skip
        return answer.model_dump(mode="json")


def timed(
    factory: Any, case: dict[str, Any], repeats: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    compare(factory, case)  # warm the caches
    times = []
    answer: dict[str, Any] = {}
    for _ in range(repeats):
        started = time.perf_counter()
        answer = compare(factory, case)
        times.append((time.perf_counter() - started) * 1000)
    figures = {"p50_ms": percentile(times, 0.5), "p95_ms": percentile(times, 0.95),
               "max_ms": max(times), "n": repeats}  # fmt: skip
    return figures, answer


def main() -> int:
    with psycopg.connect(admin_dsn(DB)) as conn:
        row = conn.execute("SELECT count(*) FROM results").fetchone()
    assert row is not None
    stored = int(row[0])
    factory = session_factory(get_engine(f"{PG}/{DB}"))
    found_by_rollups = candidates.candidate_runs
    cases: dict[str, Any] = {}
    for name, case in CASES.items():
        rolled, answer = timed(factory, case, REPEATS)
        candidates.candidate_runs = lambda *args, **kwargs: None  # the anchor: the old scan
        try:
            scanned, anchor_answer = timed(factory, case, ANCHOR_REPEATS)
        finally:
            candidates.candidate_runs = found_by_rollups
        # The same answer either way, and one that compares something.
        assert answer == anchor_answer, name
        assert answer["metrics"] and all(g["runs"] for g in answer["groups"]), name
        cases[name] = {
            **case, "runs_compared": [g["runs"] for g in answer["groups"]],
            "pairs": sum(len(m["pairs"]) for m in answer["metrics"]),
            "through_rollups": rolled, "scan_anchor": scanned,
            "speedup_p50": round(scanned["p50_ms"] / rolled["p50_ms"], 1),
        }  # fmt: skip
        print(f"{name}: {rolled['p50_ms']:.0f} ms (scan {scanned['p50_ms']:.0f} ms)", flush=True)
    worst = max(c["through_rollups"]["p95_ms"] for c in cases.values())
    worst_scan = max(c["scan_anchor"]["p95_ms"] for c in cases.values())
    report = {
        "benchmark": "server_groups",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "results_stored": stored,
        "runs_pending": pending_runs(),
        "database_mb": sizes(),
        "load_average": os.getloadavg(),
        "cases": cases,
        # The worst case of each way (the issue sets no figure for group compare: its growth
        # with what is stored is the point, beside the scan's).
        "figures": {"group_compare_p95_ms": round(worst, 1),
                    "scan_anchor_p95_ms": round(worst_scan, 1)},
    }  # fmt: skip
    millions = round(stored / 1_000_000)
    out = Path(os.environ.get("BENCH_OUT") or RESULTS / (
        "groups.json" if millions <= 1 else f"groups-{millions}m.json"
    ))  # fmt: skip
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["figures"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
