"""Explore's answers to 13 requests over perfatlas_bench, written to a folder, to compare the JSON
of two trees byte for byte (a change meant to be faster must not change an answer): the six
EXPLORE_CASES, x = time, a time filter, split=none, pool=, group=metric, exact=true and a
sketched plot.

Usage, from tests/bench: PYTHONPATH=TREE/backend:. python explore_same.py OUT_DIR (once per
tree), then `cmp` the files of the two folders; prints each answer's size and hash."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

from common import EXPLORE_CASES, PG

REQUESTS: dict[str, dict[str, Any]] = {
    name: {"workload": p["workload"], "metric": p["metric"], "x": p["x"], "group": p.get("group"),
           "filters": [p["filter"]] if "filter" in p else []}
    for name, p in EXPLORE_CASES.items()
} | {
    "time": {"workload": "seqio", "metric": "m3.mb_per_s", "x": "time", "group": "agent",
             "filters": ["version:trunk"]},
    "time_filter": {"workload": "partialread", "metric": "m0.mb_per_s", "x": "k",
                    "group": "version", "filters": ["time:2025-01-06..2025-01-12"]},
    "split_none": {"workload": "partialread", "metric": "m2.mb_per_s", "x": "fs_type",
                   "group": "agent", "split": ["none"]},
    "pool": {"workload": "treeops", "metric": "m1.mb_per_s", "x": "k", "group": "agent",
             "pool": ["param.segsize"]},
    "metric": {"workload": "extract", "metric": ["m4.mb_per_s", "m5.mb_per_s"], "x": "segsize",
               "group": "metric"},
    "exact": {"workload": "partialread", "metric": "m2.mb_per_s", "x": "fs_type",
              "group": "agent", "exact": True},
    "sketched": {"workload": "treeops", "metric": "m1.mb_per_s", "x": "k", "group": "agent",
                 "exact_results": 1000},
}  # fmt: skip


def main() -> None:
    from perfatlas.core.db import get_engine, session_factory
    from perfatlas.explore import service

    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    factory = session_factory(get_engine(f"{PG}/perfatlas_bench"))
    with factory() as session:
        for name, asked in REQUESTS.items():
            body = service.explore(session, **asked).model_dump_json(by_alias=True).encode()
            (out / f"{name}.json").write_bytes(body)
            print(f"{name:36s} {len(body):9d} B {hashlib.sha1(body).hexdigest()[:12]}")


if __name__ == "__main__":
    main()
