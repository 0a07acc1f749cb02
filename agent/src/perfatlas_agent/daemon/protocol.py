"""The daemon's side of the job protocol (CONTRACT-11): enroll, heartbeat, claim, progress,
complete, release. Each call is one request; what to retry is the caller's choice
(`retrying`), so a stopping daemon is never stuck inside a retry loop."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx

from perfatlas_agent import __version__
from perfatlas_agent.daemon.stopping import Stop
from perfatlas_agent.errors import AgentError, LeaseLost, Refused, Revoked, Stopped, Transient
from perfatlas_agent.send.client import describe_error

API = "/api/v1"
T = TypeVar("T")


def _check(response: httpx.Response) -> httpx.Response:
    status = response.status_code
    if status == 401:
        raise Revoked(
            f"the server refused this agent's token ({describe_error(response)}): the agent was "
            "revoked, or its agent.json holds another token. Enroll it again with a new "
            "enrollment token (`perfatlas-agent enroll`)."
        )
    if status == 409:
        try:
            code = response.json().get("code")
        except (json.JSONDecodeError, ValueError, AttributeError):
            code = None
        if code == "lease_lost":
            raise LeaseLost(describe_error(response))
    if status == 429 or status >= 500:
        raise Transient(describe_error(response))
    if status >= 400:
        raise Refused(describe_error(response))
    return response


class JobClient:
    """One per thread (the main loop, the progress reporter, the heartbeat)."""

    def __init__(self, server: str, token: str, *, timeout_s: float = 30.0) -> None:
        self.server = server.rstrip("/")
        headers = {"User-Agent": f"perfatlas-agent/{__version__}",
                   "Authorization": f"Bearer {token}"}  # fmt: skip
        self._http = httpx.Client(base_url=self.server + API, headers=headers, timeout=timeout_s)

    def close(self) -> None:
        self._http.close()

    def _post(
        self, path: str, body: dict[str, Any] | None, *, params: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> httpx.Response:  # fmt: skip
        try:
            if timeout is None:
                response = self._http.post(path, json=body, params=params)
            else:
                response = self._http.post(path, json=body, params=params, timeout=timeout)
        except httpx.TransportError as exc:
            raise Transient(f"{type(exc).__name__}: {exc}") from exc
        return _check(response)

    def heartbeat(self, labels: dict[str, str] | None = None) -> None:
        self._post("/agents/heartbeat", {"version": __version__, "labels": labels})

    def claim(self, wait: float) -> dict[str, Any] | None:
        """A job (the claim's body) or None when nothing came within `wait` seconds."""
        response = self._post(
            "/agents/jobs/claim", None, params={"wait": str(int(wait))}, timeout=wait + 20
        )
        if response.status_code == 204:
            return None
        job: dict[str, Any] = response.json()
        return job

    def progress(self, job_id: int, body: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self._post(f"/jobs/{job_id}/progress", body).json()
        return answer

    def complete(self, job_id: int, body: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self._post(f"/jobs/{job_id}/complete", body).json()
        return answer

    def rounds(self, job_id: int, body: dict[str, Any]) -> dict[str, Any]:
        """A confirmation round: {"verdict", "continue"}."""
        answer: dict[str, Any] = self._post(f"/jobs/{job_id}/rounds", body).json()
        return answer

    def release(self, job_id: int, attempt: int, reason: str) -> None:
        self._post(f"/jobs/{job_id}/release", {"attempt": attempt, "reason": reason})


def enroll(
    server: str, *, enrollment_token: str, name: str, labels: dict[str, str], timeout_s: float = 30
) -> dict[str, Any]:
    """POST /agents/enroll (no token but the enrollment token): {"name", "token", "labels"}."""
    body = {"enrollment_token": enrollment_token, "name": name, "labels": labels,
            "version": __version__}  # fmt: skip
    try:
        response = httpx.post(
            server.rstrip("/") + API + "/agents/enroll", json=body, timeout=timeout_s,
            headers={"User-Agent": f"perfatlas-agent/{__version__}"},
        )  # fmt: skip
    except httpx.TransportError as exc:
        raise AgentError(f"cannot reach the server {server} ({type(exc).__name__}: {exc})") from exc
    if response.status_code == 401:
        raise Revoked(
            f"the server refused the enrollment token ({describe_error(response)}): it is "
            "unknown, already used or expired; ask for a new one (`perfatlas agent enroll-token`)"
        )
    if response.status_code != 201:
        raise AgentError(f"enrollment refused: {describe_error(response)}")
    answer: dict[str, Any] = response.json()
    return answer


def retrying(
    call: Callable[[], T],
    *,
    stop: Stop | None = None,
    on_retry: Callable[[str, float], None] = lambda _p, _w: None,
    first_delay: float = 0.5,
    max_delay: float = 30.0,
    deadline_s: float | None = None,
) -> T:
    """call() again after Transient errors, with exponential backoff, until it answers, the
    deadline passes (the last Transient is raised) or `stop` is set (Stopped)."""
    delay = first_delay
    give_up = None if deadline_s is None else time.monotonic() + deadline_s
    while True:
        if stop is not None and stop.is_set():
            raise Stopped("stopping")
        try:
            return call()
        except Transient as exc:
            if give_up is not None and time.monotonic() + delay > give_up:
                raise
            on_retry(str(exc), delay)
            if stop is not None:
                if stop.wait(delay):
                    raise Stopped("stopping") from exc
            else:
                time.sleep(delay)
            delay = min(delay * 2, max_delay)
