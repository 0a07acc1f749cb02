"""Runs for the rollups tests, and what explore must answer about them (the explore oracle's
plain computation, tests/backend/explore/oracle.py)."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from typing import Any

import numpy as np

from tests.backend.explore import oracle
from tests.factories import BASE_TIME, result, run_body

METRIC = "create.ops_per_s"
WORKLOAD = "smallfile"
DIMS = ("agent", "threads", "version")


def bodies(count: int, *, seed: int, start: int = 0, agents: tuple[str, ...] = ("host-a", "host-b"),
           threads: tuple[int, ...] = (1, 8), metric: str = METRIC) -> list[dict[str, Any]]:  # fmt: skip
    """Long histories of few configurations: 2 agents x 2 thread counts are 4 series per metric,
    2 versions make 2 variants of each (environments follow the agent); 1 to 5 repetitions."""
    rng = random.Random(seed)
    made = []
    for i in range(start, start + count):
        agent = rng.choice(agents)
        reps = rng.choice((1, 2, 3, 4, 5))
        samples = [round(1000 * (1 + 0.3 * rng.random()), 3) for _ in range(reps)]
        body = run_body(
            uuid=str(uuid.UUID(int=rng.getrandbits(128), version=4)), agent=agent,
            started_at=(BASE_TIME + dt.timedelta(minutes=i, seconds=rng.randrange(60))).isoformat(),
            parameters={"nfiles": 1000, "size": "30B", "threads": rng.choice(threads)},
            labels={"version": rng.choice(("1.0", "2.0")), "mode": "connected"},
            results=[result(metric, samples), result("delete.ops_per_s", [5.0, 6.0, 7.0])],
        )  # fmt: skip
        body["environment"]["hostname"] = agent
        made.append(body)
    return made


def runs_of(bodies: list[dict[str, Any]], metric: str = METRIC) -> list[oracle.Run]:
    """The oracle's view of the bodies (each uuid once)."""
    seen: dict[str, oracle.Run] = {}
    for body in bodies:
        (res,) = [r for r in body["results"] if r["metric"] == metric]
        samples = res["samples"]
        seen[body["uuid"]] = oracle.Run(
            uuid=body["uuid"], started_at=dt.datetime.fromisoformat(body["started_at"]),
            samples=samples, value=float(np.median(samples)),
            flags={"few_repetitions"} if len(samples) < 3 else set(),
            series_id=0,
            dims={"agent": body["agent"], "threads": str(body["parameters"]["threads"]),
                  "version": body["labels"]["version"]},
        )  # fmt: skip
    return list(seen.values())


def check(data: dict[str, Any], runs: list[oracle.Run], *, x: str, group: str | None,
          what: str, sketched: bool = False) -> None:  # fmt: skip
    from tests.backend.explore.test_oracle import _check

    assert data["traces"], f"{what}: no points"
    want = oracle.expected(runs, x=x, group=group, filters={}, tentative=set())
    _check(data, want, what, sketched=sketched)


def check_all(explore: Any, runs: list[oracle.Run], what: str, sketches: Any = None) -> None:
    """Every pair of the dimensions as x and group, and each alone; `sketches`, an explore that
    answers from the digests (exact_results=0), the same against the sketches' bound."""
    for x in DIMS:
        for group in (None, *[d for d in DIMS if d != x]):
            where = f"{what}: {x}/{group}"
            check(explore(x=x, group=group), runs, x=x, group=group, what=where)
            if sketches is not None:
                data = sketches(x=x, group=group)
                check(data, runs, x=x, group=group, what=f"{where}, sketched", sketched=True)
