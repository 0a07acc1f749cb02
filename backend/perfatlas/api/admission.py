"""Admission: a bound on the requests to plain-function routes inside the app at once.

Such a route runs in anyio's worker threads (40 by default), in hops: its dependencies (the
token's lookup in the route's session), the route, then the validation of its answer, each hop
waiting for a free thread. A request holds its session's connection from its first query to
its end, across those waits, and a thread waiting for a connection holds its token meanwhile.
Unbounded, a crowd of requests (120 readers at once were enough) ends with every connection
held by a request waiting for a thread and every thread waiting for a connection: the server
stalls until the pool's timeout and answers 500s. Admitting at most as many requests as the
pool has connections (core/db.py: 10 + 10 overflow), fewer than the threads, means an admitted
request never waits for a thread and finds a connection, while the others wait in the event
loop holding nothing. A request's body is read before it waits for admission, so that a slow
client does not hold a place. Async routes (the agents' long poll, which holds no connection
while it waits) are not bounded."""

from __future__ import annotations

import asyncio
import weakref

from starlette.types import ASGIApp, Message, Receive, Scope, Send

ADMITTED = 20


class Admission:
    """Inside api.guard, which leaves the matched route's facts in the scope's state."""

    def __init__(self, app: ASGIApp, *, limit: int = ADMITTED) -> None:
        self.app = app
        self.limit = limit
        # One semaphore per event loop (tests run an app in several loops, one after another).
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._slots = weakref.WeakKeyDictionary()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        facts = scope.get("state", {}).get("route_facts") if scope["type"] == "http" else None
        if facts is None or not facts.sync_route:
            await self.app(scope, receive, send)
            return
        # The body (BodySizeLimit bounds it) arrives before admission, gathered into one
        # buffer of its declared size that the route is handed as one message: kept as the
        # server's chunks, a large upload was twice its size once the route joined them
        # (freed chunks stay in the allocator's heap); api.deps.body_bytes takes it as it is.
        body = bytearray(_declared_size(scope))
        filled = 0
        received: list[Message] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                received.append(message)  # the client went away
                break
            chunk = message.get("body", b"")
            end = filled + len(chunk)
            if end <= len(body):
                body[filled:end] = chunk  # in place: no copy of what came before
            else:
                del body[filled:]
                body += chunk
            filled = end
            if not message.get("more_body", False):
                break
        del body[filled:]
        received.insert(0, {"type": "http.request", "body": body, "more_body": bool(received)})

        async def replay() -> Message:
            return received.pop(0) if received else await receive()

        async with self._slots_of_loop():
            await self.app(scope, replay, send)

    def _slots_of_loop(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None:
            slots = self._slots[loop] = asyncio.Semaphore(self.limit)
        return slots


def _declared_size(scope: Scope) -> int:
    """The body's Content-Length (BodySizeLimit refused one past the limit), or 0."""
    for key, value in scope.get("headers") or []:
        if key == b"content-length" and value.isdigit():
            return int(value)
    return 0
