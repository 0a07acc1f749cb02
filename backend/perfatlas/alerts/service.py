"""The alerts domain's service surface: what routes, the CLI, other domains and tasks call.
The work is done in rules.py (thresholds), detection.py (checking series), reconcile.py (the
alert state machine), incidents.py (grouping by cause) and triage.py (a person's actions)."""

from __future__ import annotations

from perfatlas.alerts.detection import (
    RETRYABLE,
    VOLATILE_KEYS,
    change_points,
    check_all,
    check_runs,
    check_series,
    series_for_runs,
)
from perfatlas.alerts.pending import Requested
from perfatlas.alerts.reconcile import Report
from perfatlas.alerts.rules import Thresholds, alertable, rule_matches, thresholds_for
from perfatlas.alerts.triage import get_alert, get_incident, set_alert_status, set_incident_status

__all__ = [
    "RETRYABLE",
    "VOLATILE_KEYS",
    "Report",
    "Requested",
    "Thresholds",
    "alertable",
    "change_points",
    "check_all",
    "check_runs",
    "check_series",
    "get_alert",
    "get_incident",
    "rule_matches",
    "series_for_runs",
    "set_alert_status",
    "set_incident_status",
    "thresholds_for",
]
