"""The alert state machine of one series: match the detector's change points to the stored
alerts, and open, update, withdraw, reopen or resolve them; new alerts join an incident."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.alerts import incidents
from perfatlas.alerts.enums import DETECTOR, AlertKind, AlertStatus, Resolution
from perfatlas.alerts.models import Alert
from perfatlas.alerts.rules import Thresholds, alertable
from perfatlas.alerts.status import resolve, set_status
from perfatlas.analysis.detector import ChangePoint
from perfatlas.confirm import service as confirm
from perfatlas.confirm.plan import plan_for
from perfatlas.core.config import Settings
from perfatlas.core.models import utcnow
from perfatlas.runs.models import Series

# An existing alert matches a change point found up to this many points away (a tentative
# change may be located a point or two differently once more points arrive).
MATCH_DISTANCE = 2
# Resolutions of a candidate that its confirmation did not confirm.
REJECTED = frozenset({Resolution.not_confirmed, Resolution.unconfirmed})


@dataclass
class Report:
    series: int = 0
    opened: int = 0
    updated: int = 0
    resolved: int = 0
    withdrawn: int = 0
    # New regressions on a scheduled series held back for their confirmation job.
    confirming: int = 0
    # Seconds until each new notification falls due (the task schedules a sweep for them).
    notifications: list[float] = field(default_factory=list)

    def merge(self, other: Report) -> None:
        """Add another check's counts and notifications to this one."""
        self.series += other.series
        self.opened += other.opened
        self.updated += other.updated
        self.resolved += other.resolved
        self.withdrawn += other.withdrawn
        self.confirming += other.confirming
        self.notifications.extend(other.notifications)

    def as_dict(self) -> dict[str, int]:
        return {
            "series": self.series, "opened": self.opened, "updated": self.updated,
            "resolved": self.resolved, "withdrawn": self.withdrawn,
            "confirming": self.confirming,
        }  # fmt: skip


@dataclass
class Point:
    run_id: int
    started_at: dt.datetime
    samples: list[float]
    environment_id: int | None
    labels: dict[str, str]


def reconcile(
    session: Session,
    series: Series,
    points: Sequence[Point],
    cps: Sequence[ChangePoint],
    limits: Thresholds,
    settings: Settings,
    report: Report,
) -> None:
    if not points:
        return
    if session.get_bind().dialect.name == "postgresql":
        # Two checks of one series at once (a claim taken over from a check that seemed dead,
        # pending.STALE_CLAIM) take turns here, and the second reads the alerts the first
        # stored instead of opening them again. NO KEY UPDATE: an upload's check request
        # (a key share of the series row) never waits for it.
        session.execute(
            select(Series.id).where(Series.id == series.id).with_for_update(key_share=True)
        )
    index_of = {p.run_id: i for i, p in enumerate(points)}
    existing = [
        a
        for a in session.scalars(
            select(Alert)
            .where(
                Alert.series_id == series.id,
                Alert.change_run_id.in_(index_of),
                Alert.kind != AlertKind.stopped.value,  # not the detector's (alerts/stopped.py)
            )
            # A person's triage of one of these waits for this check, and the other way round.
            .with_for_update(of=Alert)
        )
    ]
    matched: set[int] = set()
    touched_incidents: set[int] = set()
    # Alerts waiting for their confirmation job: resolved here, their job is cancelled.
    confirming = {a.id for a in existing if a.status == AlertStatus.confirming}
    for cp in cps:
        candidates = [
            a
            for a in existing
            if a.id not in matched
            and a.kind == cp.kind
            and abs(index_of[a.change_run_id] - cp.index) <= MATCH_DISTANCE
            # A candidate its re-run rejected stays rejected only where it was: a change found
            # at another run (the step moved once more points came) is a new candidate.
            and not (a.resolution in REJECTED and a.change_run_id != points[cp.index].run_id)
        ]
        alert = min(
            candidates, key=lambda a: abs(index_of[a.change_run_id] - cp.index), default=None
        )
        if alert is not None:
            matched.add(alert.id)
            taken = {a.change_run_id for a in existing if a.id != alert.id}
            if _update(alert, cp, points, index_of, taken):
                report.updated += 1
            if (
                alert.status != AlertStatus.resolved
                and alert.tentative
                and not alertable(cp, limits)
            ):
                # More points made the tentative change smaller or less certain than the rule.
                resolve(alert, Resolution.withdrawn, run_id=None)
                report.withdrawn += 1
                if alert.incident_id is not None:
                    touched_incidents.add(alert.incident_id)
            elif (
                alert.resolution == Resolution.withdrawn
                or (
                    alert.resolution == Resolution.stepped_back
                    and _step_back(alert, cps, index_of) is None
                )
            ) and alertable(cp, limits):
                # The change is back (a withdrawn tentative one), or what looked like a step
                # back was not one after all.
                set_status(alert, AlertStatus.open, by=DETECTOR)
                alert.resolution = None
                if alert.incident_id is not None:
                    touched_incidents.add(alert.incident_id)
                    incidents.reopen(session, alert.incident_id, settings, report.notifications)
                    report.opened += 1
                else:  # withdrawn while it was being confirmed: as a new one
                    _announce(session, series, alert, points, settings, report)
                    if alert.status == AlertStatus.confirming:
                        confirming.add(alert.id)
        elif alertable(cp, limits):
            alert = _create(session, series, cp, points)
            existing.append(alert)
            matched.add(alert.id)
            _announce(session, series, alert, points, settings, report)
            if alert.status == AlertStatus.confirming:
                confirming.add(alert.id)
    for alert in existing:
        if alert.status == AlertStatus.resolved:
            continue
        if alert.id not in matched and alert.tentative:
            resolve(alert, Resolution.withdrawn, run_id=None)
            report.withdrawn += 1
        else:
            back = _step_back(alert, cps, index_of)
            if back is not None:
                resolve(alert, Resolution.stepped_back, run_id=points[back.index].run_id)
                report.resolved += 1
        if alert.status == AlertStatus.resolved and alert.incident_id is not None:
            touched_incidents.add(alert.incident_id)
    session.flush()
    ended = [a.id for a in existing if a.id in confirming and a.status == AlertStatus.resolved]
    if ended:  # nothing left to confirm: the agent stops
        confirm.cancel_jobs(session, alert_ids=ended)
    for incident_id in touched_incidents:
        incidents.settle(session, incident_id, settings, report.notifications)


