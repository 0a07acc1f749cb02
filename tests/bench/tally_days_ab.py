"""The cost to an upload of keeping the days of its values (runs/value_days.py), which rides in
the statement that keeps the run counts and the catalog's values (runs/tallies.py count_runs):
that statement and its Python before the change (the tallies module of another checkout) and
after, alternated on one connection to the bench database, each in a transaction rolled back,
for uploads of 10, 100 and 1,000 of the server bench's runs.

    .venv/bin/python tests/bench/tally_days_ab.py /tmp/base/backend [rounds]"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from common import SEED, admin_dsn, make_runs
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

from perfatlas.core.measurement import RunCreate
from perfatlas.runs import tallies

DB = os.environ.get("BENCH_DB", "perfatlas_bench")
OUT = Path(os.environ.get("BENCH_OUT") or Path(__file__).parent / "results" / "tally-days-ab.json")


def _old_tallies(backend: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        "old_tallies", Path(backend) / "perfatlas" / "runs" / "tallies.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Capture:
    """A session whose connection keeps the statement's parameters instead of running it."""

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}
        self.dialect = type("Dialect", (), {"name": "postgresql"})

    def connection(self) -> _Capture:
        return self

    def execute(self, _: Any, params: dict[str, Any]) -> None:
        self.params = params


def main() -> int:
    old = _old_tallies(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    engine = create_engine(admin_dsn(DB).replace("postgresql://", "postgresql+psycopg://", 1))
    rng = random.Random(SEED)
    with Session(engine) as session:
        agents = dict(session.execute(text("SELECT name, id FROM agents")).all())
    report: dict[str, Any] = {
        "benchmark": "tally_days_ab",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "load_1m": os.getloadavg()[0],
        "what": "count_runs's statement and Python, before (old) and with the days (new), "
        "alternated; medians in ms",
        "by_batch_runs": {},
    }
    for size in (10, 100, 1000):
        runs = [RunCreate.model_validate(r) for r in make_runs(size, start=60_000, rng=rng)]
        agent_ids = {r.agent: agents.get(r.agent, 1) for r in runs}
        python: dict[str, list[float]] = {"old": [], "new": []}
        statement: dict[str, list[float]] = {"old": [], "new": []}
        for _ in range(rounds):
            for name, module in (("old", old), ("new", tallies)):
                capture = _Capture()
                started = time.perf_counter()
                module.count_runs(capture, runs, agent_ids)
                python[name].append((time.perf_counter() - started) * 1000)
                with Session(engine) as session:
                    session.connection()
                    started = time.perf_counter()
                    session.execute(module._PG_TALLY, capture.params)
                    statement[name].append((time.perf_counter() - started) * 1000)
                    session.rollback()
        # The first rounds prepare the statements (psycopg, at the fifth run): left out.
        skip = min(10, rounds // 2)
        report["by_batch_runs"][size] = {
            f"{part}_{name}_ms": round(statistics.median(times[name][skip:]), 3)
            for part, times in (("python", python), ("statement", statement))
            for name in ("old", "new")
        }
        print(size, report["by_batch_runs"][size], flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
