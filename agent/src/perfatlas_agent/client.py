"""Upload client: batches from the spool, retries with backoff to a deadline, never duplicates."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from perfatlas_agent import __version__
from perfatlas_agent._exceptions import UploadError
from perfatlas_agent.spool import Spool

BATCH_SIZE = 50
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class RetryExhausted(UploadError):
    pass


class TokenRejected(UploadError):
    pass


@dataclass
class UploadReport:
    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    remaining: int = 0
    error: str | None = None

    @property
    def delivered(self) -> int:
        return len(self.created) + len(self.existing)


def describe_error(response: httpx.Response) -> str:
    """The server's message (`detail` and per-field errors) or the raw body."""
    try:
        body = response.json()
    except (json.JSONDecodeError, ValueError):
        return f"HTTP {response.status_code}: {response.text[:500]}"
    if isinstance(body, dict):
        parts = [str(body.get("detail", ""))] if body.get("detail") else []
        for err in body.get("errors") or []:
            if isinstance(err, dict):
                parts.append(f"{err.get('field')}: {err.get('message')}")
        if parts:
            return f"HTTP {response.status_code}: " + "; ".join(parts)
    return f"HTTP {response.status_code}: {str(body)[:500]}"


class Client:
    def __init__(
        self,
        server: str,
        token: str | None,
        *,
        deadline_s: float = 60.0,
        timeout_s: float = 30.0,
        on_retry: Callable[[str, float], None] | None = None,
    ) -> None:
        headers = {"User-Agent": f"perfatlas-agent/{__version__}"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.server = server.rstrip("/")
        self.deadline_s = deadline_s
        self.on_retry = on_retry
        self._http = httpx.Client(base_url=self.server, headers=headers, timeout=timeout_s)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        """POST with exponential backoff on connection errors, 429 and 5xx, up to the deadline."""
        content = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        give_up = time.monotonic() + self.deadline_s
        delay = 0.25
        while True:
            problem: str
            try:
                response = self._http.post(path, content=content, headers=headers)
                if response.status_code not in RETRY_STATUSES:
                    return response
                problem = describe_error(response)
            except httpx.TransportError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            left = give_up - time.monotonic()
            if left <= 0:
                raise RetryExhausted(
                    f"server {self.server} still failing after {self.deadline_s:.0f}s ({problem})"
                )
            wait = min(delay, left, 30.0)
            if self.on_retry:
                self.on_retry(problem, wait)
            time.sleep(wait)
            delay *= 2


def _check_auth(response: httpx.Response) -> None:
    if response.status_code in (401, 403):
        raise TokenRejected(
            f"the server refused the token ({describe_error(response)}); set --token or "
            "PERFATLAS_TOKEN to an upload token. The runs stay in the spool."
        )


def flush(
    spool: Spool,
    client: Client,
    *,
    on_message: Callable[[str], None] = lambda _m: None,
    batch_size: int = BATCH_SIZE,
) -> UploadReport:
    """Send every spooled run; a run leaves the spool only once the server acknowledged it."""
    report = UploadReport()
    paths = spool.pending()
    try:
        for i in range(0, len(paths), batch_size):
            chunk: list[tuple[str, dict[str, Any]]] = []
            for path in paths[i : i + batch_size]:
                try:
                    run = spool.load(path)
                except FileNotFoundError:  # another agent process delivered it just now
                    continue
                except (OSError, ValueError) as exc:
                    report.rejected.append((path.stem, f"unreadable spool file: {exc}"))
                    spool.reject(path.stem, f"unreadable spool file: {exc}")
                    continue
                chunk.append((str(run.get("uuid", path.stem)), run))
            if chunk:
                _send_chunk(spool, client, chunk, report, on_message)
    except UploadError as exc:
        report.error = str(exc)
    report.remaining = len(spool.pending())
    return report


def _send_chunk(
    spool: Spool,
    client: Client,
    chunk: list[tuple[str, dict[str, Any]]],
    report: UploadReport,
    on_message: Callable[[str], None],
) -> None:
    response = client.post("/api/v1/runs/batch", {"runs": [run for _, run in chunk]})
    _check_auth(response)
    if response.status_code == 200:
        _acknowledge(spool, response.json(), {u for u, _ in chunk}, report)
        return
    if response.status_code in (409, 413, 422):
        # One bad run refuses the whole batch: send one by one to find it and keep the rest.
        for run_uuid, run in chunk:
            _send_one(spool, client, run_uuid, run, report, on_message)
        return
    raise UploadError(f"unexpected answer to a batch upload: {describe_error(response)}")


def _acknowledge(spool: Spool, body: Any, sent: set[str], report: UploadReport) -> None:
    items = body.get("runs", []) if isinstance(body, dict) else []
    for item in items:
        run_uuid = str(item.get("uuid"))
        if run_uuid not in sent:
            continue
        spool.remove(run_uuid)
        (report.created if item.get("created") else report.existing).append(run_uuid)


def _send_one(
    spool: Spool,
    client: Client,
    run_uuid: str,
    run: dict[str, Any],
    report: UploadReport,
    on_message: Callable[[str], None],
) -> None:
    response = client.post("/api/v1/runs", run)
    _check_auth(response)
    if response.status_code in (200, 201):
        spool.remove(run_uuid)
        (report.created if response.status_code == 201 else report.existing).append(run_uuid)
        return
    if response.status_code in (409, 413, 422):
        reason = describe_error(response)
        if response.status_code == 409:
            reason += " (a run with this uuid but a different body is already stored: an agent bug)"
        path = spool.reject(run_uuid, reason)
        report.rejected.append((run_uuid, reason))
        on_message(f"REJECTED run {run_uuid}: {reason}; kept in {path}")
        return
    raise UploadError(f"unexpected answer to an upload: {describe_error(response)}")
