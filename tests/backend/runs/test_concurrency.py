"""Concurrent uploads of the same runs against a real server process: stored exactly once."""

from __future__ import annotations

import random
import threading
import uuid

import httpx
from sqlalchemy import create_engine, text

from tests.backend.runs.racing import upload_at_once
from tests.factories import run_body


def test_parallel_retries_store_each_run_once(live_server) -> None:
    runs = [run_body(agent="concurrency-host") for _ in range(50)]
    headers = {"Authorization": f"Bearer {live_server.upload_token}"}
    statuses: list[int] = []
    created: list[int] = []
    barrier = threading.Barrier(6)

    def upload() -> None:
        with httpx.Client(base_url=live_server.url, headers=headers, timeout=60) as client:
            barrier.wait()
            response = client.post("/api/v1/runs/batch", json={"runs": runs})
            statuses.append(response.status_code)
            if response.status_code == 200:
                created.append(response.json()["created"])

    threads = [threading.Thread(target=upload) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200] * 6
    assert sum(created) == 50  # every run created by exactly one of the six requests
    read = {"Authorization": f"Bearer {live_server.read_token}"}
    listed = httpx.get(
        f"{live_server.url}/api/v1/runs",
        params={"agent": "concurrency-host", "limit": 500},
        headers=read,
    ).json()
    assert sorted(item["uuid"] for item in listed["items"]) == sorted(r["uuid"] for r in runs)


def test_a_crowd_of_requests_is_answered_not_stalled(live_server) -> None:
    """150 readers at once: more than the threads (40) and the connections (20) of the server.
    Unbounded, every connection ended up held by a request waiting for a thread and every
    thread waiting for a connection, and the server answered 500s after the pool's timeout;
    admission (api/admission.py) keeps the crowd waiting in the event loop instead."""
    import asyncio

    headers = {"Authorization": f"Bearer {live_server.read_token}"}

    async def crowd() -> list[int | str]:
        limits = httpx.Limits(max_connections=150, max_keepalive_connections=150)
        async with httpx.AsyncClient(base_url=live_server.url, headers=headers, timeout=120,
                                     limits=limits) as client:  # fmt: skip

            async def one(i: int) -> int | str:
                try:
                    response = await client.get("/api/v1/runs", params={"limit": 1 + i % 5})
                except httpx.HTTPError as exc:
                    return type(exc).__name__
                return response.status_code

            return await asyncio.gather(*(one(i) for i in range(150)))

    answers = asyncio.run(crowd())
    assert answers == [200] * 150, {a: answers.count(a) for a in set(answers)}


