"""Re-time bench_server.py's query phase on the database it left (perfatlas_bench), with every
explore answer computed (PERFATLAS_EXPLORE_CACHE_MB=0), into an existing server-*.json as
`queries_computed` (and its figures): for a run made while the server kept explore answers,
whose repeats were then served from memory. Usage: python requery_server.py server-30m.json"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import httpx

# Run as a script: its own folder is on sys.path.
from bench_server import DB, EXACT_REPEATS, QUERY_REPEATS, RESULTS, PeakRss, timed  # isort: skip
from common import (  # isort: skip
    EXPLORE_CASES,
    SERIES_POINTS,
    create_token,
    free_port,
    perfatlas_env,
    start_server,
)


def main() -> int:
    out = RESULTS / sys.argv[1]
    report = json.loads(out.read_text())
    env = perfatlas_env(DB, free_port(), PERFATLAS_EXPLORE_CACHE_MB="0")
    server, base = start_server(env)
    rss = PeakRss(server.pid)
    queries: dict[str, Any] = {}
    try:
        token = create_token(env, "read")
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"},
                          timeout=120) as client:  # fmt: skip
            for name, params in EXPLORE_CASES.items():
                timed(client, "/api/v1/explore", params, 3)
                result = timed(client, "/api/v1/explore", params, QUERY_REPEATS)
                body = result.pop("body")
                result["rows_aggregated"] = sum(p["n"] for t in body["traces"] for p in t["points"])
                result["approximate"] = body["approximate"]
                exact = timed(client, "/api/v1/explore", {**params, "exact": "true"}, EXACT_REPEATS)
                exact.pop("body")
                queries[name] = {"default": result, "exact": exact}
            series = client.get("/api/v1/series", params={
                "workload": "smallfile", "metric": "m0.mb_per_s"}).json()["items"][0]  # fmt: skip
            points = {"limit": SERIES_POINTS, "samples": "false", "fields": "run,p5,p95"}
            path = f"/api/v1/series/{series['id']}/points"
            timed(client, path, points, 3)
            result = timed(client, path, points, QUERY_REPEATS)
            result.pop("body")
            queries["series_points_10000"] = result
    finally:
        peak = rss.stop()
        server.terminate()
        server.wait(timeout=20)
    worst = max(v["default"]["p95_ms"] for k, v in queries.items() if k.startswith("explore"))
    report["queries_computed"] = {
        "why": "the run's own query phase was served kept answers (explore/answers.py); "
        "re-timed with PERFATLAS_EXPLORE_CACHE_MB=0 on the same database by requery_server.py",
        "load_average": os.getloadavg(), "api_peak_rss_mb": round(peak / 2**20, 1),
        "cases": queries,
        "figures": {
            "explore_p95_ms": round(worst, 1),
            "explore_exact_p95_ms": round(max(
                v["exact"]["p95_ms"] for k, v in queries.items() if k.startswith("explore")), 1),
            "series_points_10000_p95_ms": round(queries["series_points_10000"]["p95_ms"], 1),
        },
    }  # fmt: skip
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["queries_computed"]["figures"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
