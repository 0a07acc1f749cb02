"""Answers gzipped when the client accepts it (api/compression.py): a big JSON answer is sent
gzipped and decodes to the bytes sent without; a small one, an attachment (whose ETag is its
stored sha256) and a zip are sent as they are; a CSV download keeps its name."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib

from fastapi.testclient import TestClient

from perfatlas.api.compression import MINIMUM_BYTES
from tests.factories import BASE_TIME, result, run_body

GZIP = {"Accept-Encoding": "gzip"}
IDENTITY = {"Accept-Encoding": "identity"}


def _raw(client: TestClient, url: str, headers: dict[str, str], **params: object) -> tuple:
    """The status, the headers and the bytes as sent (not decoded by the client)."""
    with client.stream("GET", url, headers=headers, params=params) as response:
        return response.status_code, response.headers, b"".join(response.iter_raw())


def test_big_json_is_gzipped_and_small_is_not(client, upload_headers, read_headers):
    runs = [
        run_body(started_at=(BASE_TIME + dt.timedelta(hours=i)).isoformat(),
                 labels={"fs_version": f"6.{i // 10}"},
                 results=[result("create.ops_per_s", [1000.0 + i, 1001.5 + i, 999.25 + i])])
        for i in range(60)
    ]  # fmt: skip
    answer = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert answer.status_code == 200, answer.text
    (series,) = client.get("/api/v1/series", headers=read_headers).json()["items"]
    url = f"/api/v1/series/{series['id']}/points"
    status, plain_headers, plain = _raw(client, url, {**read_headers, **IDENTITY})
    assert status == 200 and "content-encoding" not in plain_headers
    assert len(plain) > 3 * MINIMUM_BYTES
    status, headers, sent = _raw(client, url, {**read_headers, **GZIP})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert "accept-encoding" in headers["vary"].lower()
    assert int(headers["content-length"]) == len(sent) < len(plain) / 2
    assert gzip.decompress(sent) == plain
    # The same points as values: the answer is the points uploaded, whatever its encoding.
    assert client.get(url, headers={**read_headers, **GZIP}).json()["value"] == [
        1000.0 + i for i in range(60)
    ]
    # A small answer (one point, a few hundred bytes) is sent as it is.
    status, headers, small = _raw(client, url, {**read_headers, **GZIP}, limit=1, fields="p5")
    assert status == 200 and len(small) < MINIMUM_BYTES
    assert "content-encoding" not in headers and int(headers["content-length"]) == len(small)


def test_downloads_keep_their_headers(client, upload_headers, read_headers):
    body = run_body(results=[result("create.ops_per_s", [1.0, 2.0, 3.0])])
    assert client.post("/api/v1/runs", json=body, headers=upload_headers).status_code == 201
    run = body["uuid"]
    content = b"latency_us\n" + b"".join(f"{i % 97}\n".encode() for i in range(5000))
    put = client.put(
        f"/api/v1/runs/{run}/attachments/lat.csv", content=content,
        headers={**upload_headers, "Content-Type": "text/csv"},
    )  # fmt: skip
    assert put.status_code == 201, put.text
    # An attachment, compressible and big, is sent as stored: its ETag names these bytes.
    status, headers, sent = _raw(client, f"/api/v1/runs/{run}/attachments/lat.csv",
                                 {**read_headers, **GZIP})  # fmt: skip
    assert status == 200 and sent == content and "content-encoding" not in headers
    assert headers["etag"] == f'"{hashlib.sha256(content).hexdigest()}"'
    assert int(headers["content-length"]) == len(content)
    assert headers["content-disposition"].startswith("attachment")
    # The run's zip is sent as it is too (a zip is compressed already).
    status, headers, sent = _raw(client, f"/api/v1/runs/{run}/export", {**read_headers, **GZIP})
    assert status == 200 and "content-encoding" not in headers and sent[:2] == b"PK"
    assert headers["content-disposition"] == f'attachment; filename="run-{run}.zip"'
    # A CSV export big enough is gzipped and keeps its name.
    params = {"workload": "smallfile", "metric": "create.ops_per_s", "x": "time"}
    _, plain_headers, plain = _raw(client, "/api/v1/explore.csv", {**read_headers, **IDENTITY},
                                   **params)  # fmt: skip
    _, headers, sent = _raw(client, "/api/v1/explore.csv", {**read_headers, **GZIP}, **params)
    assert headers["content-disposition"] == plain_headers["content-disposition"]
    assert headers["content-disposition"].startswith('attachment; filename="smallfile-')
    if len(plain) >= MINIMUM_BYTES:
        assert headers["content-encoding"] == "gzip" and gzip.decompress(sent) == plain
    else:
        assert "content-encoding" not in headers and sent == plain
