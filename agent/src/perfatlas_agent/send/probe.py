"""Before a long run: the server answers, and takes this token for uploads."""

from __future__ import annotations

import httpx

from perfatlas_agent import __version__
from perfatlas_agent.errors import ServerUnreachable, TokenRejected
from perfatlas_agent.send.client import describe_error


def check_server(server: str, token: str | None, *, timeout_s: float = 5.0) -> str | None:
    """Before a long run: the server answers, and takes this token for uploads. Returns a
    warning when the server answers with an error of its own (the runs are spooled and the
    upload retried, so that alone does not stop a run).

    Two probes that store nothing: a read of one run (any unknown token is refused, 401),
    and an empty batch (a token without the upload scope is refused, 403, by a server that
    checks the token before the body; the empty list itself is refused, 422)."""
    headers = {"User-Agent": f"perfatlas-agent/{__version__}"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    base = server.rstrip("/")
    with httpx.Client(base_url=base, headers=headers, timeout=timeout_s) as http:
        try:
            health = http.get("/api/v1/health")
        except httpx.TransportError as exc:
            raise ServerUnreachable(
                f"cannot reach the server {base} ({type(exc).__name__}: {exc}); nothing was run. "
                "Check --server/PERFATLAS_SERVER, or leave it unset to keep the runs in the "
                "spool and upload them later."
            ) from exc
        if health.status_code >= 500:
            return f"the server {base} is not well ({describe_error(health)})"
        if health.status_code != 200:
            raise ServerUnreachable(
                f"{base} does not answer as a PerfAtlas server ({describe_error(health)}); "
                "nothing was run"
            )
        if not token:
            raise TokenRejected(
                f"no token for {base}: set --token or PERFATLAS_TOKEN to an upload token; "
                "nothing was run"
            )
        try:
            read = http.get("/api/v1/runs", params={"limit": "1"})
            probe = read
            if read.status_code not in (401, 403):
                probe = http.post(
                    "/api/v1/runs/batch",
                    content=b'{"runs": []}',
                    headers={"Content-Type": "application/json"},
                )
        except httpx.TransportError as exc:
            raise ServerUnreachable(f"the server {base} stopped answering ({exc})") from exc
    if probe.status_code in (401, 403):
        raise TokenRejected(
            f"the server {base} refused the token ({describe_error(probe)}); set --token or "
            "PERFATLAS_TOKEN to an upload token. Nothing was run."
        )
    if probe.status_code >= 500:
        return f"the server {base} failed a test upload ({describe_error(probe)})"
    if probe.status_code not in (200, 422):
        raise ServerUnreachable(
            f"the server {base} cannot take uploads ({describe_error(probe)}); nothing was run"
        )
    return None
