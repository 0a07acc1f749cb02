"""Triage: a person acknowledges, marks expected, reopens or resolves one alert, or every
alert of an incident at once; each change is notified once, a repeat not at all."""

from __future__ import annotations

from sqlalchemy.orm import Session

from perfatlas.alerts import incidents
from perfatlas.alerts.enums import AlertStatus, Resolution
from perfatlas.alerts.models import Alert, Incident
from perfatlas.alerts.status import resolve, set_status
from perfatlas.confirm import service as confirm
from perfatlas.core.errors import Invalid, NotFound
from perfatlas.notifications import service as notifications

# The event each status a person sets is notified as.
_EVENT = {
    AlertStatus.open: "reopened", AlertStatus.acknowledged: "acknowledged",
    AlertStatus.expected: "expected", AlertStatus.resolved: "resolved",
}  # fmt: skip


def get_alert(session: Session, alert_id: int, *, lock: bool = False) -> Alert:
    alert = session.get(Alert, alert_id, with_for_update={"of": Alert} if lock else None)
    if alert is None:
        raise NotFound(f"no alert with id {alert_id}")
    return alert


def get_incident(session: Session, incident_id: int, *, lock: bool = False) -> Incident:
    incident = session.get(
        Incident, incident_id, with_for_update={"of": Incident} if lock else None
    )
    if incident is None:
        raise NotFound(f"no incident with id {incident_id}")
    return incident


def _apply(alert: Alert, status: AlertStatus, note: str | None, actor: str) -> bool:
    if status == AlertStatus.confirming and alert.status != status:
        raise Invalid("body.status", "confirming is set by detection, not by a person")
    if alert.status == status and (note is None or note == alert.note):
        return False
    if status == AlertStatus.expected and not (note or alert.note):
        raise Invalid("body.note", "say why the change is expected (a note is required)")
    if note is not None:
        alert.note = note
    if alert.status != status:
        if status == AlertStatus.resolved:
            resolve(alert, Resolution.manual, run_id=None, by=actor)
        else:
            set_status(alert, status, by=actor)
    return True


def set_alert_status(
    session: Session, alert_id: int, *, status: str, note: str | None, actor: str
) -> Alert:
    """A person's triage of one alert: one notification per change, none for a repeat."""
    wanted = AlertStatus(status)
    alert = get_alert(session, alert_id, lock=True)
    before = alert.status
    if _apply(alert, wanted, note, actor):
        if before == AlertStatus.confirming and alert.status != before:
            # A person decided before the re-run did: its agent stops, its verdict is moot.
            confirm.cancel_jobs(session, alert_ids=[alert.id])
        if before != alert.status:
            notifications.record(
                session, event=f"alert.{_EVENT[wanted]}", key=f"alert:{alert.id}:v{alert.version}",
                alert_id=alert.id,
            )  # fmt: skip
        session.flush()
        if alert.incident_id is not None:
            incidents.sync_silently(session, alert.incident_id)
        session.commit()
    return alert


def set_incident_status(
    session: Session, incident_id: int, *, status: str, note: str | None, actor: str
) -> Incident:
    """Triage of every alert of an incident at once: one notification for all of them."""
    wanted = AlertStatus(status)
    incident = get_incident(session, incident_id, lock=True)
    changed = noted = False
    for alert in incident.alerts:
        if wanted != AlertStatus.open and alert.status == AlertStatus.resolved:
            continue  # acknowledging an incident leaves its resolved alerts resolved
        before = alert.status
        noted = _apply(alert, wanted, note, actor) or noted
        changed = changed or alert.status != before
    if noted and not changed:  # only the note changed: saved, nobody notified again
        session.commit()
    if changed:
        incident.version += 1
        notifications.record(
            session, event=f"incident.{_EVENT[wanted]}",
            key=f"incident:{incident.id}:v{incident.version}", incident_id=incident.id,
        )  # fmt: skip
        session.flush()
        incidents.sync_silently(session, incident.id)
        session.commit()
    return incident
