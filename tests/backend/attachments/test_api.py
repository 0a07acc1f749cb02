"""A run's attachments on the real PostgreSQL: upload (idempotent, bounded, only by the run's
agent), list, download, and the run's JSON naming them."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select, text

from perfatlas.attachments.models import Attachment
from perfatlas.core.config import Settings
from perfatlas.main import create_app
from tests.factories import run_body


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _store_run(client: TestClient, headers: dict[str, str], **overrides: object) -> str:
    body = run_body(**overrides)
    response = client.post("/api/v1/runs", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return str(body["uuid"])


def _put(
    client: TestClient,
    run: str,
    name: str,
    content: bytes,
    headers: dict[str, str],
    media_type: str = "text/plain",
):  # type: ignore[no-untyped-def]
    return client.put(
        f"/api/v1/runs/{run}/attachments/{quote(name, safe='')}", content=content,
        headers={**headers, "Content-Type": media_type},
    )  # fmt: skip


def _rows(engine: Engine) -> list[tuple[str, int, str, bytes]]:
    with engine.connect() as conn:
        return [
            (r.name, r.size, r.sha256, bytes(r.content))
            for r in conn.execute(
                text("SELECT name, size, sha256, content FROM attachments ORDER BY name")
            )
        ]


def test_upload_list_download_and_the_run_names_them(client, engine, upload_headers, read_headers):
    run = _store_run(client, upload_headers)
    other_run = _store_run(client, upload_headers, agent="host-b")
    # Contents that differ in size, bytes and type; one not UTF-8 at all.
    files = {
        "latencies.csv": (b"rep,op,offset,bytes,seconds\n0,0,4096,512,0.000125\n", "text/csv"),
        "run.sh": (b"#!/bin/sh\necho '{\"x\": 1}'\n", "text/x-shellscript"),
        "raw.bin": (os.urandom(70_000), "application/octet-stream"),
        "résumé 1.txt": ("naïve\n".encode(), "text/plain; charset=utf-8"),
    }
    for name, (content, media_type) in files.items():
        response = _put(client, run, name, content, upload_headers, media_type)
        assert response.status_code == 201, response.text
        digest = hashlib.sha256(content).hexdigest()
        assert response.json()["sha256"] == digest
        assert response.json()["size"] == len(content)
        assert response.headers["etag"] == f'"{digest}"'
    # Another run with a file of the same name: separate.
    assert _put(client, other_run, "run.sh", b"other", upload_headers).status_code == 201

    listing = client.get(f"/api/v1/runs/{run}/attachments", headers=read_headers)
    assert listing.status_code == 200
    items = listing.json()["items"]
    assert [i["name"] for i in items] == sorted(files)
    assert listing.json()["total_bytes"] == sum(len(c) for c, _ in files.values())
    for item in items:
        content, media_type = files[item["name"]]
        assert item["size"] == len(content)
        assert item["sha256"] == hashlib.sha256(content).hexdigest()
        assert item["media_type"] == media_type
        download = client.get(item["url"], headers=read_headers)
        assert download.status_code == 200
        assert download.content == content
        assert download.headers["content-type"] == media_type
        assert download.headers["etag"] == f'"{item["sha256"]}"'
        assert download.headers["x-content-type-options"] == "nosniff"
        assert download.headers["content-disposition"].startswith("attachment; filename=")
        again = client.get(
            item["url"], headers={**read_headers, "If-None-Match": download.headers["etag"]}
        )
        assert again.status_code == 304 and again.content == b""

    accented = client.get(
        f"/api/v1/runs/{run}/attachments/{quote('résumé 1.txt')}", headers=read_headers
    )
    assert accented.headers["content-disposition"] == (
        "attachment; filename=\"r_sum_ 1.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9%201.txt"
    )
    detail = client.get(f"/api/v1/runs/{run}", headers=read_headers).json()
    assert [(a["name"], a["sha256"]) for a in detail["attachments"]] == [
        (i["name"], i["sha256"]) for i in items
    ]
    other = client.get(f"/api/v1/runs/{other_run}", headers=read_headers).json()
    assert [(a["name"], a["size"]) for a in other["attachments"]] == [("run.sh", 5)]
    # A retry of the run's upload answers the stored run, attachments included.
    assert sorted(_rows(engine)) == sorted(
        [(n, len(c), hashlib.sha256(c).hexdigest(), c) for n, (c, _) in files.items()]
        + [("run.sh", 5, hashlib.sha256(b"other").hexdigest(), b"other")]
    )


def test_retry_is_idempotent_and_other_content_conflicts(client, engine, upload_headers):
    body = run_body()
    assert client.post("/api/v1/runs", json=body, headers=upload_headers).status_code == 201
    run = body["uuid"]
    first = _put(client, run, "stdout.txt", b"hello\n", upload_headers)
    assert first.status_code == 201
    again = _put(client, run, "stdout.txt", b"hello\n", upload_headers)
    assert again.status_code == 200
    assert again.json() == first.json()
    conflict = _put(client, run, "stdout.txt", b"hello, world\n", upload_headers)
    assert conflict.status_code == 409
    assert hashlib.sha256(b"hello\n").hexdigest() in conflict.json()["detail"]
    assert _rows(engine) == [("stdout.txt", 6, hashlib.sha256(b"hello\n").hexdigest(), b"hello\n")]
    retried_run = client.post("/api/v1/runs", json=body, headers=upload_headers)
    assert retried_run.status_code == 200
    assert [a["name"] for a in retried_run.json()["attachments"]] == ["stdout.txt"]


@pytest.fixture
def small_limits(settings: Settings, engine: Engine) -> Iterator[TestClient]:
    tight = settings.model_copy(
        update={"attachment_max_bytes": 1000, "attachment_run_max_bytes": 2500,
                "attachment_run_max_files": 4}
    )  # fmt: skip
    with TestClient(create_app(tight), raise_server_exceptions=False) as test_client:
        yield test_client


def test_limits_name_the_field_and_write_nothing(small_limits, engine, upload_headers):
    client = small_limits
    run = _store_run(client, upload_headers)
    assert _put(client, run, "a", b"x" * 1000, upload_headers).status_code == 201  # at the limit
    over = _put(client, run, "b", b"x" * 1001, upload_headers)
    assert over.status_code == 413
    assert over.json()["errors"][0]["field"] == "body"
    assert "1000 bytes" in over.json()["detail"]
    # Streamed without a length: refused once 1000 bytes are passed.
    streamed = client.put(
        f"/api/v1/runs/{run}/attachments/c", content=iter([b"y" * 600, b"y" * 600]),
        headers=upload_headers,
    )  # fmt: skip
    assert streamed.status_code == 413 and streamed.json()["errors"][0]["field"] == "body"
    assert _put(client, run, "b", b"x" * 1000, upload_headers).status_code == 201  # 2000 of 2500
    total = _put(client, run, "c", b"z" * 501, upload_headers)
    assert total.status_code == 413
    assert total.json()["errors"][0]["field"] == "body" and "500 left" in total.json()["detail"]
    assert _put(client, run, "c", b"z" * 500, upload_headers).status_code == 201  # 2500 exactly
    assert _put(client, run, "d", b"", upload_headers).status_code == 201  # 4 files
    count = _put(client, run, "e", b"", upload_headers)
    assert count.status_code == 422 and count.json()["errors"][0]["field"] == "path.name"
    assert [(n, s) for n, s, _, _ in _rows(engine)] == [
        ("a", 1000),
        ("b", 1000),
        ("c", 500),
        ("d", 0),
    ]


@pytest.mark.parametrize(
    ("raw_name", "why"),
    [
        ("dir%2Frun.sh", "path separator"),
        ("dir/run.sh", "path separator"),
        ("back%5Cslash", "path separator"),
        ("bell%07", "U+0007"),
        ("line%0Abreak", "U+000A"),
        ("rtl%E2%80%AEtxt.sh", "U+202E"),
        ("%2E%2E", "not . or .."),
        ("%20lead", "white space"),
        ("x" * 256, "at most 255"),
    ],
)
def test_unsafe_names_are_refused(client, engine, upload_headers, raw_name, why):
    run = _store_run(client, upload_headers)
    response = client.put(
        f"/api/v1/runs/{run}/attachments/{raw_name}", content=b"data", headers=upload_headers
    )
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["field"] == "path.name"
    assert why in response.json()["detail"]
    assert _rows(engine) == []


def test_bad_media_type_and_unknown_run(client, engine, upload_headers, read_headers):
    run = _store_run(client, upload_headers)
    bad = _put(client, run, "x.txt", b"data", upload_headers, media_type="not a type")
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["field"] == "header.content-type"
    missing = _put(client, "5f0c4d4e-0000-4000-8000-000000000000", "x.txt", b"d", upload_headers)
    assert missing.status_code == 404
    assert (
        client.get(f"/api/v1/runs/{run}/attachments/none", headers=read_headers).status_code == 404
    )
    assert (
        client.get(
            "/api/v1/runs/5f0c4d4e-0000-4000-8000-000000000000/attachments", headers=read_headers
        ).status_code
        == 404
    )
    assert _rows(engine) == []


def test_tokens_an_agent_attaches_only_to_its_own_runs(client, engine, tokens, upload_headers):
    own = _store_run(client, upload_headers, agent="lab-1")
    others = _store_run(client, upload_headers, agent="lab-2")
    made = client.post(
        "/api/v1/tokens", json={"name": "lab-1 agent", "scope": "agent", "agent": "lab-1"},
        headers=bearer(tokens.admin),
    ).json()  # fmt: skip
    agent = bearer(made["token"])
    assert _put(client, own, "a.txt", b"mine", agent).status_code == 201
    refused = _put(client, others, "a.txt", b"not mine", agent)
    assert refused.status_code == 403
    assert "path.run_uuid" in refused.json()["detail"] and "'lab-2'" in refused.json()["detail"]
    assert _put(client, others, "a.txt", b"x", {}).status_code == 401
    assert _put(client, others, "a.txt", b"x", bearer(tokens.read)).status_code == 403
    assert client.get(f"/api/v1/runs/{own}/attachments").status_code == 401
    with engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(Attachment)) == 1


def test_attachments_on_sqlite(tmp_path: Path) -> None:
    """The embedded default keeps them too (BLOB instead of bytea)."""
    from perfatlas.auth.service import create_token
    from perfatlas.core.db import get_engine, session_factory
    from tests.databases import migrate

    settings = Settings(data_dir=tmp_path / "data")
    migrate(settings.effective_database_url)
    engine = get_engine(settings.effective_database_url)
    with session_factory(engine)() as session:
        token = create_token(session, name="t", scope="upload")[1]
    headers = bearer(token)
    content = os.urandom(5000)
    with TestClient(create_app(settings)) as client:
        run = _store_run(client, headers)
        assert _put(client, run, "raw.bin", content, headers).status_code == 201
        assert _put(client, run, "raw.bin", content, headers).status_code == 200
        assert _put(client, run, "raw.bin", content[:-1], headers).status_code == 409
        got = client.get(f"/api/v1/runs/{run}/attachments/raw.bin", headers=headers)
        assert got.content == content
        assert got.headers["etag"] == f'"{hashlib.sha256(content).hexdigest()}"'
    engine.dispose()


def test_run_export_holds_the_run_and_its_files(client, upload_headers, read_headers):
    import io
    import json
    import zipfile

    run = _store_run(client, upload_headers, workload="partialread")
    bare = _store_run(client, upload_headers)
    files = {"latencies.csv": b"repetition,op\n0,0\n0,1\n", "raw.bin": os.urandom(3000)}
    for name, content in files.items():
        assert _put(client, run, name, content, upload_headers).status_code == 201
    response = client.get(f"/api/v1/runs/{run}/export", headers=read_headers)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/zip"
    assert response.headers["content-disposition"] == f'attachment; filename="run-{run}.zip"'
    with zipfile.ZipFile(io.BytesIO(response.content)) as zf:
        assert sorted(zf.namelist()) == sorted(
            [f"run-{run}/run.json", f"run-{run}/SHA256SUMS"]
            + [f"run-{run}/attachments/{n}" for n in files]
        )
        stored = client.get(f"/api/v1/runs/{run}", headers=read_headers).json()
        assert json.loads(zf.read(f"run-{run}/run.json")) == stored
        for name, content in files.items():
            assert zf.read(f"run-{run}/attachments/{name}") == content
        assert zf.read(f"run-{run}/SHA256SUMS").decode() == "".join(
            f"{hashlib.sha256(files[n]).hexdigest()}  attachments/{n}\n" for n in sorted(files)
        )
    with zipfile.ZipFile(
        io.BytesIO(client.get(f"/api/v1/runs/{bare}/export", headers=read_headers).content)
    ) as zf:
        assert sorted(zf.namelist()) == [f"run-{bare}/SHA256SUMS", f"run-{bare}/run.json"]
    missing = client.get(
        "/api/v1/runs/5f0c4d4e-0000-4000-8000-000000000000/export", headers=read_headers
    )
    assert missing.status_code == 404
    assert client.get(f"/api/v1/runs/{run}/export").status_code == 401
