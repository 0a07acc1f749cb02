"""Notifications: the outbox rows written with each state change, and their delivery.

`record` runs inside the transaction that changes an incident or alert, so a change and its
notifications commit together or not at all; one row per enabled channel, and the unique
(channel, key) makes a second record of the same change a no-op.

`sweep` delivers the rows that are due. Each row is claimed with a conditional UPDATE and a
lease (so two workers never send one row at once, and a killed worker's row is sent again once
its lease ends), its payload is built at the first claim and kept (a resend says the same
thing), and the outcome is committed per row: delivery is at least once, with a delivery id
that stays the same across attempts so that a receiver can drop a repeat."""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import logging
import smtplib
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any
from urllib.parse import urlsplit

import httpx
from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session, selectinload
from sqlalchemy.sql.elements import ColumnElement

from perfatlas import __version__
from perfatlas.alerts.models import Alert, Channel, Incident, Notification
from perfatlas.core.config import Settings
from perfatlas.core.models import utcnow

log = logging.getLogger(__name__)
# httpx logs every request's full URL at INFO, and a webhook URL's path is its secret.
logging.getLogger("httpx").setLevel(logging.WARNING)

TEST_EVENT = "channel.test"
# Alerts listed one per line in a message; the rest are counted.
MAX_LINES = 20
MAX_BACKOFF_SECONDS = 3600.0
# Rows one sweep looks at before leaving the rest to the next one.
SWEEP_LIMIT = 1000
BATCH = 50
WEBHOOK_TIMEOUT_SECONDS = 10.0


def record(
    session: Session,
    *,
    event: str,
    key: str,
    incident_id: int | None = None,
    alert_id: int | None = None,
    delay: float = 0.0,
) -> int:
    """Queue one notification per enabled channel for this state change; returns how many."""
    channels = session.scalars(select(Channel.id).where(Channel.enabled.is_(True))).all()
    if not channels:
        return 0
    existing = set(
        session.scalars(
            select(Notification.channel_id).where(
                Notification.key == key, Notification.channel_id.in_(channels)
            )
        )
    )
    due = utcnow() + dt.timedelta(seconds=delay)
    added = 0
    for channel_id in channels:
        if channel_id in existing:
            continue
        session.add(
            Notification(
                channel_id=channel_id, key=key, event=event, incident_id=incident_id,
                alert_id=alert_id, due_at=due, status="pending", attempts=0,
            )
        )  # fmt: skip
        added += 1
    return added


# ---- delivery ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one delivery attempt came to: sent, or an error that is worth retrying or not."""

    sent: bool
    error: str | None = None
    permanent: bool = False
    retry_after: float | None = None


def _due(now: dt.datetime) -> ColumnElement[bool]:
    return or_(
        and_(Notification.status == "pending", Notification.due_at <= now),
        # A worker that died while sending leaves its row in `sending` until the lease ends.
        and_(Notification.status == "sending", Notification.lease_until < now),
    )


def sweep(factory: Callable[[], Session], *, settings: Settings) -> int:
    """Deliver every due notification; returns how many were sent."""
    sent = 0
    seen: set[int] = set()
    with httpx.Client(
        timeout=send_timeout(settings, WEBHOOK_TIMEOUT_SECONDS),
        follow_redirects=False,
        headers={"User-Agent": f"PerfAtlas/{__version__}"},
    ) as client:
        while len(seen) < SWEEP_LIMIT:
            with factory() as session:
                _give_up_interrupted(session, settings=settings)
                query = (
                    select(Notification.id)
                    .where(_due(utcnow()), Notification.attempts < settings.notify_max_attempts)
                    .order_by(Notification.due_at, Notification.id)
                    .limit(BATCH)
                )
                if seen:
                    query = query.where(Notification.id.not_in(seen))
                ids = list(session.scalars(query))
            if not ids:
                break
            for notification_id in ids:
                seen.add(notification_id)
                if deliver_one(factory, notification_id, settings=settings, client=client):
                    sent += 1
    return sent


def send_timeout(settings: Settings, limit: float) -> float:
    """A send must end well within its lease, or a second worker would send the row again."""
    return min(limit, settings.notify_lease_seconds / 2)


