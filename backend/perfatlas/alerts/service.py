"""The alerts domain's service surface: what routes, the CLI, other domains and tasks call.
The work is done in rules.py (thresholds), detection.py (checking series), reconcile.py (the
alert state machine), incidents.py (grouping by cause) and triage.py (a person's actions)."""

from __future__ import annotations

from collections.abc import Sequence

from perfatlas.alerts.detection import (
    RETRYABLE,
    VOLATILE_KEYS,
    change_points,
    check_all,
    check_runs,
    check_series,
    series_for_runs,
)
from perfatlas.alerts.reconcile import Report
from perfatlas.alerts.rules import Thresholds, alertable, rule_matches, thresholds_for
from perfatlas.alerts.tasks import REQUEST_CHECKS
from perfatlas.alerts.triage import get_alert, get_incident, set_alert_status, set_incident_status
from perfatlas.core.config import Settings
from perfatlas.rollups.service import queue_fold
from perfatlas.worker.celery_app import enqueue

__all__ = [
    "RETRYABLE",
    "VOLATILE_KEYS",
    "Report",
    "Thresholds",
    "alertable",
    "change_points",
    "check_all",
    "check_runs",
    "check_series",
    "detect_after_ingest",
    "get_alert",
    "get_incident",
    "rule_matches",
    "series_for_runs",
    "set_alert_status",
    "set_incident_status",
    "thresholds_for",
]

# Runs per lookup of their series (an upload of 1,000 runs can touch thousands of series).
DETECT_CHUNK = 500


def detect_after_ingest(settings: Settings, run_uuids: Sequence[object]) -> None:
    """Ask for the on-upload check of the series these new runs belong to (after the response
    has gone out: the upload never waits for the broker). The upload only sends the run uuids;
    the worker turns them into one request row per series (alerts/pending.py) and queues a
    check only when a series was not already waiting, so a burst of uploads to the same series
    makes one check, not one per upload."""
    if not run_uuids:
        return
    if not settings.detect_on_ingest:
        # request_checks queues the fold of the runs into explore's rollups; without it, ask
        # for the fold directly.
        queue_fold(settings)
        return
    uuids = [str(u) for u in run_uuids]
    for start in range(0, len(uuids), DETECT_CHUNK):
        enqueue(settings, REQUEST_CHECKS, uuids[start : start + DETECT_CHUNK])
