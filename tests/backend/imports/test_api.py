"""The importers over HTTP: real fio and bonnie++ output becomes runs, re-imports are retries."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


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
    runs = client.get("/api/v1/runs", params={"workload": "seqio"}, headers=read_headers).json()[
        "items"
    ]
    assert {r["target"] for r in runs} == {"/var/tmp/bon"}
    assert all(r["labels"] == {"fs": "ext4", "disk": "virtio", "source": "bonnie++"} for r in runs)


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


def _stored(client, read_headers, workload: str) -> list[dict]:
    items = client.get("/api/v1/runs", params={"workload": workload}, headers=read_headers)
    return [
        client.get(f"/api/v1/runs/{r['uuid']}", headers=read_headers).json()
        for r in items.json()["items"]
    ]


def test_imported_durability_is_unknown_unless_the_upload_gives_it(
    client, upload_headers, read_headers
):
    raw = (FIXTURES / "bonnie" / "ext4-direct-x2.csv").read_bytes()
    plain = client.post(
        "/api/v1/import/bonnie", params={"agent": "host-a", "target": "/mnt/ext4"}, content=raw,
        headers={**upload_headers, "Content-Type": "text/csv"},
    )  # fmt: skip
    assert plain.status_code == 200, plain.text
    runs = _stored(client, read_headers, "seqio")
    # bonnie++ never drops the page cache before it reads: its cold_method is none.
    assert runs and all(
        (r["fsync_policy"], r["write_cache"], r["cold_method"]) == ("unknown", "unknown", "none")
        and (r["flush_to_device"], r["memory_backed"], r["sync_mount"]) == (None, None, None)
        for r in runs
    )
    # fio's job options say its fsync policy and O_DIRECT; what the upload adds wins, the rest
    # stays unknown.
    fio = (FIXTURES / "fio" / "write-fsync.json").read_bytes()
    given = client.post(
        "/api/v1/import/fio",
        params={"agent": "host-b", "target": "/mnt/xfs", "write_cache": "write through",
                "flush_to_device": "false"},
        content=fio, headers={**upload_headers, "Content-Type": "application/json"},
    )  # fmt: skip
    assert given.status_code == 200, given.text
    (run,) = _stored(client, read_headers, "fio")
    assert run["fsync_policy"] == "file"  # from the job's fsync=1
    assert (run["write_cache"], run["flush_to_device"]) == ("write through", False)
    assert run["cold_method"] == "unknown" and run["memory_backed"] is None
    bad = client.post(
        "/api/v1/import/fio", params={"agent": "h", "write_cache": "fast"}, content=fio,
        headers={**upload_headers, "Content-Type": "application/json"},
    )  # fmt: skip
    assert bad.status_code == 422 and "write_cache" in bad.text


def test_an_agent_token_imports_only_as_its_agent(client, tokens, engine):
    from sqlalchemy import func, select

    from perfatlas.runs.models import Run

    made = client.post(
        "/api/v1/tokens", json={"name": "lab-1", "scope": "agent", "agent": "lab-1"},
        headers={"Authorization": f"Bearer {tokens.admin}"},
    ).json()  # fmt: skip
    headers = {"Authorization": f"Bearer {made['token']}", "Content-Type": "application/json"}
    fio = (FIXTURES / "fio" / "write-fsync.json").read_bytes()
    other = client.post(
        "/api/v1/import/fio", params={"agent": "lab-2"}, content=fio, headers=headers
    )
    assert other.status_code == 403 and "query.agent" in other.json()["detail"]
    with engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(Run)) == 0
    own = client.post("/api/v1/import/fio", params={"agent": "lab-1"}, content=fio, headers=headers)
    assert own.status_code == 200, own.text


def test_the_unknown_defaults_stay_out_of_an_imports_body(client, upload_headers, engine):
    """An import stored before durability defaulted to unknown is retried by importing the file
    again: its body hash is the parsed file's, so the re-import stays a retry."""
    from sqlalchemy import select

    from perfatlas.imports.fio import read_fio
    from perfatlas.runs.models import Run
    from perfatlas.runs.service import body_hash

    raw = (FIXTURES / "fio" / "write-fsync.json").read_bytes()
    params = {"agent": "host-a", "target": "/mnt/ext4"}
    response = client.post(
        "/api/v1/import/fio", params=params, content=raw,
        headers={**upload_headers, "Content-Type": "application/json"},
    )  # fmt: skip
    assert response.status_code == 200, response.text
    parsed = read_fio(raw, agent="host-a", target="/mnt/ext4", labels={}).runs
    with engine.connect() as conn:
        stored = dict(conn.execute(select(Run.uuid, Run.body_hash)).all())
        facts = conn.execute(select(Run.write_cache, Run.cold_method)).all()
    assert stored == {run.uuid: body_hash(run) for run in parsed}
    assert all(run.write_cache is None for run in parsed)
    assert [tuple(f) for f in facts] == [("unknown", "unknown")]