def _announce(
    session: Session,
    series: Series,
    alert: Alert,
    points: Sequence[Point],
    settings: Settings,
    report: Report,
) -> None:
    """A new regression alert opens (incident, notification), unless a schedule feeds the
    series: then it waits, `confirming`, for the confirmation job queued here (confirm/)."""
    confirmation = plan_for(
        session, series=series, change_run_id=alert.change_run_id,
        previous_run_id=alert.previous_run_id, newest_run_id=points[-1].run_id,
        detected_pct=alert.change_pct,
    )  # fmt: skip
    if confirmation is not None:
        alert.status = AlertStatus.confirming
        session.flush()
        confirm.start(session, alert_id=alert.id, confirmation=confirmation)
        report.confirming += 1
        return
    incidents.assign(session, alert, series, settings, report.notifications)
    report.opened += 1


def _levels(cp: ChangePoint) -> dict[str, Any]:
    return {
        "before": cp.before, "after": cp.after, "change_pct": cp.change_pct,
        "confidence": cp.confidence, "tentative": cp.tentative, "points_after": cp.points_after,
    }  # fmt: skip


def _update(
    alert: Alert,
    cp: ChangePoint,
    points: Sequence[Point],
    index_of: dict[int, int],
    taken: set[int],
) -> bool:
    changed = False
    values = _levels(cp)
    moved = index_of[alert.change_run_id] != cp.index
    if alert.tentative and moved and points[cp.index].run_id not in taken:
        values.update(_location(cp, points))
    elif not alert.tentative:
        # A confirmed change's levels stay as they were confirmed.
        values = {
            "confidence": max(alert.confidence, cp.confidence),
            "points_after": cp.points_after,
        }
    if cp.cause and not alert.cause:
        values["cause"] = cp.cause
    for key, value in values.items():
        if getattr(alert, key) != value:
            setattr(alert, key, value)
            changed = True
    return changed


def _location(cp: ChangePoint, points: Sequence[Point]) -> dict[str, Any]:
    return {
        "change_run_id": points[cp.index].run_id,
        "previous_run_id": points[cp.index - 1].run_id if cp.index > 0 else None,
        "change_at": points[cp.index].started_at,
    }


def _create(session: Session, series: Series, cp: ChangePoint, points: Sequence[Point]) -> Alert:
    now = utcnow()
    alert = Alert(
        series_id=series.id, kind=cp.kind, cause=cp.cause, status=AlertStatus.open, version=1,
        created_at=now, updated_at=now, status_changed_at=now, status_changed_by=DETECTOR,
        **_location(cp, points), **_levels(cp),
    )  # fmt: skip
    session.add(alert)
    session.flush()
    return alert


def _step_back(
    alert: Alert, cps: Sequence[ChangePoint], index_of: dict[int, int]
) -> ChangePoint | None:
    """A later, confirmed change the other way that brings the level closer to where it was
    than to where the alert's change took it (a tentative bounce resolves nothing)."""
    start = index_of[alert.change_run_id]
    for cp in cps:
        back = abs(cp.after - alert.before) < abs(cp.after - alert.after)
        if cp.index > start and cp.kind != alert.kind and back and not cp.tentative:
            return cp
    return None