def test_concurrent_uploads_keep_every_result_tied_to_its_run_and_series(live_server) -> None:
    """results and runs carry no foreign keys (runs/models.py): ingest alone ties a result to
    its run and series, and a run to its agent and environment. Eight uploaders race on new
    series, agents and environments (each batch holds configurations none has stored yet,
    shared with the other batches), retries of each other's runs, and a batch that conflicts
    and is rolled back; afterwards every result's run and series exist, the series is the one
    its run's configuration and its metric name, and every run's agent and environment are
    the ones its body named."""
    rng = random.Random(7)
    environments = [
        {**run_body()["environment"], "fs_type": fs, "hostname": f"tie-{fs}"}
        for fs in ("ext4", "xfs", "btrfs")
    ]
    configs = [
        {"agent": f"tie-host-{a}", "parameters": {"nfiles": n, "threads": t},
         "environment": environments[(a + t) % 3] if n == 10 else {}}
        for a in range(3) for n in (10, 100) for t in (1, 4)
    ]  # fmt: skip
    batches = [
        [run_body(workload=rng.choice(["smallfile", "treeops"]), **rng.choice(configs))
         for _ in range(12)]
        for _ in range(8)
    ]  # fmt: skip
    # Each uploader also sends its neighbour's batch again (retries racing the first upload).
    sends = [batch + batches[(i + 1) % 8][:4] for i, batch in enumerate(batches)]
    # And one batch conflicts (a stored uuid with another body): all of it is refused.
    headers = {"Authorization": f"Bearer {live_server.upload_token}"}
    first = run_body(**configs[0])
    httpx.post(
        f"{live_server.url}/api/v1/runs/batch", json={"runs": [first]}, headers=headers
    ).raise_for_status()
    refused = run_body(**configs[1])
    sends.append([refused, dict(first, target="/elsewhere")])
    statuses = upload_at_once(live_server, sends)
    assert sorted(statuses) == [200] * 8 + [409]

    engine = create_engine(live_server.database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT r.run_uuid, r.metric, r.workload, r.agent_id, ru.uuid, s.id, s.workload,"
                " s.metric, s.agent_id, s.parameters, ru.parameters, ru.agent_id"
                " FROM results r LEFT JOIN runs ru ON ru.id = r.run_id"
                " LEFT JOIN series s ON s.id = r.series_id"
            )).all()  # fmt: skip
            run_ties = {row[0]: row[1:] for row in conn.execute(text(
                "SELECT ru.uuid, a.name, ru.environment_id, e.data FROM runs ru"
                " LEFT JOIN agents a ON a.id = ru.agent_id"
                " LEFT JOIN environments e ON e.id = ru.environment_id"
                " WHERE a.name LIKE 'tie-host-%' OR a.id IS NULL"
            ))}  # fmt: skip
    finally:
        engine.dispose()
    sent = {uuid.UUID(r["uuid"]): r for r in [first, *(r for batch in batches for r in batch)]}
    assert set(run_ties) == set(sent)  # the refused batch's new run is not among them
    for run_uuid, (agent, environment_id, environment) in run_ties.items():
        body = sent[run_uuid]
        assert agent == body["agent"], "a run whose agent does not exist, or another one"
        if body["environment"]:
            assert environment == body["environment"], "a run's environment is not its body's"
        else:
            assert environment_id is None
    assert {e["fs_type"] for e in (r["environment"] for r in sent.values()) if e} == {
        "ext4", "xfs", "btrfs"
    }  # fmt: skip
    # This test's results (the server is shared with the other tests of the module).
    rows = [row for row in rows if row[0] in sent or row[0] == uuid.UUID(refused["uuid"])]
    assert len(rows) == sum(len(r["results"]) for r in sent.values())
    for (run_uuid, metric, workload, agent_id, joined_uuid, series_id, s_workload, s_metric,
         s_agent, s_params, run_params, run_agent) in rows:  # fmt: skip
        assert joined_uuid == run_uuid, "a result whose run does not exist"
        assert series_id is not None, "a result whose series does not exist"
        assert (s_workload, s_metric, s_agent, s_params) == (
            workload,
            metric,
            run_agent,
            run_params,
        )
        assert agent_id == run_agent
        body = sent[run_uuid]
        assert (workload, run_params) == (body["workload"], body["parameters"])
        assert metric in {r["metric"] for r in body["results"]}


def test_a_session_left_in_a_transaction_closes_without_waiting_for_the_shared_threads(
    engine,
) -> None:
    """A request whose session still holds a transaction (a read's) closes it in a thread of its
    own (api/deps.get_session). Waiting for one of the shared worker threads instead, it could
    wait for ever while holding its connection: the write guard's token lookups, outside
    api.admission's bound, may hold every shared thread while they wait for a connection. Here
    the shared threads are one, and taken."""
    import anyio

    from perfatlas.api.deps import get_session
    from perfatlas.core.db import session_factory

    state = type("State", (), {"session_factory": session_factory(engine)})
    request = type("Request", (), {"app": type("App", (), {"state": state})})
    taken = threading.Event()
    release = threading.Event()

    def hold_the_shared_thread() -> None:
        taken.set()
        release.wait(30)

    async def main() -> bool:
        anyio.to_thread.current_default_thread_limiter().total_tokens = 1
        sessions = get_session(request)  # type: ignore[arg-type]
        session = await sessions.__anext__()
        await anyio.to_thread.run_sync(session.execute, text("SELECT 1"))
        assert session.in_transaction()
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(anyio.to_thread.run_sync, hold_the_shared_thread)
                while not taken.is_set():
                    await anyio.sleep(0.01)
                group.start_soon(sessions.aclose)
                # Closed while the shared thread is still taken (10 s stands for "never").
                with anyio.move_on_after(10):
                    while session.in_transaction():
                        await anyio.sleep(0.01)
                closed_meanwhile = not session.in_transaction()
                release.set()
        finally:
            release.set()
        return closed_meanwhile

    assert anyio.run(main)
    assert engine.pool.checkedout() == 0
