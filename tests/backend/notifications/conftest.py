"""The notification tests use the alerts tests' real worker, webhook receiver, SMTP server and
incidents (notifications are about alerts and incidents): the fixtures are shared from there."""

from __future__ import annotations

from tests.backend.alerts.conftest import (
    admin_headers,
    factory,
    mail_server,
    mailbox,
    receiver,
    worker,
    worker_client,
    worker_queue,
    worker_settings,
)

__all__ = [
    "admin_headers",
    "factory",
    "mail_server",
    "mailbox",
    "receiver",
    "worker",
    "worker_client",
    "worker_queue",
    "worker_settings",
]
