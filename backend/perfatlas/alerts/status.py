"""How an alert's status changes, for the detector and for a person alike: every change bumps
its version (one notification per version) and says who and when."""

from __future__ import annotations

from perfatlas.alerts.enums import DETECTOR, AlertStatus, Resolution
from perfatlas.alerts.models import Alert
from perfatlas.core.models import utcnow


def set_status(alert: Alert, status: AlertStatus, *, by: str) -> None:
    alert.status = status
    alert.version += 1
    alert.status_changed_at = utcnow()
    alert.status_changed_by = by
    if status != AlertStatus.resolved:
        alert.resolution = None
        alert.resolved_at = None
        alert.resolved_by_run_id = None


def resolve(
    alert: Alert, resolution: Resolution, *, run_id: int | None, by: str = DETECTOR
) -> None:
    set_status(alert, AlertStatus.resolved, by=by)
    alert.resolution = resolution
    alert.resolved_at = utcnow()
    alert.resolved_by_run_id = run_id
