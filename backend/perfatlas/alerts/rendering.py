"""What a notification says: a Slack-compatible `text` and the same facts as fields, built
from the incident or alert it is about."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from perfatlas.alerts.enums import AlertKind, AlertStatus
from perfatlas.alerts.models import Alert, Incident
from perfatlas.core.config import Settings
from perfatlas.notifications.enums import TEST_EVENT
from perfatlas.notifications.models import Notification, delivery_id

# Alerts listed one per line in a message; the rest are counted.
MAX_LINES = 20


def build_payload(session: Session, row: Notification, *, settings: Settings) -> dict[str, Any]:
    """What a notification says: a Slack-compatible `text` and the same facts as fields."""
    base = settings.public_url.rstrip("/")
    incident: Incident | None = None
    alerts: list[Alert] = []
    if row.alert_id is not None:
        alert = session.scalars(
            select(Alert).where(Alert.id == row.alert_id).options(selectinload(Alert.change_run))
        ).first()
        if alert is not None:
            alerts = [alert]
            incident = session.get(Incident, alert.incident_id) if alert.incident_id else None
    elif row.incident_id is not None:
        incident = session.scalars(
            select(Incident)
            .where(Incident.id == row.incident_id)
            .options(selectinload(Incident.alerts).selectinload(Alert.change_run))
        ).first()
        alerts = list(incident.alerts) if incident is not None else []
    alerts.sort(key=lambda a: (a.kind != AlertKind.regression, -abs(a.change_pct or 0.0), a.id))
    alert_items = [_alert_item(alert, base) for alert in alerts]
    incident_item = _incident_item(incident, base) if incident is not None else None
    if row.event == TEST_EVENT:
        headline = f"Test notification for channel {row.channel.name!r}"
    else:
        headline = _headline(row.event, incident_item, alert_items)
    payload: dict[str, Any] = {
        "text": _text(row.event, headline, incident_item, alert_items),
        "headline": headline,
        "event": row.event,
        "delivery_id": delivery_id(row.id),
        "created_at": row.created_at.isoformat(),
        "incident": incident_item,
        "alerts": alert_items,
    }
    return payload


def _incident_item(incident: Incident, base: str) -> dict[str, Any]:
    return {
        "id": incident.id,
        "title": incident.title,
        "status": incident.status,
        "agent": incident.agent.name if incident.agent is not None else None,
        "cause": incident.cause,
        "opened_at": incident.opened_at.isoformat(),
        "resolved_at": incident.resolved_at.isoformat() if incident.resolved_at else None,
        "url": f"{base}/incidents/{incident.id}" if base else None,
    }


def _alert_item(alert: Alert, base: str) -> dict[str, Any]:
    series = alert.series
    return {
        "id": alert.id,
        "status": alert.status,
        "kind": alert.kind,
        "workload": series.workload,
        "metric": series.metric,
        "unit": series.unit,
        "agent": series.agent.name,
        "target": series.target,
        "labels": series.labels,
        "before": alert.before,
        "after": alert.after,
        "change_pct": alert.change_pct,
        "confidence": alert.confidence,
        "tentative": alert.tentative,
        "change_run": {
            "uuid": str(alert.change_run.uuid),
            "started_at": alert.change_run.started_at.isoformat(),
        },
        "url": f"{base}/alerts/{alert.id}" if base else None,
    }


def _counts(alerts: Sequence[dict[str, Any]]) -> str:
    parts = []
    for kind in AlertKind:
        n = sum(1 for a in alerts if a["kind"] == kind)
        if n:
            parts.append(f"{n} {kind}{'s' if n != 1 else ''}")
    return ", ".join(parts) or "no changes"


def _headline(event: str, incident: dict[str, Any] | None, alerts: Sequence[dict[str, Any]]) -> str:
    """`3 regressions: kernel 6.1 → 6.5`, `Resolved: 3 regressions: …`."""
    subject, _, verb = event.partition(".")
    if subject == "alert" and alerts:
        what = _series_name(alerts[0])
    elif incident is not None:
        what = incident["title"]
    else:
        what = "(deleted)"
    head = f"{_counts(alerts)}: {what}"
    if verb == "opened":
        return head
    verb_text = {"expected": "marked expected"}.get(verb, verb)
    return f"{verb_text.capitalize()}: {head}"


def _series_name(alert: dict[str, Any]) -> str:
    labels = ",".join(f"{k}={v}" for k, v in sorted(alert["labels"].items()))
    return f"{alert['workload']} {alert['metric']} on {alert['agent']}" + (
        f" [{labels}]" if labels else ""
    )


def _number(value: float) -> str:
    return f"{value:.4g}"


def _alert_line(alert: dict[str, Any]) -> str:
    pct = f"{alert['change_pct']:+.1f}%, " if alert["change_pct"] is not None else ""
    flags = ", tentative" if alert["tentative"] else ""
    status = f" [{alert['status']}]" if alert["status"] != AlertStatus.open else ""
    line = (
        f"• {_series_name(alert)}: {_number(alert['before'])} → {_number(alert['after'])} "
        f"{alert['unit']} ({pct}{alert['kind']}{flags}){status}"
    )
    return f"{line} {alert['url']}" if alert["url"] else line


def _text(
    event: str,
    headline: str,
    incident: dict[str, Any] | None,
    alerts: Sequence[dict[str, Any]],
) -> str:
    lines = [f"PerfAtlas: {headline}"]
    if event == TEST_EVENT:
        lines.append("This channel receives PerfAtlas alerts.")
    if incident is not None and incident.get("cause"):
        changes = "; ".join(
            f"{key} {change.get('before')} → {change.get('after')}"
            for key, change in incident["cause"].items()
        )
        lines.append(f"Changed with it: {changes}")
    lines += [_alert_line(alert) for alert in alerts[:MAX_LINES]]
    if len(alerts) > MAX_LINES:
        lines.append(f"and {len(alerts) - MAX_LINES} more")
    if incident is not None and incident["url"]:
        lines.append(f"Incident: {incident['url']}")
    return "\n".join(lines)
