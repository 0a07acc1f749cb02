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
