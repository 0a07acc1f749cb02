"""Answers compressed when the client accepts gzip: a 10,000-point series is 945 kB of JSON,
some 380 kB gzipped (its uuids are random), which a browser on a slow link waits for far longer than the server
spends compressing it (tests/bench/bench_series_page.py measures both)."""

from __future__ import annotations

import re

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

# Below this the bytes saved are fewer than a packet's and not worth the CPU.
MINIMUM_BYTES = 2048
# Level 1: a 10,000-point answer (980 kB, most of it random uuids) is 380 kB at level 1 and
# 350 kB at level 5, for a quarter of level 5's CPU (tests/bench/bench_series_page.py).
LEVEL = 1
# An attachment is sent as stored: its ETag is its content's sha256 (attachments/router.py),
# which must name the bytes sent, and its Content-Length stays the stored size.
_AS_STORED = re.compile(r"^/api/v1/runs/[^/]+/attachments/")


class Compression:
    """Starlette's GZipMiddleware (which leaves alone answers already encoded, such as the UI's
    prebuilt .gz assets, zips and partial answers) for every answer but an attachment."""

    def __init__(self, app: ASGIApp, *, minimum_size: int = MINIMUM_BYTES) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=minimum_size, compresslevel=LEVEL)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not _AS_STORED.match(scope["path"]):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)
