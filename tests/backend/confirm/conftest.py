"""The alerts tests' fixtures: a real worker, a webhook receiver, a session factory."""

from tests.backend.alerts.conftest import (
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
    "factory",
    "mail_server",
    "mailbox",
    "receiver",
    "worker",
    "worker_client",
    "worker_queue",
    "worker_settings",
]
