"""A fault-injecting HTTP proxy, put in front of the real server (`live_server`) by upload tests."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class _Base:
    """Starts a ThreadingHTTPServer on 127.0.0.1:0 in a thread; subclasses answer requests."""

    def __init__(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                owner.handle(self, "POST", body)

            def do_GET(self) -> None:
                owner.handle(self, "GET", b"")

            def do_PUT(self) -> None:  # attachments, sent after their run
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                owner.handle(self, "PUT", body)

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.lock = threading.Lock()
        self.requests: list[str] = []

    def handle(self, req: BaseHTTPRequestHandler, method: str, body: bytes) -> None:
        raise NotImplementedError  # abstract: FaultProxy decides how to answer

    @staticmethod
    def reply(req: BaseHTTPRequestHandler, status: int, data: Any) -> None:
        raw = json.dumps(data).encode()
        req.send_response(status)
        req.send_header("Content-Type", "application/json")
        req.send_header("Content-Length", str(len(raw)))
        req.end_headers()
        req.wfile.write(raw)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class FaultProxy(_Base):
    """Forwards to upstream, except: 500 for the first `fail_first` POSTs; `hang` never answers.

    hang="before" holds the request without forwarding; hang="after" forwards it (the server
    stores the run) and then never answers, as if the agent died before reading the reply.
    """

    def __init__(
        self, upstream: str, fail_first: int = 0, hang: str | None = None, fail_puts: bool = False
    ) -> None:
        super().__init__()
        self.fail_puts = fail_puts  # 500 to every PUT (attachments), as a failing server would
        self.upstream = upstream.rstrip("/")
        self.fail_first = fail_first
        self.hang = hang
        self.forwarded = 0
        self.failed = 0
        self.got_request = threading.Event()
        self.release = threading.Event()

    def handle(self, req: BaseHTTPRequestHandler, method: str, body: bytes) -> None:
        with self.lock:
            self.requests.append(f"{method} {req.path}")
            inject = method == "POST" and self.fail_first > 0
            if inject:
                self.fail_first -= 1
            if method == "PUT" and self.fail_puts:
                inject = True
            if inject:
                self.failed += 1
        if inject:
            self.reply(req, 500, {"detail": "internal error (injected by the test proxy)"})
            return
        # Hangs hit uploads of runs only, not the agent's check of the server before a run.
        hang = self.hang if method == "POST" and b'"uuid"' in body else None
        if hang == "before":
            self.got_request.set()
            self.release.wait(60)
            return
        headers = {
            k: v for k, v in req.headers.items() if k.lower() in ("authorization", "content-type")
        }
        resp = httpx.request(
            method, self.upstream + req.path, content=body or None, headers=headers, timeout=30
        )
        with self.lock:
            self.forwarded += 1
        if hang == "after":
            self.got_request.set()
            self.release.wait(60)
            return
        req.send_response(resp.status_code)
        req.send_header("Content-Type", resp.headers.get("content-type", "application/json"))
        req.send_header("Content-Length", str(len(resp.content)))
        req.end_headers()
        req.wfile.write(resp.content)

    def close(self) -> None:
        self.release.set()
        super().close()


class PoisonProxy(FaultProxy):
    """Forwards to upstream, but answers 500 to every upload that carries the run `poison`, as a
    server bug triggered by one run's content would (whether it comes alone or in a batch)."""

    def __init__(self, upstream: str, poison: str) -> None:
        super().__init__(upstream)
        self.poison = poison.encode()
        self.poisoned = 0
        self.batch_sizes: list[int] = []

    def handle(self, req: BaseHTTPRequestHandler, method: str, body: bytes) -> None:
        if method == "POST" and b'"uuid"' in body:
            with self.lock:
                self.batch_sizes.append(body.count(b'"uuid"'))
        if method == "POST" and self.poison in body:
            with self.lock:
                self.poisoned += 1
                self.requests.append(f"{method} {req.path}")
            detail = f"internal error: run {self.poison.decode()} broke the test server"
            self.reply(req, 500, {"detail": detail})
            return
        super().handle(req, method, body)


class TryLaterServer(_Base):
    """Takes uploads as the real server answers them (201 for one run, 200 and the acks for a
    batch), after answering the first `busy` uploads with 503 and Retry-After (`retry_after`
    seconds), or, with drop=True, closing the connection without an answer. Every upload's
    time, path, answer and the uuids it carried are kept in `uploads`."""

    def __init__(self, busy: int, retry_after: int | None = None, drop: bool = False) -> None:
        super().__init__()
        self.busy = busy
        self.retry_after = retry_after
        self.drop = drop
        self.uploads: list[tuple[float, str, int, list[str]]] = []
        self.stored: dict[str, int] = {}  # uuid -> times a 2xx answer carried it

    def handle(self, req: BaseHTTPRequestHandler, method: str, body: bytes) -> None:
        if method == "PUT":  # an attachment of a stored run
            self.reply(req, 201, {"name": req.path.rsplit("/", 1)[-1]})
            return
        if method != "POST":
            self.reply(req, 404, {"detail": "not found"})
            return
        data = json.loads(body)
        runs = data["runs"] if req.path.endswith("/batch") else [data]
        uuids = [str(r["uuid"]) for r in runs]
        with self.lock:
            turn_away = self.busy > 0
            if turn_away:
                self.busy -= 1
            status = 503 if turn_away else (200 if req.path.endswith("/batch") else 201)
            self.uploads.append((time.monotonic(), req.path, 0 if self.drop and turn_away
                                 else status, uuids))  # fmt: skip
            if not turn_away:
                for u in uuids:
                    self.stored[u] = self.stored.get(u, 0) + 1
        if turn_away and self.drop:
            req.close_connection = True  # no answer at all: the client sees the connection end
            return
        if turn_away:
            raw = json.dumps({"detail": "the database is unreachable"}).encode()
            req.send_response(503)
            if self.retry_after is not None:
                req.send_header("Retry-After", str(self.retry_after))
            req.send_header("Content-Type", "application/json")
            req.send_header("Content-Length", str(len(raw)))
            req.end_headers()
            req.wfile.write(raw)
            return
        if req.path.endswith("/batch"):
            self.reply(req, 200, {"runs": [{"uuid": u, "created": True} for u in uuids]})
        else:
            self.reply(req, 201, {"uuid": uuids[0], "created": True})
