"""Explore's own CPU time per answer, in process, for trees alternated on perfatlas_bench: on a
machine whose load swamps wall-clock timings (reads_ab.py's), the time the answer's Python took
(process_time: building the statements, reading the rows, the numbers, the traces, the JSON)
moves with the code far more than with the neighbours. The database's time is not in it.

Usage: python explore_cpu.py BACKEND... (each a folder holding the perfatlas package), run from
tests/bench; ROUNDS (default 2) alternations; writes BENCH_OUT (default
results/explore-cpu.json): per case and tree each round's median wall and CPU milliseconds."""

from __future__ import annotations

import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import EXPLORE_CASES, PG

REPEATS = 15
WARMUP = 6


def measure() -> dict[str, dict[str, float]]:
    """In the tree's own process: each case's median wall and CPU ms over REPEATS answers."""
    from perfatlas.core.db import get_engine, session_factory
    from perfatlas.explore import service

    factory = session_factory(get_engine(f"{PG}/perfatlas_bench"))
    out = {}
    for name, params in EXPLORE_CASES.items():
        asked: dict[str, Any] = {
            "workload": params["workload"], "metric": params["metric"], "x": params["x"],
            "group": params.get("group"),
            "filters": [params["filter"]] if "filter" in params else [],
        }  # fmt: skip
        with factory() as session:
            for _ in range(WARMUP):
                service.explore(session, **asked)
            wall, cpu = [], []
            for _ in range(REPEATS):
                started, used = time.perf_counter(), time.process_time()
                service.explore(session, **asked).model_dump_json()
                wall.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - used) * 1000)
        out[name] = {"wall_ms": round(statistics.median(wall), 1),
                     "cpu_ms": round(statistics.median(cpu), 1)}  # fmt: skip
    return out


def main() -> None:
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(measure()))
        return
    trees = sys.argv[1:]
    rounds = int(os.environ.get("ROUNDS", "2"))
    rows: dict[str, dict[str, list[dict[str, float]]]] = {}
    for _ in range(rounds):
        for tree in trees:
            env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{Path(__file__).parent}"}
            found = json.loads(subprocess.run(
                [sys.executable, __file__, "--measure"], env=env, check=True,
                capture_output=True, text=True,
            ).stdout)  # fmt: skip
            for case, figures in found.items():
                rows.setdefault(case, {}).setdefault(tree, []).append(figures)
    report = {
        "benchmark": "explore_cpu", "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "trees": trees, "rounds": rounds, "repeats": REPEATS, "load_average": os.getloadavg(),
        "cases": {case: {tree: {"cpu_ms_median_of_rounds": statistics.median(
            r["cpu_ms"] for r in runs), "rounds": runs} for tree, runs in by_tree.items()}
            for case, by_tree in rows.items()},
    }  # fmt: skip
    out = Path(os.environ.get("BENCH_OUT", Path(__file__).parent / "results" / "explore-cpu.json"))
    out.write_text(json.dumps(report, indent=2) + "\n")
    for case, by_tree in report["cases"].items():
        figures = " -> ".join(f"{v['cpu_ms_median_of_rounds']:6.1f}" for v in by_tree.values())
        print(f"{case:36s} CPU ms {figures}")


if __name__ == "__main__":
    main()
