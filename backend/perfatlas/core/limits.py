"""Request bodies: refused over the size limit (413) before anything reads them whole, and
large ones let in a budget of bytes at a time (503 with Retry-After past a wait)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from perfatlas.core import memory
from perfatlas.core.errors import error_body


class BodySizeLimit:
    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        received = 0
        too_large = False
        response_started = False

        async def limited_receive() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    too_large = True
                    raise _TooLarge
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal response_started
            if too_large:
                # The app answered a body it could not read whole (FastAPI says 400): the
                # client must hear why instead.
                if not response_started:
                    response_started = True
                    await self._refuse(send)
                return
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            # The app may let our exception (or its own wrapper of it) escape.
            if not too_large:
                raise
            if not response_started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        await send_error(
            send, 413, "payload_too_large",
            f"the request body is larger than the limit of {self.max_bytes} bytes "
            "(PERFATLAS_MAX_BODY_BYTES); split the upload into smaller batches",
        )  # fmt: skip


async def send_error(
    send: Send, status: int, code: str, message: str, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """An error answer in the API's one shape, sent from a middleware (before any route)."""
    payload = orjson.dumps(error_body(code, message))
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


class _TooLarge(Exception):
    pass


# Bodies smaller than this never wait: a budget is for the uploads that fill memory.
SMALL_BODY = 64 * 1024


class BodyBudget:
    """At most `budget` bytes of request bodies (as declared, or the budget itself when
    undeclared) inside this process at once, from before the body is read until the answer is
    sent: the parse of a large batch holds several times its size, and twenty at once took the
    API past 2 GB. A large upload past the budget waits its turn (in arrival order) up to
    `wait_seconds`, then gets 503 with Retry-After; nothing of it was read. Small bodies pass."""

    def __init__(self, app: ASGIApp, *, budget: int, wait_seconds: float) -> None:
        self.app = app
        self.budget = budget
        self.wait_seconds = wait_seconds
        self.used = 0
        self._waiting: deque[tuple[int, asyncio.Future[None]]] = deque()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.budget <= 0 or scope["method"] not in _WRITES:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        size = int(declared) if declared is not None and declared.isdigit() else self.budget
        if size < SMALL_BODY:
            await self.app(scope, receive, send)
            return
        size = min(size, self.budget)
        if not await self._acquire(size):
            await _busy(send, self.wait_seconds)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self._release(size)
            memory.release_after(size)

    async def _acquire(self, size: int) -> bool:
        if not self._waiting and self.used + size <= self.budget:
            self.used += size
            return True
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (size, turn)
        self._waiting.append(entry)
        try:
            await asyncio.wait_for(asyncio.shield(turn), self.wait_seconds)
            return True
        except TimeoutError:
            if turn.done():  # granted as the wait ran out: it is ours
                return True
            self._waiting.remove(entry)
            self._wake()  # a large one giving up may let smaller ones behind it in
            return False
        except BaseException:  # the client went away while it waited
            if turn.done():
                self._release(size)
            else:
                self._waiting.remove(entry)
                self._wake()
            raise

    def _release(self, size: int) -> None:
        self.used -= size
        self._wake()

    def _wake(self) -> None:
        while self._waiting and self.used + self._waiting[0][0] <= self.budget:
            size, turn = self._waiting.popleft()
            self.used += size
            turn.set_result(None)


_WRITES = frozenset({"POST", "PUT", "PATCH"})


async def _busy(send: Send, waited: float) -> None:
    await send_error(
        send, 503, "busy",
        f"the server is storing other large uploads and this one waited {waited:g} s for its "
        "turn; nothing was read: send it again after Retry-After",
        [(b"retry-after", str(BUSY_RETRY_AFTER_SECONDS).encode())],
    )  # fmt: skip


BUSY_RETRY_AFTER_SECONDS = 5
