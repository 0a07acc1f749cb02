"""Incidents: alerts grouped by cause (or, with no cause, by agent and time), and the
notifications of an incident's changes. A new incident's first notification waits
notify_delay_seconds, so that the alerts of one cause go out together.

What queues a notification appends its delay (seconds until it falls due) to `delays`, the
check's report, so that the task can ask for a sweep at that time."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from perfatlas.alerts.enums import AlertStatus, IncidentStatus
from perfatlas.alerts.models import Alert, Incident
from perfatlas.core.canonical import canonical_json
from perfatlas.core.config import Settings
from perfatlas.core.models import utcnow
from perfatlas.notifications import service as notifications
from perfatlas.notifications.enums import NotificationStatus
from perfatlas.notifications.models import Notification
from perfatlas.runs.models import Series

# Alerts with no cause group by agent when their changes are this close in time.
AGENT_GROUP_WINDOW = dt.timedelta(hours=6)
# Alerts with one cause group while the incident is this recent (the same new kernel rolled
# out over a few days is still one change).
CAUSE_GROUP_WINDOW = dt.timedelta(days=7)


def cause_title(cause: dict[str, Any]) -> str:
    parts = []
    for key, change in list(cause.items())[:3]:
        name = key.removeprefix("environment.").removeprefix("labels.")
        parts.append(f"{name} {change.get('before')} → {change.get('after')}")
    more = f" (+{len(cause) - 3} more)" if len(cause) > 3 else ""
    return ", ".join(parts) + more


def assign(
    session: Session, alert: Alert, series: Series, settings: Settings, delays: list[float]
) -> None:
    """Put a new alert into the incident of its cause (or, with no cause, of its agent and
    time), opening one if there is none; an incident's first notification waits
    notify_delay_seconds so that the alerts of one cause go out together."""
    if alert.cause:
        key = "cause:" + hashlib.sha256(canonical_json(alert.cause)).hexdigest()[:40]
        window = CAUSE_GROUP_WINDOW
        title = cause_title(alert.cause)
        agent_id: int | None = None
    else:
        key = f"agent:{series.agent_id}"
        window = AGENT_GROUP_WINDOW
        title = f"changes on {series.agent.name} around {alert.change_at:%Y-%m-%d %H:%M} UTC"
        agent_id = series.agent_id
    if session.get_bind().dialect.name == "postgresql":
        # Two workers checking series of one cause at once must find one incident, not open
        # two: the lookup and the insert are serialised per key until this check commits.
        session.execute(select(func.pg_advisory_xact_lock(func.hashtext(key))))
    incident = session.scalars(
        select(Incident)
        .where(Incident.key == key)
        .where(Incident.opened_at >= alert.change_at - window)
        .where(Incident.opened_at <= alert.change_at + window)
        .order_by(Incident.id.desc())
        .limit(1)
    ).first()
    if incident is None:
        # opened_at is the change's time, so later alerts of the same change find it.
        incident = Incident(
            key=key, agent_id=agent_id, title=title, cause=alert.cause, status=IncidentStatus.open,
            version=1, opened_at=alert.change_at,
        )  # fmt: skip
        session.add(incident)
        session.flush()
        alert.incident_id = incident.id
        _notify(session, incident, "incident.opened", settings, delays)
        return
    alert.incident_id = incident.id
    if incident.agent_id is not None and incident.agent_id != series.agent_id:
        incident.agent_id = None
    if incident.status == IncidentStatus.resolved:
        reopen(session, incident.id, settings, delays)
    elif not _unannounced_pending(session, incident.id):
        # Already notified: one more notification, for the alerts that joined since.
        incident.version += 1
        _notify(session, incident, "incident.updated", settings, delays)


def _unannounced_pending(session: Session, incident_id: int) -> bool:
    return bool(
        session.scalar(
            select(
                exists().where(
                    Notification.incident_id == incident_id,
                    Notification.status == NotificationStatus.pending,
                    # Not yet claimed: its payload is built at the first claim and then fixed.
                    Notification.payload.is_(None),
                )
            )
        )
    )


def _notify(
    session: Session, incident: Incident, event: str, settings: Settings, delays: list[float]
) -> None:
    delay = settings.notify_delay_seconds if event in ("incident.opened", "incident.updated") else 0
    # Never before a notification of this incident that is still waiting to go out: receivers
    # must read "opened" before "resolved".
    waiting = session.scalar(
        select(func.max(Notification.due_at)).where(
            Notification.incident_id == incident.id,
            Notification.status == NotificationStatus.pending,
        )
    )
    if waiting is not None:
        delay = max(delay, (waiting - utcnow()).total_seconds())
    added = notifications.record(
        session, event=event, key=f"incident:{incident.id}:v{incident.version}",
        incident_id=incident.id, delay=delay,
    )  # fmt: skip
    if added:
        delays.append(delay)


def reopen(session: Session, incident_id: int, settings: Settings, delays: list[float]) -> None:
    incident = session.get(Incident, incident_id)
    if incident is None or incident.status == IncidentStatus.open:
        return
    incident.status = IncidentStatus.open
    incident.resolved_at = None
    incident.version += 1
    _notify(session, incident, "incident.reopened", settings, delays)


def unresolved_count(session: Session, incident_id: int) -> int:
    return (
        session.scalar(
            select(func.count())
            .select_from(Alert)
            .where(Alert.incident_id == incident_id, Alert.status != AlertStatus.resolved)
        )
        or 0
    )


def settle(session: Session, incident_id: int, settings: Settings, delays: list[float]) -> None:
    """An incident is resolved when every alert in it is."""
    incident = session.get(Incident, incident_id)
    if incident is None or incident.status == IncidentStatus.resolved:
        return
    if unresolved_count(session, incident_id):
        return
    incident.status = IncidentStatus.resolved
    incident.resolved_at = utcnow()
    incident.version += 1
    unannounced = session.scalars(
        select(Notification).where(
            Notification.incident_id == incident_id,
            Notification.event == "incident.opened",
            Notification.status == NotificationStatus.pending,
            Notification.payload.is_(None),
        )
    ).all()
    if unannounced:
        # Withdrawn before anyone was told: neither "opened" nor "resolved" goes out.
        for row in session.scalars(
            select(Notification).where(
                Notification.incident_id == incident_id,
                Notification.status == NotificationStatus.pending,
                Notification.payload.is_(None),
            )
        ):
            session.delete(row)
        return
    _notify(session, incident, "incident.resolved", settings, delays)


def sync_silently(session: Session, incident_id: int) -> None:
    """A person's action already sent its notification: the incident's status follows its
    alerts without another one."""
    incident = session.get(Incident, incident_id)
    if incident is None:
        return
    unresolved = unresolved_count(session, incident_id)
    if unresolved and incident.status == IncidentStatus.resolved:
        incident.status, incident.resolved_at = IncidentStatus.open, None
    elif not unresolved and incident.status == IncidentStatus.open:
        incident.status, incident.resolved_at = IncidentStatus.resolved, utcnow()