def _give_up_interrupted(session: Session, *, settings: Settings) -> None:
    """A row whose last allowed attempt was interrupted (lease over) is not tried again."""
    result = session.execute(
        update(Notification)
        .where(
            Notification.status == "sending",
            Notification.lease_until < utcnow(),
            Notification.attempts >= settings.notify_max_attempts,
        )
        .values(
            status="failed",
            lease_until=None,
            last_error="the worker stopped during the last attempt; delivery is unknown",
        )
        .execution_options(synchronize_session=False)
    )
    if result.rowcount:  # type: ignore[attr-defined]
        log.warning("%d notification(s) failed: interrupted on their last attempt", result.rowcount)  # type: ignore[attr-defined]
    session.commit()


def deliver_one(
    factory: Callable[[], Session],
    notification_id: int,
    *,
    settings: Settings,
    client: httpx.Client,
) -> bool:
    """Claim one row, send it, record the outcome; False when another worker has it or it
    was not sent."""
    now = utcnow()
    with factory() as session:
        attempt = session.execute(
            update(Notification)
            .where(
                Notification.id == notification_id,
                _due(now),
                Notification.attempts < settings.notify_max_attempts,
            )
            .values(
                status="sending",
                lease_until=now + dt.timedelta(seconds=settings.notify_lease_seconds),
                attempts=Notification.attempts + 1,
            )
            .returning(Notification.attempts)
            .execution_options(synchronize_session=False)
        ).scalar_one_or_none()
        if attempt is None:
            session.rollback()
            return False
        row = session.get(Notification, notification_id)
        assert row is not None  # claimed in this transaction
        channel = row.channel
        if not channel.enabled and row.event != TEST_EVENT:
            _finish(
                session, row.id, attempt, status="failed",
                last_error="the channel was disabled before delivery",
            )  # fmt: skip
            return False
        if row.payload is None:
            try:
                row.payload = build_payload(session, row, settings=settings)
            except Exception as exc:
                # A row that cannot be written up must not stop the rows behind it, sweep
                # after sweep.
                log.exception("notification %s: could not build its message", row.id)
                session.rollback()
                error = f"could not build the message: {type(exc).__name__}"
                _claim_failed(session, notification_id, attempt, error, settings=settings)
                return False
        payload = row.payload
        event = row.event
        session.commit()
    kind, target, name = channel.kind, channel.target, channel.name

    try:
        if kind == "webhook":
            outcome = send_webhook(
                client, target, payload, delivery_id=delivery_id(notification_id), event=event,
                attempt=attempt,
            )  # fmt: skip
        elif kind == "email":
            outcome = send_email(settings, target, payload, notification_id=notification_id)
        else:
            outcome = Outcome(sent=False, error=f"unknown channel kind {kind!r}", permanent=True)
    except Exception as exc:  # a bad URL, a library's own error: recorded and retried
        outcome = Outcome(
            sent=False,
            error=f"{type(exc).__name__}: {scrub(str(exc), target, settings.smtp_password.get_secret_value())}",
        )

    with factory() as session:
        label = f"notification {delivery_id(notification_id)} ({event}) to channel {name!r}"
        if outcome.sent:
            session.execute(
                update(Notification)
                .where(Notification.id == notification_id, Notification.status != "sent")
                .values(status="sent", sent_at=utcnow(), lease_until=None, last_error=outcome.error)
                .execution_options(synchronize_session=False)
            )
            session.commit()
            log.info("%s sent on attempt %d", label, attempt)
            return True
        if outcome.permanent or attempt >= settings.notify_max_attempts:
            _finish(session, notification_id, attempt, status="failed", last_error=outcome.error)
            log.warning("%s failed on attempt %d: %s", label, attempt, outcome.error)
            return False
        delay = min(settings.notify_backoff_seconds * 2 ** (attempt - 1), MAX_BACKOFF_SECONDS)
        if outcome.retry_after is not None:
            delay = min(max(delay, outcome.retry_after), MAX_BACKOFF_SECONDS)
        _finish(
            session, notification_id, attempt, status="pending", last_error=outcome.error,
            due_at=utcnow() + dt.timedelta(seconds=delay),
        )  # fmt: skip
        log.warning(
            "%s: attempt %d failed (%s); next in %.3g s", label, attempt, outcome.error, delay
        )
        return False


