"""The channels API and the delivery log: admin only, validation that names the field, and a
webhook URL (a secret) that never comes back whole."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from tests.backend.alerts.conftest import make_incident, record
from tests.conftest import Tokens

# A made-up Slack-style URL whose path and query are the secret the API must never show.
HOOK = "https://hooks.slack.example/services/T000/B000/XXXXsecretXXXX?token=abc"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: TestClient, admin: dict[str, str], **body: Any) -> Any:
    return client.post("/api/v1/channels", json=body, headers=admin)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/channels"),
        ("POST", "/api/v1/channels"),
        ("PATCH", "/api/v1/channels/1"),
        ("DELETE", "/api/v1/channels/1"),
        ("POST", "/api/v1/channels/1/test"),
        ("GET", "/api/v1/notifications"),
    ],
)
def test_channels_and_the_delivery_log_need_an_admin_token(
    client: TestClient, tokens: Tokens, method: str, path: str
) -> None:
    body = {"name": "x", "kind": "email", "target": "a@b.example"} if method != "GET" else None
    assert client.request(method, path, json=body).status_code == 401
    for token in (tokens.read, tokens.upload):
        response = client.request(method, path, json=body, headers=bearer(token))
        assert response.status_code == 403, response.text
        assert "admin" in response.json()["detail"]


def test_a_webhook_url_is_shown_without_its_secret_path(client: TestClient, tokens: Tokens) -> None:
    admin = bearer(tokens.admin)
    response = create(client, admin, name="slack", kind="webhook", target=HOOK)
    assert response.status_code == 201, response.text
    made = response.json()
    assert made["target"] == "https://hooks.slack.example/…"
    assert (made["name"], made["kind"], made["enabled"]) == ("slack", "webhook", True)
    listed = client.get("/api/v1/channels", headers=admin)
    assert listed.status_code == 200
    assert [c["target"] for c in listed.json()["items"]] == ["https://hooks.slack.example/…"]
    for text in (response.text, listed.text):
        assert "secret" not in text and "token=abc" not in text and "T000" not in text

    mail = create(client, admin, name="team", kind="email", target=" a@x.example , b@y.example")
    assert mail.status_code == 201
    assert mail.json()["target"] == "a@x.example,b@y.example"  # recipients are no secret


def test_a_second_channel_with_the_same_name_is_a_conflict(
    client: TestClient, tokens: Tokens
) -> None:
    admin = bearer(tokens.admin)
    assert create(client, admin, name="ops", kind="email", target="a@x.example").status_code == 201
    again = create(client, admin, name="ops", kind="webhook", target=HOOK)
    assert again.status_code == 409
    assert again.json()["code"] == "conflict" and "ops" in again.json()["detail"]
    other = create(client, admin, name="other", kind="email", target="b@x.example").json()
    renamed = client.patch(f"/api/v1/channels/{other['id']}", json={"name": "ops"}, headers=admin)
    assert renamed.status_code == 409


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"name": "w", "kind": "webhook", "target": "ftp://files.example/x"}, "body.target",
         "http"),
        ({"name": "w", "kind": "webhook", "target": "hooks.example/x"}, "body.target", "http"),
        ({"name": "w", "kind": "webhook", "target": "https://"}, "body.target", "http"),
        ({"name": "m", "kind": "email", "target": "ops"}, "body.target", "'ops'"),
        ({"name": "m", "kind": "email", "target": "a@x.example; b@x.example"}, "body.target",
         "commas"),
        ({"name": "m", "kind": "email", "target": " , "}, "body.target", "at least one"),
        ({"name": "m", "kind": "pager", "target": "x"}, "body.kind", "webhook"),
        ({"name": "", "kind": "email", "target": "a@x.example"}, "body.name", "at least 1"),
        ({"kind": "email", "target": "a@x.example"}, "body.name", "required"),
        ({"name": "m", "kind": "email", "target": "a@x.example", "colour": 1}, "body.colour",
         "not permitted"),
    ],
)  # fmt: skip
def test_invalid_channels_are_422_naming_the_field(
    client: TestClient, tokens: Tokens, body: dict[str, Any], field: str, says: str
) -> None:
    response = client.post("/api/v1/channels", json=body, headers=bearer(tokens.admin))
    assert response.status_code == 422, response.text
    errors = response.json()["errors"]
    assert errors[0]["field"] == field
    assert says in errors[0]["message"]
    assert client.get("/api/v1/channels", headers=bearer(tokens.admin)).json()["items"] == []


def test_update_checks_the_target_against_the_channel_kind_and_delete_removes_it(
    client: TestClient, tokens: Tokens
) -> None:
    admin = bearer(tokens.admin)
    made = create(client, admin, name="team", kind="email", target="a@x.example").json()
    path = f"/api/v1/channels/{made['id']}"

    bad = client.patch(path, json={"target": HOOK}, headers=admin)  # a URL for an email channel
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["field"] == "body.target"
    changed = client.patch(path, json={"enabled": False, "target": "c@x.example"}, headers=admin)
    assert changed.status_code == 200, changed.text
    assert (changed.json()["enabled"], changed.json()["target"]) == (False, "c@x.example")
    assert changed.json()["name"] == "team"

    assert client.delete(path, headers=admin).status_code == 204
    assert client.get("/api/v1/channels", headers=admin).json()["items"] == []
    for method in ("PATCH", "DELETE"):
        gone = client.request(method, path, json={"enabled": True}, headers=admin)
        assert gone.status_code == 404
    assert client.post(f"{path}/test", headers=admin).status_code == 404


def test_the_delivery_log_lists_newest_first_and_filters_by_status(
    client: TestClient, tokens: Tokens, factory: sessionmaker[Session]
) -> None:
    admin = bearer(tokens.admin)
    create(client, admin, name="team", kind="email", target="a@x.example")
    create(client, admin, name="off", kind="email", target="b@x.example", enabled=False)
    incident_id, alert_ids = make_incident(factory)
    record(factory, event="incident.opened", key=f"incident:{incident_id}:v1",
           incident_id=incident_id)  # fmt: skip
    record(factory, event="alert.acknowledged", key=f"alert:{alert_ids[0]}:v2",
           alert_id=alert_ids[0])  # fmt: skip

    log = client.get("/api/v1/notifications", headers=admin)
    assert log.status_code == 200
    items = log.json()["items"]
    # One per enabled channel; the disabled one gets none.
    assert [(n["channel"], n["event"], n["status"], n["attempts"]) for n in items] == [
        ("team", "alert.acknowledged", "pending", 0),
        ("team", "incident.opened", "pending", 0),
    ]
    assert items[0]["alert_id"] == alert_ids[0] and items[1]["incident_id"] == incident_id
    assert client.get("/api/v1/notifications?status=sent", headers=admin).json()["items"] == []
    limited = client.get("/api/v1/notifications?limit=1", headers=admin).json()["items"]
    assert [n["event"] for n in limited] == ["alert.acknowledged"]
    bad = client.get("/api/v1/notifications?status=lost", headers=admin)
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["field"] == "query.status"
