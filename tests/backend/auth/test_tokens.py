"""Tokens: every write needs the upload scope; reads need a token unless public read is on."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from perfatlas.auth.models import ApiToken
from perfatlas.core.config import Settings
from perfatlas.main import create_app
from tests.factories import run_body


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_write_without_token_is_401(client, tokens):
    response = client.post("/api/v1/runs", json=run_body())
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert "upload" in response.json()["detail"]


def test_unknown_token_is_401(client, tokens):
    response = client.post("/api/v1/runs", json=run_body(), headers=bearer("pa_not-a-real-token"))
    assert response.status_code == 401
    assert "unknown or revoked" in response.json()["detail"]


def test_read_token_cannot_write(client, tokens):
    for path, body in (
        ("/api/v1/runs", run_body()),
        ("/api/v1/runs/batch", {"runs": [run_body()]}),
    ):
        response = client.post(path, json=body, headers=bearer(tokens.read))
        assert response.status_code == 403, path
        assert "'read'" in response.json()["detail"]


def test_upload_and_admin_tokens_can_write(client, tokens):
    assert (
        client.post("/api/v1/runs", json=run_body(), headers=bearer(tokens.upload)).status_code
        == 201
    )
    assert (
        client.post("/api/v1/runs", json=run_body(), headers=bearer(tokens.admin)).status_code
        == 201
    )


def test_reads_need_a_token_unless_public(client, tokens, settings, engine):
    assert client.get("/api/v1/runs").status_code == 401
    assert client.get("/api/v1/runs", headers=bearer(tokens.read)).status_code == 200
    public = Settings(**{**settings.model_dump(), "public_read": True})
    with TestClient(create_app(public)) as open_client:
        assert open_client.get("/api/v1/runs").status_code == 200
        # public read never opens writes
        assert open_client.post("/api/v1/runs", json=run_body()).status_code == 401


def test_tokens_are_stored_hashed(engine, tokens):
    with engine.connect() as conn:
        stored = [row.token_hash for row in conn.execute(select(ApiToken))]
    assert len(stored) == 3
    for token in (tokens.read, tokens.upload, tokens.admin):
        assert token not in stored
        assert all(token not in h for h in stored)


def test_health_needs_no_token(client):
    response = client.get("/api/v1/health")
    assert response.status_code == 200
    assert response.json()["database"] == "postgresql"


# ---- principals: agent tokens and the tokens API ----------------------------------------


def _create(client: TestClient, admin: str, **body: object) -> dict:
    response = client.post("/api/v1/tokens", json=body, headers=bearer(admin))
    assert response.status_code == 201, response.text
    return response.json()


def test_agent_token_uploads_only_as_its_agent(client, tokens, engine):
    made = _create(client, tokens.admin, name="lab-1 agent", scope="agent", agent="lab-1")
    assert made["agent"] == "lab-1" and made["scope"] == "agent"
    agent = bearer(made["token"])
    own = run_body(agent="lab-1")
    assert client.post("/api/v1/runs", json=own, headers=agent).status_code == 201
    other = client.post("/api/v1/runs", json=run_body(agent="lab-2"), headers=agent)
    assert other.status_code == 403
    assert "body.agent" in other.json()["detail"] and "'lab-2'" in other.json()["detail"]
    batch = client.post(
        "/api/v1/runs/batch",
        json={"runs": [run_body(agent="lab-1"), run_body(agent="lab-2")]},
        headers=agent,
    )
    assert batch.status_code == 403
    assert "body.runs[1].agent" in batch.json()["detail"]
    # Nothing of the refused batch was stored; the agent token reads, but administers nothing.
    listed = client.get("/api/v1/runs", headers=agent).json()["items"]
    assert [r["uuid"] for r in listed] == [own["uuid"]]
    assert client.get("/api/v1/tokens", headers=agent).status_code == 403


def test_token_made_through_the_api_works_and_revocation_is_immediate(client, tokens):
    made = _create(client, tokens.admin, name="ci uploader", scope="upload")
    assert made["token"].startswith("pa_") and made["prefix"] == made["token"][:10]
    headers = bearer(made["token"])
    assert client.post("/api/v1/runs", json=run_body(), headers=headers).status_code == 201
    listed = client.get("/api/v1/tokens", headers=bearer(tokens.admin)).json()["items"]
    row = next(t for t in listed if t["id"] == made["id"])
    assert "token" not in row and row["last_used_at"] is not None and row["revoked_at"] is None
    assert all(made["token"] not in str(t) for t in listed)

    revoked = client.post(f"/api/v1/tokens/{made['id']}/revoke", headers=bearer(tokens.admin))
    assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
    again = client.post("/api/v1/runs", json=run_body(), headers=headers)
    assert again.status_code == 401
    assert client.get("/api/v1/runs", headers=headers).status_code == 401


def test_tokens_api_refuses_bad_requests(client, tokens):
    admin = bearer(tokens.admin)
    cases = [
        ({"name": "x", "scope": "root"}, "scope"),
        ({"name": "x", "scope": "agent"}, "agent"),
        ({"name": "x", "scope": "read", "agent": "lab-1"}, "agent"),
        ({"name": "", "scope": "read"}, "name"),
        ({"name": "a\x00b", "scope": "read"}, "name"),
    ]
    for body, field in cases:
        response = client.post("/api/v1/tokens", json=body, headers=admin)
        assert response.status_code == 422, (body, response.text)
        assert field in response.text, body
    assert client.post("/api/v1/tokens", json={"name": "x", "scope": "read"}).status_code == 401
    upload = bearer(tokens.upload)
    made = client.post("/api/v1/tokens", json={"name": "x", "scope": "read"}, headers=upload)
    assert made.status_code == 403
    for token_id in (0, 999_999, 2**31, 2**64):
        response = client.post(f"/api/v1/tokens/{token_id}/revoke", headers=admin)
        assert response.status_code in (404, 422), (token_id, response.status_code)


def test_scopes_are_permission_sets():
    from perfatlas.auth.permissions import SCOPE_PERMISSIONS, Permission, Scope

    assert SCOPE_PERMISSIONS[Scope.READ] == {Permission.READ}
    assert Permission.ADMIN not in SCOPE_PERMISSIONS[Scope.UPLOAD]
    assert Permission.TRIAGE not in SCOPE_PERMISSIONS[Scope.AGENT]
    assert SCOPE_PERMISSIONS[Scope.ADMIN] == set(Permission)
