"""Explore's kept answers (explore/answers.py): served again only while the database is
unchanged, so never stale. Checked against a plain computation over the uploads, on PostgreSQL
(with a second database on the same server, whose snapshots are the same), SQLite and with the
cache off."""

from __future__ import annotations

import datetime as dt
import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from perfatlas.alerts.models import Alert
from perfatlas.auth.service import create_token
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.explore.answers import Answers
from perfatlas.main import create_app
from perfatlas.rollups import service as rollups
from perfatlas.runs.models import Run, Series
from tests.databases import drop_database, migrate, migrated_database
from tests.factories import BASE_TIME, result, run_body

METRIC = "read.mb_per_s"
PARAMS = {"workload": "partialread", "metric": METRIC, "x": "fs_type", "group": "agent"}


def bodies(offset: float = 0.0) -> list[dict[str, Any]]:
    """Three agents, two filesystems, two versions; every run's repetitions equal (its value)."""
    env = run_body()["environment"]
    runs = []
    for i, (agent, fs, version) in enumerate(
        (a, f, v) for a in ("lab-1", "lab-2", "lab-3") for f in ("ext4", "xfs")
        for v in ("1.0", "2.0")
    ):  # fmt: skip
        value = offset + 100.0 + 7 * i
        runs.append(run_body(
            workload="partialread", agent=agent, target=f"/mnt/{fs}",
            labels={"version": version}, environment={**env, "hostname": agent, "fs_type": fs},
            started_at=(BASE_TIME + dt.timedelta(minutes=i)).isoformat(),
            results=[result(METRIC, [value] * 3, unit="MB/s")],
        ))  # fmt: skip
    return runs


def oracle(runs: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, float]]:
    """{(agent, fs type): (results, median of their values)}."""
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for run in runs:
        cells[(run["agent"], run["environment"]["fs_type"])].append(run["results"][0]["samples"][0])
    return {key: (len(v), statistics.median(v)) for key, v in cells.items()}


def points(body: dict[str, Any]) -> dict[tuple[str, str], tuple[int, float]]:
    return {
        (trace["group"], p["x"]): (p["n"], p["median"])
        for trace in body["traces"]
        for p in trace["points"]
    }


def explore(client: TestClient, headers: dict[str, str]) -> tuple[bytes, str]:
    response = client.get("/api/v1/explore", params=PARAMS, headers=headers)
    assert response.status_code == 200, response.text
    return response.content, response.headers["x-explore-cache"]


def test_kept_answers_are_never_stale(client, engine, upload_headers, read_headers) -> None:
    runs = bodies()
    assert client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers).is_success
    first, outcome = explore(client, read_headers)
    assert outcome == "miss" and points(_json(first)) == oracle(runs)
    assert served_again(client, read_headers, first)

    # A new run on one point: the next answer has it.
    extra = run_body(
        workload="partialread", agent="lab-1", target="/mnt/ext4", labels={"version": "2.0"},
        environment={**runs[0]["environment"]}, results=[result(METRIC, [1e6] * 3, unit="MB/s")],
    )  # fmt: skip
    assert client.post(
        "/api/v1/runs/batch", json={"runs": [extra]}, headers=upload_headers
    ).is_success
    body, outcome = explore(client, read_headers)
    assert outcome == "miss" and points(_json(body)) == oracle([*runs, extra])
    assert (
        points(_json(body))[("lab-1", "ext4")][0] == points(_json(first))[("lab-1", "ext4")][0] + 1
    )

    # The fold moves the runs into the rollups: a new state, the same numbers.
    with session_factory(engine)() as session:
        assert rollups.fold_pending(session).runs == len(runs) + 1
    folded, outcome = explore(client, read_headers)
    assert outcome == "miss" and points(_json(folded)) == oracle([*runs, extra])
    assert served_again(client, read_headers, folded)

    # A write that touches no result: a tentative alert flags the points of its series.
    with session_factory(engine)() as session:
        series_id = session.scalar(select(Series.id).where(Series.agent.has(name="lab-2")).limit(1))
        run_id = session.scalar(select(Run.id).limit(1))
        session.add(Alert(
            series_id=series_id, change_run_id=run_id, change_at=BASE_TIME, kind="regression",
            before=1.0, after=0.8, change_pct=-20.0, confidence=0.99, tentative=True,
            status="open",
        ))  # fmt: skip
        session.commit()
    flagged, outcome = explore(client, read_headers)
    assert outcome == "miss"
    marked = {
        (t["group"], p["x"]) for t in _json(flagged)["traces"] for p in t["points"]
        if "tentative_alert" in p["flags"]
    }  # fmt: skip
    assert marked and {agent for agent, _ in marked} == {"lab-2"}
    assert not any(
        "tentative_alert" in p["flags"] for t in _json(folded)["traces"] for p in t["points"]
    )


