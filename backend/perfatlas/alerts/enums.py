"""Alert and incident values. StrEnums: the stored strings are the values."""

from __future__ import annotations

from enum import StrEnum


class AlertStatus(StrEnum):
    open = "open"
    acknowledged = "acknowledged"
    expected = "expected"
    resolved = "resolved"


class Resolution(StrEnum):
    """Why an alert was resolved: the series stepped back, the detector no longer sees a
    tentative change once more points arrived, or a person resolved it."""

    stepped_back = "stepped_back"
    withdrawn = "withdrawn"
    manual = "manual"


class IncidentStatus(StrEnum):
    open = "open"
    resolved = "resolved"


class AlertKind(StrEnum):
    regression = "regression"
    improvement = "improvement"


# Who changed an alert's status when no person did.
DETECTOR = "detector"