def test_a_bonnie_text_table_imports_once_and_bad_text_writes_nothing(
    client, upload_headers, read_headers, engine
):
    """Seed 001's four Bonnie tables: four runs; the same upload again is a retry."""
    from sqlalchemy import func, select

    from perfatlas.runs.models import Result, Run

    seed = (FIXTURES / "bonnie" / "text" / "seed001-coda-nfs.txt").read_bytes()
    headers = {**upload_headers, "Content-Type": "text/plain"}
    bad = seed.replace(b"1629  2.3", b"1629  x.3")
    refused = client.post("/api/v1/import/bonnie", params={"agent": "coda-1"}, content=bad,
                          headers=headers)  # fmt: skip
    assert refused.status_code == 422
    assert refused.json()["errors"][0]["field"] == "file"
    assert "line 6: 'x.3' where the Block output %CPU belongs is not a number" in refused.text
    # Bounded: a table of 1001 rows is refused whole.
    lines = seed.decode().splitlines()
    huge = "\n".join(lines[:6] + [lines[5]] * 1000)
    too_many = client.post("/api/v1/import/bonnie", content=huge.encode(), headers=headers)
    assert too_many.status_code == 422
    assert "1001 rows of Bonnie tables" in too_many.json()["detail"]
    with engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(Run)) == 0

    params = {"agent": "coda-1", "target": "/coda/bench", "label": "source=seed001"}
    first = client.post("/api/v1/import/bonnie", params=params, content=seed, headers=headers)
    assert first.status_code == 200, first.text
    assert (first.json()["created"], first.json()["existing"]) == (4, 0)
    again = client.post("/api/v1/import/bonnie", params=params, content=seed, headers=headers)
    assert (again.json()["created"], again.json()["existing"]) == (0, 4)
    assert [r["uuid"] for r in again.json()["runs"]] == [r["uuid"] for r in first.json()["runs"]]
    with engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(Run)) == 4
        stored = dict(
            conn.execute(
                select(Result.metric, Result.value)
                .join(Run, Run.id == Result.run_id)
                .where(Run.uuid == first.json()["runs"][3]["uuid"])  # NFS, 30 MB
            ).all()
        )
    # 115432 K/sec, 28403 K/sec, 2790.6 seeks/s in the seed.
    assert stored["read.mb_per_s"] == 115432 / 976.5625
    assert stored["getc.mb_per_s"] == 28403 / 976.5625
    assert stored["seeks.per_s"] == 2790.6
    run = client.get(f"/api/v1/runs/{first.json()['runs'][3]['uuid']}", headers=read_headers)
    assert run.json()["meta"]["caption"] == "NFS filesystem, 30 MB test file"
    assert (run.json()["fsync_policy"], run.json()["write_cache"]) == ("unknown", "unknown")


def test_a_bonnie_import_and_a_seqio_run_share_compare_rows(client, upload_headers, read_headers):
    """bonnie++'s columns get seqio's names and units, so one compare table holds both."""
    from tests.factories import result, run_body

    path = FIXTURES / "bonnie" / "ext4-direct-x2.csv"
    fields = path.read_text().splitlines()[1].split(",")  # put_block 194982, rewrite 277259
    imported = client.post(
        "/api/v1/import/bonnie", params={"agent": "box", "target": "/mnt/ext4"},
        content=path.read_bytes(), headers={**upload_headers, "Content-Type": "text/csv"},
    )  # fmt: skip
    assert imported.status_code == 200, imported.text
    seqio = run_body(
        workload="seqio", agent="box", target="/mnt/ext4",
        parameters={"filesize": 268435456, "blocksize": 1048576, "direct": True, "seeks": 2000},
        results=[result("write.mb_per_s", [180.0, 185.0, 190.0], unit="MB/s"),
                 result("rewrite.mb_per_s", [250.0, 260.0, 270.0], unit="MB/s"),
                 result("seeks.per_s", [9000.0, 9100.0, 9200.0], unit="seeks/s")],
    )  # fmt: skip
    assert client.post("/api/v1/runs", json=seqio, headers=upload_headers).status_code == 201
    bonnie_uuid = imported.json()["runs"][0]["uuid"]
    table = client.get(
        "/api/v1/compare", params={"runs": [bonnie_uuid, seqio["uuid"]]}, headers=read_headers
    ).json()
    rows = {m["metric"]: m for m in table["metrics"]}
    for metric, column, unit, divisor in [
        ("write.mb_per_s", 11, "MB/s", 1e6 / 1024),
        ("rewrite.mb_per_s", 13, "MB/s", 1e6 / 1024),
        ("seeks.per_s", 19, "seeks/s", 1.0),
    ]:
        assert rows[metric]["unit"] == unit
        assert rows[metric]["values"][0] == float(fields[column]) / divisor
        assert rows[metric]["values"][1] is not None
