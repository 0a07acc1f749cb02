"""Secrets out of what is shown and logged: a webhook URL's path and query are its secret
(Slack, Teams), and so is the SMTP password."""

from __future__ import annotations

from urllib.parse import urlsplit


def mask_url(url: str) -> str:
    """scheme://host[:port]/… : a webhook URL's path and query are its secret (Slack, Teams)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "…"
    if ":" in host:
        host = f"[{host}]"
    rest = "/…" if (parts.path not in ("", "/") or parts.query or parts.fragment) else ""
    return f"{parts.scheme}://{host}{port}{rest}"


def scrub(message: str, *secrets: str) -> str:
    """An error message without the given secrets (or the secret parts of a URL in it)."""
    for secret in secrets:
        if not secret:
            continue
        message = message.replace(secret, mask_url(secret) if "://" in secret else "***")
        try:
            parts = urlsplit(secret)
        except ValueError:
            continue
        for part in (parts.path, parts.query, parts.password or "", parts.username or ""):
            if len(part) > 1:
                message = message.replace(part, "…")
    return message
