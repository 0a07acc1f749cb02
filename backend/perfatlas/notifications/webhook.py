"""Webhook delivery: the payload as JSON, POSTed once per attempt."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx

from perfatlas.notifications.redact import mask_url, scrub
from perfatlas.notifications.senders import Outcome

# httpx logs every request's full URL at INFO, and a webhook URL's path is its secret.
logging.getLogger("httpx").setLevel(logging.WARNING)

WEBHOOK_TIMEOUT_SECONDS = 10.0


def send_webhook(
    client: httpx.Client,
    url: str,
    payload: dict[str, Any],
    *,
    delivery_id: str,
    event: str,
    attempt: int,
) -> Outcome:
    """POST the payload. 2xx is delivered; 408, 429, 5xx and network errors are worth another
    try; any other answer (a 404 for a deleted Slack hook, a 403) will not get better."""
    where = mask_url(url)
    try:
        response = client.post(
            url,
            # Sorted: the first attempt sends the dict as built, a resend as read back from
            # JSONB (its own key order), and both must be the same bytes.
            content=json.dumps(payload, ensure_ascii=False, sort_keys=True).encode(),
            headers={
                "Content-Type": "application/json",
                "X-PerfAtlas-Delivery": delivery_id,
                "X-PerfAtlas-Event": event,
                "X-PerfAtlas-Attempt": str(attempt),
            },
        )
    except httpx.HTTPError as exc:
        detail = scrub(str(exc), url) or "no details"
        return Outcome(sent=False, error=f"{type(exc).__name__} from {where}: {detail}")
    if 200 <= response.status_code < 300:
        return Outcome(sent=True)
    body = scrub(" ".join(response.text[:200].split()), url)
    error = f"HTTP {response.status_code} from {where}" + (f": {body}" if body else "")
    if response.status_code in (408, 429) or response.status_code >= 500:
        return Outcome(sent=False, error=error, retry_after=_retry_after(response))
    if 300 <= response.status_code < 400:
        error += " (redirects are not followed: set the final URL)"
    return Outcome(sent=False, error=error, permanent=True)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
