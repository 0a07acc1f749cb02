"""Notification delivery by a real `perfatlas worker`: webhooks to a local HTTP server, email to
a local SMTP server, retries, permanent failures, and a worker killed while it sends."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.core.config import Settings
from perfatlas.core.queue import enqueue
from perfatlas.notifications.service import NOTIFY_SWEEP
from tests.backend.alerts.conftest import (
    PUBLIC_URL,
    MailServer,
    Receiver,
    Worker,
    add_channel,
    make_incident,
    notifications,
    record,
    wait_until,
)

Factory = sessionmaker[Session]


def opened(factory: Factory, settings: Settings, *, metrics: int = 3) -> tuple[int, list[int]]:
    """An incident that has just opened, recorded as the alerts service records it, and the
    sweep it queues."""
    incident_id, alert_ids = make_incident(factory, metrics=metrics)
    record(factory, event="incident.opened", key=f"incident:{incident_id}:v1",
           incident_id=incident_id)  # fmt: skip
    enqueue(settings, NOTIFY_SWEEP)
    return incident_id, alert_ids


def settled(factory: Factory, *, status: str, timeout: float = 10.0) -> list[object]:
    return wait_until(
        lambda: all(n.status == status for n in notifications(factory)) and notifications(factory),
        timeout=timeout,
        what=f"every notification {status}",
    )


def test_webhook_receives_one_slack_compatible_message(
    worker: Worker, receiver, factory: Factory, worker_settings: Settings
) -> None:
    hook: Receiver = receiver(200)
    add_channel(factory, name="slack", kind="webhook", target=hook.url)
    incident_id, alert_ids = opened(factory, worker_settings)

    (delivery,) = hook.wait_answered(1)
    (row,) = settled(factory, status="sent")
    assert delivery.status == 200
    assert delivery.delivery_id == f"n{row.id}"
    assert delivery.event == "incident.opened"
    assert delivery.content_type == "application/json"
    body = delivery.body
    lines = body["text"].splitlines()
    assert lines[0] == "PerfAtlas: 3 regressions: kernel 6.1 → 6.5"
    assert "environment.kernel 6.1 → 6.5" in lines[1]
    alert_lines = [line for line in lines if line.startswith("• ")]
    assert len(alert_lines) == 3
    assert alert_lines[0].startswith("• smallfile create2.ops_per_s on lab-1 [mode=connected]: ")
    assert "1000 → 798 ops/s (-20.2%, regression)" in alert_lines[0]
    assert f"{PUBLIC_URL}/alerts/{alert_ids[2]}" in alert_lines[0]
    assert lines[-1] == f"Incident: {PUBLIC_URL}/incidents/{incident_id}"
    assert body["event"] == "incident.opened"
    assert body["delivery_id"] == f"n{row.id}"
    assert body["incident"]["id"] == incident_id
    assert body["incident"]["title"] == "kernel 6.1 → 6.5"
    assert body["incident"]["cause"] == {"environment.kernel": {"before": "6.1", "after": "6.5"}}
    assert sorted(a["id"] for a in body["alerts"]) == sorted(alert_ids)
    first = body["alerts"][0]
    assert (first["metric"], first["unit"], first["agent"]) == (
        "create2.ops_per_s",
        "ops/s",
        "lab-1",
    )
    assert (first["before"], first["after"], first["kind"]) == (1000.0, 798.0, "regression")
    assert row.attempts == 1 and row.sent_at is not None and row.last_error is None
    assert row.payload == body  # what was sent is kept

    time.sleep(2.5)  # two more sweeps: nothing is sent twice
    assert len(hook.received()) == 1


def test_long_incidents_list_twenty_alerts_then_count_the_rest(
    worker: Worker, receiver, factory: Factory, worker_settings: Settings
) -> None:
    hook: Receiver = receiver(200)
    add_channel(factory, name="slack", kind="webhook", target=hook.url)
    opened(factory, worker_settings, metrics=25)

    (delivery,) = hook.wait_answered(1)
    lines = delivery.body["text"].splitlines()
    assert lines[0] == "PerfAtlas: 25 regressions: kernel 6.1 → 6.5"
    assert len([line for line in lines if line.startswith("• ")]) == 20
    assert "and 5 more" in lines
    assert len(delivery.body["alerts"]) == 25


def test_server_errors_are_retried_with_the_same_delivery_id_until_delivered(
    worker: Worker, receiver, factory: Factory, worker_settings: Settings,
    worker_client: TestClient, admin_headers: dict[str, str],
) -> None:  # fmt: skip
    hook: Receiver = receiver(500, 500, 200)
    add_channel(factory, name="hook", kind="webhook", target=hook.url)
    opened(factory, worker_settings)

    deliveries = hook.wait_answered(3)
    (row,) = settled(factory, status="sent")
    assert [d.status for d in deliveries] == [500, 500, 200]
    assert [d.attempt for d in deliveries] == ["1", "2", "3"]
    assert {d.delivery_id for d in deliveries} == {f"n{row.id}"}
    assert deliveries[0].raw == deliveries[2].raw  # a retry says the same thing
    assert row.attempts == 3 and row.last_error is None

    log = worker_client.get("/api/v1/notifications", headers=admin_headers).json()["items"]
    assert [(n["channel"], n["event"], n["status"], n["attempts"]) for n in log] == [
        ("hook", "incident.opened", "sent", 3)
    ]
    time.sleep(1.5)
    assert len(hook.received()) == 3


def test_a_404_fails_at_once_and_the_secret_url_is_in_no_error_or_log(
    worker: Worker, receiver, factory: Factory, worker_settings: Settings
) -> None:
    hook: Receiver = receiver(404)
    add_channel(factory, name="gone", kind="webhook", target=hook.url)
    opened(factory, worker_settings)

    (row,) = settled(factory, status="failed")
    assert row.attempts == 1
    assert row.last_error is not None
    assert row.last_error.startswith("HTTP 404 from http://127.0.0.1:")
    assert "no_service" in row.last_error  # the receiver's answer helps to see why
    time.sleep(2)
    assert len(hook.received()) == 1
    for text in (row.last_error, worker.logs()):
        assert "s3cr3t" not in text and "/hooks/" not in text


def test_always_failing_hook_gives_up_after_max_attempts(
    worker: Worker, receiver, factory: Factory, worker_settings: Settings
) -> None:
    hook: Receiver = receiver(503, 503, 503, 503, 503)
    add_channel(factory, name="down", kind="webhook", target=hook.url)
    opened(factory, worker_settings)

    (row,) = settled(factory, status="failed", timeout=15)
    assert row.attempts == worker_settings.notify_max_attempts == 4
    assert row.last_error is not None and row.last_error.startswith("HTTP 503")
    assert len(hook.received()) == 4


def test_email_arrives_once_with_subject_body_and_recipients(
    worker: Worker, mailbox: MailServer, factory: Factory, worker_settings: Settings
) -> None:
    add_channel(factory, name="team", kind="email", target="ops@test.example,dev@test.example")
    incident_id, alert_ids = opened(factory, worker_settings)

    (row,) = settled(factory, status="sent")
    (mail,) = mailbox.messages
    assert sorted(mail.rcpt_tos) == ["dev@test.example", "ops@test.example"]
    assert mail.mail_from == "perfatlas@test.example"
    message = mail.message
    assert message["Subject"] == "[PerfAtlas] 3 regressions: kernel 6.1 → 6.5"
    assert message["Message-ID"] == f"<perfatlas.n{row.id}@test.example>"
    assert message["To"] == "ops@test.example, dev@test.example"
    body = message.get_content()
    assert "create0.ops_per_s on lab-1" in body
    assert f"{PUBLIC_URL}/incidents/{incident_id}" in body
    for alert_id in alert_ids:
        assert f"{PUBLIC_URL}/alerts/{alert_id}" in body
    time.sleep(2)
    assert len(mailbox.messages) == 1


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_a_refused_smtp_login_is_retried_and_sent_once_the_password_is_fixed(
    worker: Worker, factory: Factory, worker_settings: Settings
) -> None:
    server = MailServer(login=("perfatlas", "right-pw-4711"))
    server.start()
    try:
        worker.stop()
        worker.env.update(
            PERFATLAS_SMTP_PORT=str(server.port), PERFATLAS_SMTP_USER="perfatlas",
            PERFATLAS_SMTP_PASSWORD="wrong-pw-0815", PERFATLAS_NOTIFY_BACKOFF_SECONDS="2",
        )  # fmt: skip
        worker.start()
        add_channel(factory, name="team", kind="email", target="ops@test.example")
        opened(factory, worker_settings)

        (row,) = wait_until(
            lambda: [n for n in notifications(factory) if n.attempts == 1 and n.last_error],
            what="the first attempt",
        )
        worker.kill()  # before the retry: the operator fixes the password and restarts it
        assert row.status == "pending" and server.messages == []
        assert row.last_error is not None and "535" in row.last_error
        assert "'perfatlas' refused" in row.last_error
        assert "wrong-pw" not in row.last_error and "wrong-pw" not in worker.logs()

        worker.env["PERFATLAS_SMTP_PASSWORD"] = "right-pw-4711"
        worker.start()
        (row,) = settled(factory, status="sent")
        assert row.attempts == 2
        (mail,) = server.messages
        assert mail.rcpt_tos == ["ops@test.example"]
        assert "pw-" not in worker.logs()
    finally:
        server.stop()


def test_the_same_state_change_recorded_twice_is_delivered_once(
    worker: Worker, receiver, factory: Factory, worker_settings: Settings
) -> None:
    hook: Receiver = receiver(200)
    add_channel(factory, name="hook", kind="webhook", target=hook.url)
    incident_id, _ = make_incident(factory)
    key = f"incident:{incident_id}:v1"
    assert record(factory, event="incident.opened", key=key, incident_id=incident_id) == 1
    # The detector runs again (a retried task, the nightly pass) and sees the same change.
    assert record(factory, event="incident.opened", key=key, incident_id=incident_id) == 0
    enqueue(worker_settings, NOTIFY_SWEEP)
    enqueue(worker_settings, NOTIFY_SWEEP)

    hook.wait_answered(1)
    settled(factory, status="sent")
    time.sleep(2)
    assert len(hook.received()) == 1
    assert len(notifications(factory)) == 1


def test_a_worker_killed_while_sending_is_replaced_and_the_message_is_not_lost(
    worker: Worker, receiver, factory: Factory, worker_settings: Settings
) -> None:
    hook: Receiver = receiver("hold")  # the first request is never answered
    add_channel(factory, name="hook", kind="webhook", target=hook.url)
    opened(factory, worker_settings)

    assert hook.holding.wait(10), "the worker did not send"
    worker.kill()
    (row,) = notifications(factory)
    assert (row.status, row.attempts) == ("sending", 1)

    worker.start()  # its lease (3 s) ends, and the new worker sends it again
    hook.wait_answered(1)
    (row,) = settled(factory, status="sent")
    first, second = hook.received()
    assert first.status is None and second.status == 200
    # The unanswered attempt and the answered one carry one delivery id: a receiver that saw
    # the first can drop the second.
    assert first.delivery_id == second.delivery_id == f"n{row.id}"
    assert first.raw == second.raw
    assert row.attempts == 2
    assert [d for d in hook.received() if d.status == 200] == [second]
    time.sleep(1.5)
    assert len(hook.received()) == 2


def test_channel_test_goes_through_the_outbox(
    worker: Worker, receiver, factory: Factory, worker_client: TestClient,
    admin_headers: dict[str, str],
) -> None:  # fmt: skip
    hook: Receiver = receiver(200)
    channel = worker_client.post(
        "/api/v1/channels", json={"name": "ops", "kind": "webhook", "target": hook.url},
        headers=admin_headers,
    ).json()  # fmt: skip
    response = worker_client.post(f"/api/v1/channels/{channel['id']}/test", headers=admin_headers)
    assert response.status_code == 202, response.text
    assert response.json()["event"] == "channel.test"

    (delivery,) = hook.wait_answered(1)
    assert delivery.event == "channel.test"
    assert delivery.body["text"].startswith("PerfAtlas: Test notification for channel 'ops'")
    wait_until(
        lambda: worker_client.get(
            "/api/v1/notifications?status=sent", headers=admin_headers
        ).json()["items"],
        what="the test notification in the delivery log",
    )
