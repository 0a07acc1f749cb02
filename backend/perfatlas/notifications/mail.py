"""Email delivery: one message per notification to every recipient of the channel, over
SMTP with the server's PERFATLAS_SMTP_* settings."""

from __future__ import annotations

import email.utils
import smtplib
import ssl
from email.message import EmailMessage
from typing import Any

from perfatlas.core.config import Settings
from perfatlas.notifications.models import delivery_id
from perfatlas.notifications.redact import scrub
from perfatlas.notifications.senders import Outcome, send_timeout


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