def test_two_databases_on_one_server_never_share_answers(
    client, settings, upload_headers, read_headers
) -> None:
    """Transaction ids are the server's: both databases can be at the same snapshot."""
    name = f"{settings.database_url.rsplit('/', 1)[1]}_answers"
    url = migrated_database(name)
    try:
        with session_factory(get_engine(url))() as session:
            token = create_token(session, name="t", scope="upload")[1]
        other_runs, runs = bodies(offset=5000.0), bodies()
        headers = {"Authorization": f"Bearer {token}"}
        other = Settings(database_url=url, public_read=False, broker_url=settings.broker_url,
                         queue=settings.queue)  # fmt: skip
        with TestClient(create_app(other)) as other_client:
            assert other_client.post("/api/v1/runs/batch", json={"runs": other_runs},
                                     headers=headers).is_success  # fmt: skip
            assert client.post("/api/v1/runs/batch", json={"runs": runs},
                               headers=upload_headers).is_success  # fmt: skip
            for _ in range(2):  # each database's own answer, kept or not
                mine, _ = explore(client, read_headers)
                theirs, _ = explore(other_client, headers)
                assert points(_json(mine)) == oracle(runs)
                assert points(_json(theirs)) == oracle(other_runs)
        get_engine(url).dispose()
    finally:
        drop_database(name)


def test_sqlite_and_a_cache_of_zero_always_compute(tmp_path: Path, settings, engine) -> None:
    for url, megabytes, outcome in (
        (f"sqlite:///{tmp_path / 'answers.db'}", 16, "off"),
        (settings.database_url, 0, "off"),
    ):
        if url.startswith("sqlite"):
            migrate(url)
        with session_factory(get_engine(url))() as session:
            token = create_token(session, name=f"t{megabytes}", scope="upload")[1]
        headers = {"Authorization": f"Bearer {token}"}
        runs = bodies()
        app = create_app(Settings(database_url=url, explore_cache_mb=megabytes,
                                  broker_url=settings.broker_url, queue=settings.queue))  # fmt: skip
        with TestClient(app) as test_client:
            assert test_client.post("/api/v1/runs/batch", json={"runs": runs},
                                    headers=headers).is_success  # fmt: skip
            for _ in range(2):
                body, got = explore(test_client, headers)
                assert got == outcome and points(_json(body)) == oracle(runs)


def test_the_cache_is_bounded_by_bytes() -> None:
    cache = Answers(max_bytes=1000)
    for i in range(10):
        cache.put(i, bytes(200))
    # The newest five fit; the oldest went first.
    assert [cache.get(i) is not None for i in range(10)] == [False] * 5 + [True] * 5
    cache.get(5)  # used: now the newest
    cache.put("new", bytes(200))
    assert cache.get(5) is not None and cache.get(6) is None
    cache.put("big", bytes(251))  # more than a quarter: never kept
    assert cache.get("big") is None


def served_again(client: TestClient, headers: dict[str, str], body: bytes) -> bool:
    """Whether the same plot is answered from the kept answer, with the same body, while the
    database does not change. The snapshot is the whole server's: a write in another test
    process's database ends the entry too, so a miss is asked again (every answer still has to
    be the same body), and the kept answer has to come within 30 tries."""
    for _ in range(30):
        again, outcome = explore(client, headers)
        assert again == body
        if outcome == "hit":
            return True
    return False


def _json(body: bytes) -> dict[str, Any]:
    return json.loads(body)
