"""The API's answers about one alert or incident: find it or triage it (triage.py), then read
it as the routes answer it (queries.py)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from perfatlas.alerts import queries, triage
from perfatlas.alerts.schemas import AlertDetail, AlertRead, IncidentDetail


def alert_detail(session: Session, *, alert_id: int) -> AlertDetail:
    """One alert with the series around its change and what differs either side of it."""
    return queries.alert_detail(session, triage.get_alert(session, alert_id))


def triage_alert(
    session: Session, *, alert_id: int, status: str, note: str | None, actor: str
) -> AlertRead:
    """A person's triage of one alert, and the alert as it now stands."""
    alert = triage.set_alert_status(session, alert_id, status=status, note=note, actor=actor)
    return queries.alert_read(alert, queries.confirmation_of(session, alert))


def incident_detail(session: Session, *, incident_id: int) -> IncidentDetail:
    """One incident with its alerts."""
    return queries.incident_detail(session, triage.get_incident(session, incident_id))


def triage_incident(
    session: Session, *, incident_id: int, status: str, note: str | None, actor: str
) -> IncidentDetail:
    """A person's triage of every alert of an incident, and the incident as it now stands."""
    incident = triage.set_incident_status(
        session, incident_id, status=status, note=note, actor=actor
    )
    return queries.incident_detail(session, incident)
