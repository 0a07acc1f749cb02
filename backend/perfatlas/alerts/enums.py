"""Alert and incident values. StrEnums: the stored strings are the values."""

from __future__ import annotations

from enum import StrEnum


class AlertStatus(StrEnum):
    open = "open"
    acknowledged = "acknowledged"
    expected = "expected"
    resolved = "resolved"
    # A regression on a scheduled series waiting for its confirmation job (not open yet: no
    # incident, no notification).
    confirming = "confirming"


class Resolution(StrEnum):
    """Why an alert was resolved: the series stepped back, the detector no longer sees a
    tentative change once more points arrived, or a person resolved it; its confirmation
    found the candidate the same as before (not_confirmed) or could not tell (unconfirmed);
    a series that had stopped reporting reports again (resumed)."""

    stepped_back = "stepped_back"
    withdrawn = "withdrawn"
    manual = "manual"
    not_confirmed = "not_confirmed"
    unconfirmed = "unconfirmed"
    resumed = "resumed"


class IncidentStatus(StrEnum):
    open = "open"
    resolved = "resolved"


class AlertKind(StrEnum):
    regression = "regression"
    improvement = "improvement"
    # A series a cron schedule feeds has had no run for two of its periods.
    stopped = "stopped"


# Who changed an alert's status when no person did.
DETECTOR = "detector"
