"""Two trees' servers on one populated database (bench_server.py leaves perfatlas_bench with
1 M results), the server benchmark's explore cases alternated request by request between them:
no order between the trees, the same database pages and caches for both.

    .venv/bin/python tests/bench/interleave_ab.py BEFORE_TREE AFTER_TREE [OUT.json]

Each case: 3 warm-up requests a tree, then 30 rounds, the order within a round alternating;
the median of each tree's 30. The answer cache is off (every answer computed)."""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import httpx

# Run as a script: its own folder is on sys.path.
from common import (
    EXPLORE_CASES,
    create_token,
    free_port,
    perfatlas_env,
    start_server,
    stop_process,
)

ROUNDS = 30


def main() -> int:
    trees = {"before": Path(sys.argv[1]).resolve(), "after": Path(sys.argv[2]).resolve()}
    out_path = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    servers, bases, token = {}, {}, None
    try:
        for name, tree in trees.items():
            env = perfatlas_env(
                "perfatlas_bench", free_port(), PERFATLAS_EXPLORE_CACHE_MB="0",
                PYTHONPATH=f"{tree}/backend:{tree}/agent/src", PYTHONDONTWRITEBYTECODE="",
            )  # fmt: skip
            token = token or create_token(env, "read")
            servers[name], bases[name] = start_server(env)
        headers = {"Authorization": f"Bearer {token}"}
        figures: dict[str, dict[str, float]] = {}
        with httpx.Client(headers=headers, timeout=60) as client:
            for case, params in EXPLORE_CASES.items():
                times: dict[str, list[float]] = {name: [] for name in trees}
                for name in trees:
                    for _ in range(3):
                        client.get(
                            f"{bases[name]}/api/v1/explore", params=params
                        ).raise_for_status()
                for i in range(ROUNDS):
                    for name in list(trees) if i % 2 == 0 else list(reversed(trees)):
                        started = time.perf_counter()
                        client.get(
                            f"{bases[name]}/api/v1/explore", params=params
                        ).raise_for_status()
                        times[name].append((time.perf_counter() - started) * 1000)
                figures[case] = {
                    f"{n}_p50_ms": round(statistics.median(t), 1) for n, t in times.items()
                }
                print(case, figures[case], flush=True)
    finally:
        for server in servers.values():
            stop_process(server)
    result = {"trees": {n: str(t) for n, t in trees.items()}, "rounds": ROUNDS, "cases": figures}
    if out_path:
        out_path.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