def _claim_failed(
    session: Session, notification_id: int, attempt: int, error: str, *, settings: Settings
) -> None:
    """Count the attempt whose claim was rolled back with what failed, and record the error;
    the row is tried again later like a failed delivery (unless another worker has it now)."""
    session.execute(
        update(Notification)
        .where(Notification.id == notification_id, Notification.attempts == attempt - 1)
        .values(
            status="pending" if attempt < settings.notify_max_attempts else "failed",
            attempts=attempt, lease_until=None, last_error=error,
            due_at=utcnow() + dt.timedelta(seconds=settings.notify_lease_seconds),
        )
        .execution_options(synchronize_session=False)
    )  # fmt: skip
    session.commit()


def _finish(
    session: Session,
    notification_id: int,
    attempt: int,
    *,
    status: str,
    last_error: str | None,
    due_at: dt.datetime | None = None,
) -> None:
    """Record a failed attempt, unless the row is no longer ours (sent, or claimed again by
    another worker after our lease ended)."""
    values: dict[str, Any] = {"status": status, "lease_until": None, "last_error": last_error}
    if due_at is not None:
        values["due_at"] = due_at
    session.execute(
        update(Notification)
        .where(
            Notification.id == notification_id,
            Notification.status == "sending",
            Notification.attempts == attempt,
        )
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    session.commit()


def delivery_id(notification_id: int) -> str:
    """The same for every attempt of one notification: receivers drop a repeat by it."""
    return f"n{notification_id}"


# ---- webhooks ---------------------------------------------------------------------------


def mask_url(url: str) -> str:
    """scheme://host[:port]/… : a webhook URL's path and query are its secret (Slack, Teams)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "…"
    if ":" in host:
        host = f"[{host}]"
    rest = "/…" if (parts.path not in ("", "/") or parts.query or parts.fragment) else ""
    return f"{parts.scheme}://{host}{port}{rest}"


def scrub(message: str, *secrets: str) -> str:
    """An error message without the given secrets (or the secret parts of a URL in it)."""
    for secret in secrets:
        if not secret:
            continue
        message = message.replace(secret, mask_url(secret) if "://" in secret else "***")
        try:
            parts = urlsplit(secret)
        except ValueError:
            continue
        for part in (parts.path, parts.query, parts.password or "", parts.username or ""):
            if len(part) > 1:
                message = message.replace(part, "…")
    return message


def send_webhook(
    client: httpx.Client,
    url: str,
    payload: dict[str, Any],
    *,
    delivery_id: str,
    event: str,
    attempt: int,
) -> Outcome:
    """POST the payload. 2xx is delivered; 408, 429, 5xx and network errors are worth another
    try; any other answer (a 404 for a deleted Slack hook, a 403) will not get better."""
    where = mask_url(url)
    try:
        response = client.post(
            url,
            # Sorted: the first attempt sends the dict as built, a resend as read back from
            # JSONB (its own key order), and both must be the same bytes.
            content=json.dumps(payload, ensure_ascii=False, sort_keys=True).encode(),
            headers={
                "Content-Type": "application/json",
                "X-PerfAtlas-Delivery": delivery_id,
                "X-PerfAtlas-Event": event,
                "X-PerfAtlas-Attempt": str(attempt),
            },
        )
    except httpx.HTTPError as exc:
        detail = scrub(str(exc), url) or "no details"
        return Outcome(sent=False, error=f"{type(exc).__name__} from {where}: {detail}")
    if 200 <= response.status_code < 300:
        return Outcome(sent=True)
    body = scrub(" ".join(response.text[:200].split()), url)
    error = f"HTTP {response.status_code} from {where}" + (f": {body}" if body else "")
    if response.status_code in (408, 429) or response.status_code >= 500:
        return Outcome(sent=False, error=error, retry_after=_retry_after(response))
    if 300 <= response.status_code < 400:
        error += " (redirects are not followed: set the final URL)"
    return Outcome(sent=False, error=error, permanent=True)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


# ---- email ------------------------------------------------------------------------------


def recipients(target: str) -> list[str]:
    return [address.strip() for address in target.split(",") if address.strip()]


def build_email(
    settings: Settings, target: str, payload: dict[str, Any], *, notification_id: int
) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = f"[PerfAtlas] {payload.get('headline') or payload['event']}"
    message["From"] = settings.smtp_from
    message["To"] = ", ".join(recipients(target))
    message["Date"] = email.utils.formatdate(usegmt=True)
    domain = settings.smtp_from.rpartition("@")[2].strip("> ") or "perfatlas.localhost"
    # Stable across attempts, so a resend after a killed worker is recognisably the same mail.
    message["Message-ID"] = f"<perfatlas.{delivery_id(notification_id)}@{domain}>"
    message["X-PerfAtlas-Delivery"] = delivery_id(notification_id)
    message["X-PerfAtlas-Event"] = str(payload["event"])
    message.set_content(
        f"{payload['text']}\n\n-- \nPerfAtlas notification {delivery_id(notification_id)}\n"
    )
    return message


def send_email(
    settings: Settings, target: str, payload: dict[str, Any], *, notification_id: int
) -> Outcome:
    """One message to every recipient of the channel. An SMTP 5xx answer is permanent (but a
    refused login), a 4xx answer or a network error is worth another try."""
    message = build_email(settings, target, payload, notification_id=notification_id)
    to = recipients(target)
    secret = settings.smtp_password.get_secret_value()
    try:
        with smtplib.SMTP(
            settings.smtp_host,
            settings.smtp_port,
            timeout=send_timeout(settings, settings.smtp_timeout_seconds),
        ) as smtp:
            if settings.smtp_starttls:
                smtp.starttls(context=ssl.create_default_context())
            if settings.smtp_user:
                smtp.login(settings.smtp_user, secret)
            refused = smtp.send_message(message, from_addr=settings.smtp_from, to_addrs=to)
    except smtplib.SMTPRecipientsRefused as exc:
        codes = [code for code, _ in exc.recipients.values()]
        return Outcome(
            sent=False,
            error=scrub(f"SMTP refused every recipient: {_refusals(exc.recipients)}", secret),
            permanent=all(code >= 500 for code in codes),
        )
    except smtplib.SMTPAuthenticationError as exc:
        # The settings are wrong, not the message: tried again, so that a fixed password
        # (and a restarted worker) still sends it.
        return Outcome(
            sent=False,
            error=f"SMTP {exc.smtp_code} from {settings.smtp_host}: login as "
            f"{settings.smtp_user!r} refused (check PERFATLAS_SMTP_USER and _PASSWORD)",
        )
    except smtplib.SMTPResponseException as exc:
        text = (
            exc.smtp_error.decode(errors="replace")
            if isinstance(exc.smtp_error, bytes)
            else str(exc.smtp_error)
        )
        return Outcome(
            sent=False,
            error=scrub(f"SMTP {exc.smtp_code} from {settings.smtp_host}: {text[:200]}", secret),
            permanent=500 <= exc.smtp_code < 600,
        )
    except (smtplib.SMTPException, OSError) as exc:
        detail = scrub(str(exc), secret) or "no details"
        return Outcome(
            sent=False,
            error=f"{type(exc).__name__} talking to {settings.smtp_host}:{settings.smtp_port}: {detail}",
        )
    if refused:
        return Outcome(
            sent=True, error=scrub(f"some recipients refused: {_refusals(refused)}", secret)
        )
    return Outcome(sent=True)


def _refusals(refused: dict[str, tuple[int, bytes]]) -> str:
    return "; ".join(
        f"{address} ({code} {reason.decode(errors='replace')[:80]})"
        for address, (code, reason) in refused.items()
    )


# ---- the payload ------------------------------------------------------------------------


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
    alerts.sort(key=lambda a: (a.kind != "regression", -abs(a.change_pct or 0.0), a.id))
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
    for kind in ("regression", "improvement"):
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
    status = f" [{alert['status']}]" if alert["status"] != "open" else ""
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
