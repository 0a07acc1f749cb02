"""Upload client: batches from the spool, retries with backoff to a deadline, never duplicates."""

from __future__ import annotations

import email.utils
import json
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from perfatlas_agent import __version__
from perfatlas_agent.errors import RetryExhausted, TokenRejected, UnreadableRun, UploadError
from perfatlas_agent.measure.attachments import media_type_of
from perfatlas_agent.send.spool import Claim, Spool

BATCH_SIZE = 50
# The server is down or busy ("try later"): retried until the deadline, whatever is sent, and
# never taken for a fault of the run; past the deadline the runs stay in the spool.
RETRY_STATUSES = frozenset({429, 502, 503, 504})
# A Retry-After longer than this is not waited for in one go (the deadline bounds it anyway).
RETRY_AFTER_MAX_S = 300.0
# Any other 5xx may be caused by what was sent (a server bug one run triggers): retried a few
# times, then the batch is split to find the run, which stays in the spool with the message.
SERVER_ERROR_ATTEMPTS = 3


@dataclass
class UploadReport:
    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    held: list[tuple[str, str]] = field(default_factory=list)
    remaining: int = 0
    attachments_sent: int = 0
    attachments_existing: int = 0
    attachments_rejected: list[tuple[str, str]] = field(default_factory=list)
    attachments_remaining: int = 0
    left_to_others: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    token_refused: bool = False

    @property
    def delivered(self) -> int:
        return len(self.created) + len(self.existing)


