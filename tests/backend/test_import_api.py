"""The importers over HTTP: real fio and bonnie++ output becomes runs, re-imports are retries."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_fio_json_body_with_query_labels(client, upload_headers, read_headers):
    raw = (FIXTURES / "fio" / "randrw-2jobs.json").read_bytes()
    jobs = json.loads(raw)["jobs"]
    params = {
        "agent": "host-a",
        "target": "/mnt/tmpfs",
        "label": ["fs_version=6.1", "mode:connected"],
    }
    response = client.post(
        "/api/v1/import/fio", params=params, content=raw,
        headers={**upload_headers, "Content-Type": "application/json"},
    )  # fmt: skip
    assert response.status_code == 200, response.text
    assert response.json()["created"] == len(jobs) == 2
    again = client.post(
        "/api/v1/import/fio", params=params, content=raw,
        headers={**upload_headers, "Content-Type": "application/json"},
    )  # fmt: skip
    assert again.json() == {**response.json(), "created": 0, "existing": 2, "runs": [
        {**r, "created": False} for r in response.json()["runs"]]}  # fmt: skip

    runs = client.get("/api/v1/runs", params={"workload": "fio"}, headers=read_headers).json()[
        "items"
    ]
    assert {r["labels"]["fs_version"] for r in runs} == {"6.1"}
    assert {r["labels"]["mode"] for r in runs} == {"connected"}
    assert {r["agent"] for r in runs} == {"host-a"}
    read_job = next(j for j in jobs if j["read"]["io_bytes"] > 0)
    stored = [client.get(f"/api/v1/runs/{r['uuid']}", headers=read_headers).json() for r in runs]
    reader = next(s for s in stored if s["parameters"].get("jobname") == read_job["jobname"])
    metrics = {m["metric"]: m for m in reader["results"]}
    assert metrics["read.bw"]["value"] == read_job["read"]["bw"]
    assert metrics["read.bw"]["unit"] == "KiB/s"
    assert metrics["read.iops"]["value"] == read_job["read"]["iops"]


def test_bonnie_csv_as_a_form_upload(client, upload_headers, read_headers):
    path = FIXTURES / "bonnie" / "ext4-direct-x2.csv"
    response = client.post(
        "/api/v1/import/bonnie",
        files={"file": (path.name, path.read_bytes(), "text/csv")},
        data={"target": "/var/tmp/bon", "labels": "fs=ext4,disk=virtio"},
        headers=upload_headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["created"] == 2
    runs = client.get("/api/v1/runs", params={"workload": "bonnie"}, headers=read_headers).json()[
        "items"
    ]
    assert {r["target"] for r in runs} == {"/var/tmp/bon"}
    assert all(r["labels"] == {"fs": "ext4", "disk": "virtio"} for r in runs)


def test_bad_imports_name_the_problem_and_write_nothing(client, upload_headers, read_headers):
    cases = [
        ("/api/v1/import/fio", b"this is not fio output", "file"),
        ("/api/v1/import/fio", b"", "body"),
        ("/api/v1/import/bonnie", b"1.98,2.00a,host,garbage", "file"),
    ]
    for path, body, field in cases:
        response = client.post(
            path, content=body, headers={**upload_headers, "Content-Type": "text/plain"}
        )
        assert response.status_code == 422, (path, body)
        assert response.json()["errors"][0]["field"] == field
        assert response.json()["detail"].startswith(f"{field}: ")
    bad_label = client.post(
        "/api/v1/import/fio", params={"label": "novalue"},
        content=(FIXTURES / "fio" / "write-fsync.json").read_bytes(), headers=upload_headers,
    )  # fmt: skip
    assert bad_label.status_code == 422 and bad_label.json()["errors"][0]["field"] == "label"
    assert client.get("/api/v1/runs", headers=read_headers).json()["items"] == []


def test_imports_need_an_upload_token(client, tokens):
    raw = (FIXTURES / "fio" / "write-fsync.json").read_bytes()
    assert client.post("/api/v1/import/fio", content=raw).status_code == 401
    read_only = {"Authorization": f"Bearer {tokens.read}"}
    assert client.post("/api/v1/import/fio", content=raw, headers=read_only).status_code == 403
