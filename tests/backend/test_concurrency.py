"""Concurrent uploads of the same runs against a real server process: stored exactly once."""

from __future__ import annotations

import threading

import httpx

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