def retry_after(response: httpx.Response) -> float | None:
    """Seconds the server asked to wait (Retry-After: seconds or an HTTP date), if it did."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return min(max(seconds, 0.0), RETRY_AFTER_MAX_S)


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
        return self.send("POST", path, content, "application/json")

    def put(self, path: str, content: bytes, media_type: str) -> httpx.Response:
        """PUT (idempotent on the server) with the same retries as post()."""
        return self.send("PUT", path, content, media_type)

    def send(self, method: str, path: str, content: bytes, media_type: str) -> httpx.Response:
        headers = {"Content-Type": media_type}
        give_up = time.monotonic() + self.deadline_s
        delay = 0.25
        server_errors = 0
        while True:
            problem: str
            asked: float | None = None
            try:
                response = self._http.request(method, path, content=content, headers=headers)
                status = response.status_code
                if status >= 500 and status not in RETRY_STATUSES:
                    server_errors += 1
                    if server_errors >= SERVER_ERROR_ATTEMPTS:
                        return response
                elif status not in RETRY_STATUSES:
                    return response
                problem = describe_error(response)
                asked = retry_after(response)
            except (
                httpx.TransportError
            ) as exc:  # refused, reset, timed out: the server, not the run
                problem = f"{type(exc).__name__}: {exc}"
            left = give_up - time.monotonic()
            if left <= 0:
                raise RetryExhausted(
                    f"server {self.server} still failing after {self.deadline_s:.0f}s ({problem})"
                )
            wait = min(max(min(delay, 30.0), asked or 0.0), left)
            if asked is not None:
                problem += f"; the server asked to retry after {asked:.0f}s"
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
    claim: Claim | None = None,
) -> UploadReport:
    """Send every spooled run not claimed by another live agent process; a run leaves the
    spool only once the server acknowledged it. Runs the server failed on before go last,
    one at a time, so that they cannot hold back the others."""
    report = UploadReport()
    with spool.flush_lock():
        spool.clean_leftovers()
        report.left_to_others = spool.claimed_by_others(claim)
        paths = [p for p in spool.pending() if p.stem not in report.left_to_others]
        fresh = [p for p in paths if spool.error_of(p.stem) is None]
        failed_before = [p for p in paths if spool.error_of(p.stem) is not None]
        groups = [fresh[i : i + batch_size] for i in range(0, len(fresh), batch_size)]
        groups += [[p] for p in failed_before]
        try:
            for group in groups:
                chunk = _load(spool, group, report, on_message)
                if chunk:
                    _send_chunk(spool, client, chunk, report, on_message)
            _send_attachments(spool, client, report, on_message, set(report.left_to_others))
        except UploadError as exc:
            report.error = str(exc)
            report.token_refused = isinstance(exc, TokenRejected)
        report.remaining = len([p for p in spool.pending() if p.stem not in report.left_to_others])
        report.attachments_remaining = sum(
            len(spool.attachment_files(u))
            for u in spool.attachments_waiting()
            if u not in report.left_to_others
        )
    return report


def send_attachments(
    spool: Spool, client: Client, *, on_message: Callable[[str], None] = lambda _m: None,
    claim: Claim | None = None,
) -> UploadReport:  # fmt: skip
    """Only the attachments of runs the server has already (a job's completion stored them)."""
    report = UploadReport()
    with spool.flush_lock():
        others = set(spool.claimed_by_others(claim))
        try:
            _send_attachments(spool, client, report, on_message, others)
        except UploadError as exc:
            report.error = str(exc)
            report.token_refused = isinstance(exc, TokenRejected)
        report.attachments_remaining = sum(
            len(spool.attachment_files(u)) for u in spool.attachments_waiting() if u not in others
        )
    return report


def _send_attachments(
    spool: Spool,
    client: Client,
    report: UploadReport,
    on_message: Callable[[str], None],
    others: set[str],
) -> None:
    """Each waiting file of each stored run, PUT one by one: a retry of one the server has
    already is answered 200 and counts as delivered; one it refuses moves to rejected/."""
    for run_uuid in spool.attachments_waiting():
        if run_uuid in others:
            continue
        for path in spool.attachment_files(run_uuid):
            name = urllib.parse.quote(path.name, safe="")
            try:
                content = path.read_bytes()
            except FileNotFoundError:  # another agent process sent it just now
                continue
            response = client.put(
                f"/api/v1/runs/{run_uuid}/attachments/{name}", content, media_type_of(path.name)
            )
            _check_auth(response)
            if response.status_code in (200, 201):
                spool.attachment_sent(path)
                if response.status_code == 201:
                    report.attachments_sent += 1
                else:
                    report.attachments_existing += 1
            elif response.status_code in (404, 409, 413, 422):
                reason = describe_error(response)
                kept = spool.reject_attachment(path, reason)
                report.attachments_rejected.append((f"{run_uuid}/{path.name}", reason))
                on_message(
                    f"REJECTED attachment {path.name} of run {run_uuid}: {reason}; kept in {kept}"
                )
            else:
                # A server failing on it: kept for the next upload, the others still go.
                on_message(
                    f"attachment {path.name} of run {run_uuid} not stored "
                    f"({describe_error(response)}); it stays in the spool"
                )


def _load(
    spool: Spool, group: list[Path], report: UploadReport, on_message: Callable[[str], None]
) -> list[tuple[str, dict[str, Any]]]:
    """The runs of group; a file that holds no usable run goes to rejected/ with the reason,
    and the others are still sent."""
    chunk: list[tuple[str, dict[str, Any]]] = []
    for path in group:
        try:
            run = spool.load(path)
        except FileNotFoundError:  # another agent process delivered it just now
            continue
        except UnreadableRun as exc:
            reason = f"unreadable spool file: {exc}"
            try:
                kept = spool.reject(path.stem, reason)
            except OSError as move_exc:
                report.held.append((path.stem, f"{reason}; cannot move it aside: {move_exc}"))
                continue
            report.rejected.append((path.stem, reason))
            on_message(f"REJECTED spool file {path.name}: {reason}; moved to {kept}")
            continue
        chunk.append((path.stem, run))
    return chunk


def _send_chunk(
    spool: Spool,
    client: Client,
    chunk: list[tuple[str, dict[str, Any]]],
    report: UploadReport,
    on_message: Callable[[str], None],
) -> None:
    if len(chunk) == 1:
        _send_one(spool, client, *chunk[0], report, on_message)
        return
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
    if response.status_code >= 500:
        # The server fails on something in this batch: halve it until the run is found.
        on_message(
            f"the server failed on a batch of {len(chunk)} run(s) "
            f"({describe_error(response)}); splitting it to find the run"
        )
        half = len(chunk) // 2
        _send_chunk(spool, client, chunk[:half], report, on_message)
        _send_chunk(spool, client, chunk[half:], report, on_message)
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
    if response.status_code >= 500:
        reason = describe_error(response)
        spool.note_error(run_uuid, reason)
        report.held.append((run_uuid, f"the server failed on it: {reason}"))
        on_message(
            f"the server fails on run {run_uuid}: {reason}. It stays in the spool (the others "
            "are delivered); `perfatlas-agent status` shows it, `perfatlas-agent upload` retries it"
        )
        return
    raise UploadError(f"unexpected answer to an upload: {describe_error(response)}")
