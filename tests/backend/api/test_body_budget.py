"""Large request bodies share a budget of bytes per API process, on a real `perfatlas serve`: an
upload held open (half its body sent) holds its share, so a second large upload waits, and past
the wait gets 503 with Retry-After with nothing stored; small requests pass meanwhile; once the
first is done, uploads go through again, each stored once."""

from __future__ import annotations

import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.conftest import patient, serve
from tests.factories import result, run_body

BUDGET = 300_000


def _batch(n: int) -> dict:  # type: ignore[type-arg]
    """A batch of about n × 8 kB."""
    return {"runs": [run_body(results=[result("create.ops_per_s", [100.0 + i / 7] * 400)])
                     for i in range(n)]}  # fmt: skip


def test_large_uploads_wait_their_turn_and_the_excess_gets_503(tmp_path: Path) -> None:
    with serve(
        "budget", tmp_path, PERFATLAS_MAX_INFLIGHT_BODY_BYTES=str(BUDGET),
        PERFATLAS_UPLOAD_WAIT_SECONDS="2",
    ) as server:  # fmt: skip
        url = f"{server.url}/api/v1/runs/batch"
        headers = {"Authorization": f"Bearer {server.upload_token}"}
        held = json.dumps(_batch(30)).encode()
        assert BUDGET // 2 < len(held) <= BUDGET
        # An upload that sent its headers and half its body, and holds its share meanwhile.
        sock = socket.create_connection(("127.0.0.1", int(server.url.rsplit(":", 1)[1])))
        head = (
            f"POST /api/v1/runs/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {server.upload_token}\r\nContent-Length: {len(held)}\r\n\r\n"
        ).encode()
        sock.sendall(head + held[: len(held) // 2])
        try:
            refused = None
            second = _batch(30)
            deadline = time.monotonic() + patient(30)
            while refused is None:  # until the held upload is in (its share taken)
                answer = httpx.post(url, json=second, headers=headers, timeout=30)
                if answer.status_code == 503:
                    refused = answer
                else:
                    # It went through before the held one was let in: it is stored, send another.
                    assert answer.status_code == 200, answer.text
                    second = _batch(30)
                assert time.monotonic() < deadline, "the held upload never took its share"
            assert refused.json()["code"] == "busy" and int(refused.headers["retry-after"]) > 0
            # Small requests are not held back.
            small = httpx.post(url, json=_batch(1), headers=headers, timeout=30)
            assert small.status_code == 200, small.text
            listed = httpx.get(f"{server.url}/api/v1/runs", params={"limit": 500},
                               headers=headers).json()["items"]  # fmt: skip
            assert not {r["uuid"] for r in second["runs"]} & {r["uuid"] for r in listed}
            # The held upload completes and answers; its share is back.
            sock.sendall(held[len(held) // 2 :])
            reply = sock.recv(65536).decode(errors="replace")
            assert reply.startswith("HTTP/1.1 200"), reply[:300]
        finally:
            sock.close()

        # Three large uploads at once, in a budget that fits one: they go one at a time (a 503
        # on a busy machine is sent again, as the agent does), and every run is stored once.
        def send(body: dict) -> httpx.Response:  # type: ignore[type-arg]
            deadline = time.monotonic() + patient(60)
            while (
                answer := httpx.post(url, json=body, headers=headers, timeout=60)
            ).status_code == 503:
                assert time.monotonic() < deadline, answer.text
                time.sleep(0.2)
            return answer

        batches = [_batch(30) for _ in range(3)]
        with ThreadPoolExecutor(3) as pool:
            answers = list(pool.map(send, batches))
        assert [a.status_code for a in answers] == [200, 200, 200]
        assert all(a.json()["created"] == 30 for a in answers)
        stored = httpx.get(f"{server.url}/api/v1/runs", params={"limit": 500},
                           headers=headers).json()["items"]  # fmt: skip
        uuids = [r["uuid"] for r in stored]
        assert len(uuids) == len(set(uuids))
        assert {r["uuid"] for b in batches for r in b["runs"]} <= set(uuids)
