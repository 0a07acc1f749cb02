"""What every sender shares: the outcome of one delivery attempt and its time limit (the
delivery id a receiver drops repeats by is the notification's: models.delivery_id)."""

from __future__ import annotations

from dataclasses import dataclass

from perfatlas.core.config import Settings


@dataclass(frozen=True)
class Outcome:
    """What one delivery attempt came to: sent, or an error that is worth retrying or not."""

    sent: bool
    error: str | None = None
    permanent: bool = False
    retry_after: float | None = None


def send_timeout(settings: Settings, limit: float) -> float:
    """A send must end well within its lease, or a second worker would send the row again."""
    return min(limit, settings.notify_lease_seconds / 2)
