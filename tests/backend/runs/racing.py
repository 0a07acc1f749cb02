"""Batches posted to a live server at once, each from its own thread and client."""

from __future__ import annotations

import threading
from typing import Any

import httpx

from tests.conftest import LiveServer


def upload_at_once(live_server: LiveServer, sends: list[list[dict[str, Any]]]) -> list[int]:
    """Posts each batch of runs to `/runs/batch` together (a barrier releases them); the
    statuses, in the order the answers came."""
    headers = {"Authorization": f"Bearer {live_server.upload_token}"}
    statuses: list[int] = []
    barrier = threading.Barrier(len(sends))

    def upload(runs: list[dict[str, Any]]) -> None:
        with httpx.Client(base_url=live_server.url, headers=headers, timeout=60) as client:
            barrier.wait()
            statuses.append(client.post("/api/v1/runs/batch", json={"runs": runs}).status_code)

    threads = [threading.Thread(target=upload, args=(runs,)) for runs in sends]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses
