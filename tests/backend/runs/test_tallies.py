"""The agents' run counts and the catalog, kept by ingest (runs/tallies.py), against a plain
count over the runs table and over the bodies sent: exact under concurrent uploads of the same
agents, workloads and new values, retries racing their originals, and a refused batch."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from perfatlas.core.natural import natural_key, natural_sorted
from perfatlas.explore.catalog import MAX_VALUES
from tests.backend.runs.racing import upload_at_once
from tests.factories import run_body


def _sorted(values: set[Any]) -> list[Any]:
    """The catalog's order for these values: natural (core/natural.py, tested on its own in
    tests/backend/core/test_natural.py), which also orders a key whose values are of mixed kinds, as
    other tests of the session's server store (smallfile's fsync: false and "file"): words before
    flags. The catalog lists at most MAX_VALUES of a key (the session's server has runs with 1,300
    values of k, from the spool tests)."""
    return natural_sorted(values)[:MAX_VALUES]


def _catalog_of(runs: list[tuple[str, dict[str, Any], dict[str, str]]]) -> dict[str, Any]:
    """workload -> (runs, parameters, labels), as the catalog lists them, from the runs."""
    count: Counter[str] = Counter()
    parameters: dict[str, dict[str, set[Any]]] = defaultdict(lambda: defaultdict(set))
    labels: dict[str, dict[str, set[Any]]] = defaultdict(lambda: defaultdict(set))
    for workload, params, labs in runs:
        count[workload] += 1
        for key, value in params.items():
            parameters[workload][key].add(value)
        for key, value in labs.items():
            labels[workload][key].add(value)
    return {
        w: (n, {k: _sorted(v) for k, v in parameters[w].items()},
            {k: _sorted(v) for k, v in labels[w].items()})
        for w, n in count.items()
    }  # fmt: skip


def test_counts_and_values_match_the_runs_under_concurrent_uploads(live_server) -> None:
    rng = random.Random(11)
    agents = [f"tally-host-{i}" for i in range(4)]
    # Values of every kind the catalog sorts (numbers, text, flags), new to every uploader at
    # once, and version labels that differ from run to run.
    configs = [
        {"parameters": {"nfiles": n, "size": s, "fsync": f, "ratio": r},
         "labels": {"fs_version": f"6.{v}", "tally_mode": m}}
        for n in (10, 1000) for s in ("4KiB", "1MiB") for f in (False, True)
        for r in (0.25, 1.5) for v in (1, 2, 3) for m in ("a", "b")
    ]  # fmt: skip
    batches = [
        [run_body(agent=rng.choice(agents), workload=rng.choice(["tally-small", "tally-tree"]),
                  **rng.choice(configs)) for _ in range(rng.randint(1, 15))]
        for _ in range(12)
    ]  # fmt: skip
    # Each uploader sends its neighbour's first runs too: retries racing their first upload.
    sends = [batch + batches[(i + 1) % len(batches)][:3] for i, batch in enumerate(batches)]
    headers = {"Authorization": f"Bearer {live_server.upload_token}"}
    first = run_body(agent=agents[0], workload="tally-small", **configs[0])
    httpx.post(
        f"{live_server.url}/api/v1/runs/batch", json={"runs": [first]}, headers=headers
    ).raise_for_status()
    # A batch that is refused whole (a stored uuid with another body): nothing of it counts,
    # not even its new run's new workload and values.
    refused = run_body(agent="tally-refused", workload="tally-refused",
                       parameters={"never": 1}, labels={"never": "x"})  # fmt: skip
    sends.append([refused, dict(first, target="/elsewhere")])
    statuses = upload_at_once(live_server, sends)
    assert sorted(statuses) == [200] * len(batches) + [409]

    read = {"Authorization": f"Bearer {live_server.read_token}"}
    listed = {a["name"]: a["runs"] for a in
              httpx.get(f"{live_server.url}/api/v1/agents", headers=read).json()}  # fmt: skip
    workloads = httpx.get(f"{live_server.url}/api/v1/catalog", headers=read).json()["workloads"]
    catalog = {w["name"]: (w["runs"], w["parameters"], w["labels"]) for w in workloads}
    agents_of = {w["name"]: w["agents"] for w in workloads}

    # The bodies sent, each run once: what this test stored.
    stored = {r["uuid"]: r for r in [first, *(r for batch in batches for r in batch)]}
    by_agent = Counter(r["agent"] for r in stored.values())
    assert {a: listed[a] for a in agents} == dict(by_agent)
    assert "tally-refused" not in listed and "tally-refused" not in catalog
    mine = _catalog_of([(r["workload"], r["parameters"], r["labels"]) for r in stored.values()])
    assert {w: catalog[w] for w in mine} == mine
    # Each workload's agents: those that stored a run of it (the random choice leaves some out
    # of one workload or the other, or not: the oracle says which).
    by_workload: dict[str, set[str]] = defaultdict(set)
    for r in stored.values():
        by_workload[r["workload"]].add(r["agent"])
    assert {w: agents_of[w] for w in by_workload} == {
        w: sorted(names, key=natural_key) for w, names in by_workload.items()
    }

    # And the whole server's (other tests of the session share it): the runs table counted.
    engine = create_engine(live_server.database_url)
    try:
        with engine.connect() as conn:
            runs = conn.execute(text(
                "SELECT a.name, r.workload, r.parameters, r.labels FROM runs r"
                " JOIN agents a ON a.id = r.agent_id"
            )).all()  # fmt: skip
    finally:
        engine.dispose()
    count = Counter(row[0] for row in runs)
    assert set(count) <= set(listed)
    assert listed == {name: count.get(name, 0) for name in listed}
    assert catalog == _catalog_of([(w, p, lab) for _, w, p, lab in runs])
    every: dict[str, set[str]] = defaultdict(set)
    for name, w, _, _ in runs:
        every[w].add(name)
    assert agents_of == {w: sorted(names, key=natural_key) for w, names in every.items()}
