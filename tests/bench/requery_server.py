"""Re-time bench_server.py's query phase on the database it left (perfatlas_bench), with every
explore answer computed (PERFATLAS_EXPLORE_CACHE_MB=0), into an existing server-*.json: for a
run made while the server kept explore answers, whose repeats were then served from memory.

The computed figures replace `queries`, `queries_exact` and their figures (so that `growth`
compares computations); what the run measured is kept under `queries_kept_answers`.
Usage: python requery_server.py server-30m.json"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import httpx

# Run as a script: its own folder is on sys.path.
from bench_server import DB, RESULTS, PeakRss, growth, query_figures, query_phase  # isort: skip
from common import create_token, free_port, perfatlas_env, start_server  # isort: skip


def computed(
    report: dict[str, Any], queries: dict[str, Any], exact: dict[str, Any], peak_mb: float
) -> dict[str, Any]:
    """`report` with the computed query phase in place of the one it measured."""
    figures = report["figures"]
    kept = {
        "why": "the run's own query phase was served kept answers (explore/answers.py); "
        "re-timed with PERFATLAS_EXPLORE_CACHE_MB=0 on the same database by requery_server.py",
        "queries": report["queries"], "queries_exact": report["queries_exact"],
        "figures": {k: figures[k] for k in ("explore_p95_ms", "series_points_10000_p95_ms")},
    }  # fmt: skip
    return {
        **report,
        "queries": queries, "queries_exact": exact, "queries_kept_answers": kept,
        "queries_computed_load_average": os.getloadavg(),
        "api_peak_rss_mb": {**report["api_peak_rss_mb"], "queries_computed": peak_mb},
        "figures": {**figures, **query_figures(queries)},
    }  # fmt: skip


def main() -> int:
    out = RESULTS / sys.argv[1]
    report = json.loads(out.read_text())
    env = perfatlas_env(DB, free_port(), PERFATLAS_EXPLORE_CACHE_MB="0")
    server, base = start_server(env)
    rss = PeakRss(server.pid)
    try:
        token = create_token(env, "read")
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"},
                          timeout=120) as client:  # fmt: skip
            queries, exact = query_phase(client)
    finally:
        peak = rss.stop()
        server.terminate()
        server.wait(timeout=20)
    report = computed(report, queries, exact, round(peak / 2**20, 1))
    report["growth"] = growth(report)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["figures"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
