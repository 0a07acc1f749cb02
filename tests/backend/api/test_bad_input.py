"""No input gets a 5xx, and nothing is half-written: each bad input of issue 9 answers a 4xx
that names the field, on PostgreSQL, and leaves every table as it was."""

from __future__ import annotations

import base64
import copy
import datetime as dt
import json
import statistics
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from perfatlas.auth.service import create_token
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.errors import ErrorBody
from perfatlas.main import create_app
from perfatlas.rollups.service import fold_pending
from tests.conftest import IDLE_QUEUE, REDIS_URL
from tests.databases import migrate
from tests.factories import result, run_body

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
COUNTED = ("runs", "results", "series", "agents", "environments", "notification_channels",
           "alert_rules")  # fmt: skip
NOW = dt.datetime.now(dt.UTC)


def counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {table: conn.scalar(text(f"SELECT count(*) FROM {table}")) for table in COUNTED}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# (name, body overrides, the field the 422 names). Each is sent alone to POST /runs and as the
# second run of a batch after a valid one (the field then under body.runs[1]).
RUN_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("nul agent", {"agent": "lab\x00-1"}, "agent"),
    ("nul target", {"target": "/mnt/\x00ext4"}, "target"),
    ("nul agent_version", {"agent_version": "0.1\x00"}, "agent_version"),
    ("nul label value", {"labels": {"fs_version": "6.1\x00"}}, "labels.fs_version"),
    ("nul parameter", {"parameters": {"size": "30\x00B"}}, "parameters.size"),
    ("nul environment", {"environment": {"kernel": "6.1\x00"}}, "environment.kernel"),
    ("nul environment deep", {"environment": {"tools": {"fio": ["3.3", "a\x00"]}}},
     "environment.tools.fio[1]"),
    ("nul environment key", {"environment": {"ke\x00y": 1}}, "environment.ke\\u0000y"),
    ("nul meta", {"meta": {"log": {"line": "x\x00"}}}, "meta.log.line"),
    ("cores 2**40", {"environment": {"cores": 2**40}}, "environment.cores"),
    ("cores 2**64", {"environment": {"cores": 2**64}}, "environment.cores"),
    ("cores as text", {"environment": {"cores": "99999999999"}}, "environment.cores"),
    ("ram_bytes 2**64", {"environment": {"ram_bytes": 2**64}}, "environment.ram_bytes"),
    ("environment 2**64 deep", {"environment": {"disks": [{"size": 2**64}]}},
     "environment.disks[0].size"),
    ("meta -2**64", {"meta": {"x": -(2**64)}}, "meta.x"),
    ("meta not finite", {"meta": {"x": float("inf")}}, "meta.x"),
    ("meta 1e20 (JSONB gives it back as an integer)", {"meta": {"x": [1e20]}}, "meta.x[0]"),
    ("parameter 1e308", {"parameters": {"size": 1e308}}, "parameters.size"),
    ("parameter 2**64", {"parameters": {"nfiles": 2**64}}, "parameters.nfiles"),
    ("job_id 2**64", {"job_id": 2**64}, "job_id"),
    ("started_at 9999", {"started_at": "9999-12-31T23:59:59Z", "finished_at": None}, "started_at"),
    ("started_at 0001 with offset",
     {"started_at": "0001-01-01T00:00:00+01:00", "finished_at": None}, "started_at"),
    ("started_at 9999 with offset",
     {"started_at": "9999-12-31T23:59:59-01:00", "finished_at": None}, "started_at"),
    ("started_at before 1970", {"started_at": "1969-12-31T23:59:59Z", "finished_at": None},
     "started_at"),
    ("started_at two days ahead",
     {"started_at": (NOW + dt.timedelta(days=2)).isoformat(), "finished_at": None}, "started_at"),
    ("finished_at 9999", {"finished_at": "9999-12-31T23:59:59Z"}, "finished_at"),
    ("samples overflow", {"results": [result("create.ops_per_s", [1e308, 1e308])]},
     "results[0].samples[0]"),
    ("value 1e308", {"results": [result("create.ops_per_s", [1.0], value=1e308)]},
     "results[0].value"),
]  # fmt: skip


def _json(body: Any) -> str:
    # json.dumps writes inf as Infinity, which pydantic reads as inf: the server must refuse it.
    return json.dumps(body)


def _assert_names(response: Any, field: str) -> None:
    assert response.status_code == 422, response.text
    error = response.json()
    ErrorBody.model_validate(error)
    assert isinstance(error["detail"], str)
    assert error["errors"][0]["field"] == field, error
    assert field in error["detail"]


@pytest.mark.parametrize(("name", "overrides", "field"), RUN_CASES, ids=[c[0] for c in RUN_CASES])
def test_bad_run_is_refused_naming_the_field_and_nothing_is_written(
    client, upload_headers, engine, name, overrides, field
):
    good = run_body()
    assert client.post("/api/v1/runs", json=good, headers=upload_headers).status_code == 201
    before = counts(engine)
    headers = {**upload_headers, "Content-Type": "application/json"}

    alone = client.post("/api/v1/runs", content=_json(run_body(**overrides)), headers=headers)
    _assert_names(alone, f"body.{field}")
    batch = {"runs": [run_body(), run_body(**overrides)]}
    in_batch = client.post("/api/v1/runs/batch", content=_json(batch), headers=headers)
    _assert_names(in_batch, f"body.runs[1].{field}")
    assert counts(engine) == before


def test_bodies_that_cannot_be_parsed_are_refused(client, upload_headers, engine):
    before = counts(engine)
    headers = {**upload_headers, "Content-Type": "application/json"}
    deep = client.post("/api/v1/runs", content=nested(10_000), headers=headers)
    assert deep.status_code == 422 and deep.json()["errors"][0]["field"] == "body"
    deep_meta = _json(run_body())[:-1] + ', "meta": {"x": ' + nested(10_000) + "}}"
    deep_meta = deep_meta.replace('"meta": {}, ', "")
    response = client.post("/api/v1/runs", content=deep_meta, headers=headers)
    assert response.status_code == 422, response.text
    assert counts(engine) == before


def test_ids_beyond_the_database_in_paths_and_queries(client, tokens, engine):
    admin = {"Authorization": f"Bearer {tokens.admin}"}
    before = counts(engine)
    for big in (2**31, 2**40, 2**64):
        for method, path in [
            ("GET", f"/api/v1/series/{big}/points"),
            ("GET", f"/api/v1/series/{big}/change-points"),
            ("GET", f"/api/v1/alerts/{big}"),
            ("POST", f"/api/v1/alerts/{big}/status"),
            ("GET", f"/api/v1/incidents/{big}"),
            ("POST", f"/api/v1/incidents/{big}/status"),
            ("PUT", f"/api/v1/alert-rules/{big}"),
            ("DELETE", f"/api/v1/alert-rules/{big}"),
            ("PATCH", f"/api/v1/channels/{big}"),
            ("DELETE", f"/api/v1/channels/{big}"),
            ("POST", f"/api/v1/channels/{big}/test"),
        ]:
            body = {"status": "acknowledged"} if "status" in path else {"name": "x"}
            response = client.request(method, path, json=body, headers=admin)
            assert response.status_code == 404, (method, path, response.text)
            assert response.json()["code"] == "not_found"
        for path, field in [
            (f"/api/v1/series?cursor={big}", "query.cursor"),
            (f"/api/v1/alerts?series_id={big}", "query.series_id"),
            (f"/api/v1/alerts?incident_id={-big - 1}", "query.incident_id"),
            (f"/api/v1/notifications?channel={big}", "query.channel"),
        ]:
            _assert_names(client.get(path, headers=admin), field)
    rule = client.post("/api/v1/alert-rules", json={"name": "r", "series_id": 2**40}, headers=admin)
    assert 400 <= rule.status_code < 500, rule.text
    assert counts(engine) == before


def _cursor(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode()


def test_bad_cursors_and_times_in_queries(client, read_headers):
    for cursor in ["-1", _cursor("2026-01-01T00:00:00+00:00|-5"),
                   _cursor("2026-01-01T00:00:00+00:00|99999999999999999999"),
                   _cursor("0001-01-01T00:00:00+01:00|5")]:  # fmt: skip
        for path in ("/api/v1/runs", "/api/v1/alerts", "/api/v1/incidents"):
            _assert_names(
                client.get(path, params={"cursor": cursor}, headers=read_headers), "cursor"
            )
    _assert_names(client.get("/api/v1/series?cursor=-1", headers=read_headers), "query.cursor")
    for name in ("since", "until"):
        for stamp in ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"):
            response = client.get("/api/v1/runs", params={name: stamp}, headers=read_headers)
            _assert_names(response, f"query.{name}")
            response = client.get(
                "/api/v1/series/1/points", params={name: stamp}, headers=read_headers
            )
            _assert_names(response, f"query.{name}")
    for stamp in ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "yesterday"):
        response = client.get(
            "/api/v1/series/1/change-points", params={"until": stamp}, headers=read_headers
        )
        _assert_names(response, "query.until")


def test_nul_in_any_query_or_path(client, read_headers, tokens):
    admin = {"Authorization": f"Bearer {tokens.admin}"}
    for path, field in [
        ("/api/v1/runs?agent=lab%001", "query.agent"),
        ("/api/v1/runs?label=fs_version:%00", "query.label"),
        ("/api/v1/runs?param=size%00:1", "query.param"),
        ("/api/v1/series?workload=%00", "query.workload"),
        ("/api/v1/explore?workload=smallfile&metric=a%00", "query.metric"),
        ("/api/v1/compare?runs=%00", "query.runs"),
        ("/api/v1/alerts?agent=%00", "query.agent"),
        ("/api/v1/catalog?workload=%00", "query.workload"),
    ]:
        _assert_names(client.get(path, headers=admin), field)
    assert client.get("/api/v1/runs/%00", headers=read_headers).status_code == 404
    assert client.get("/%00", headers=read_headers).status_code == 404


def test_nul_in_channels_and_rules(client, tokens, engine):
    admin = {"Authorization": f"Bearer {tokens.admin}"}
    before = counts(engine)
    for body, field in [
        ({"name": "ops", "kind": "webhook", "target": "https://hooks.example/a\x00"}, "body.target"),
        ({"name": "ops", "kind": "email", "target": "a@example.org,\x00b@example.org"},
         "body.target"),
        ({"name": "o\x00ps", "kind": "email", "target": "a@example.org"}, "body.name"),
    ]:  # fmt: skip
        _assert_names(client.post("/api/v1/channels", json=body, headers=admin), field)
    channel = client.post(
        "/api/v1/channels", json={"name": "ops", "kind": "email", "target": "a@example.org"},
        headers=admin,
    )  # fmt: skip
    assert channel.status_code == 201
    changed = client.patch(
        f"/api/v1/channels/{channel.json()['id']}", json={"target": "b@\x00"}, headers=admin
    )
    _assert_names(changed, "body.target")
    rule = client.post("/api/v1/alert-rules", json={"name": "r\x00"}, headers=admin)
    _assert_names(rule, "body.name")
    rule = client.put("/api/v1/alert-rules/1", json={"name": "r", "agent": "\x00"}, headers=admin)
    _assert_names(rule, "body.agent")
    for path in ("/api/v1/alerts/1/status", "/api/v1/incidents/1/status"):
        triage = client.post(path, json={"status": "expected", "note": "n\x00"}, headers=admin)
        _assert_names(triage, "body.note")
    assert counts(engine) == {**before, "notification_channels": 1}


# ---- imports ------------------------------------------------------------------------------


def _fio(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc).encode()


def _import(client, headers, kind: str, data: bytes, **params: Any) -> Any:
    return client.post(
        f"/api/v1/import/{kind}", content=data, params=params,
        headers={**headers, "Content-Type": "text/plain"},
    )  # fmt: skip


def test_bad_imports_are_refused_and_write_nothing(client, upload_headers, engine):
    fio_doc = json.loads((FIXTURES / "fio" / "randrw-2jobs.json").read_text())
    bonnie_line = (FIXTURES / "bonnie" / "tmpfs-quick.csv").read_text().strip().splitlines()[-1]
    nul_job = copy.deepcopy(fio_doc)
    nul_job["jobs"][1]["jobname"] = "rand\x00write"
    far_time = copy.deepcopy(fio_doc)
    far_time["timestamp"] = 1e20
    far_time.pop("timestamp_ms", None)
    many_jobs = {"jobs": [{"jobname": f"job{i}"} for i in range(1001)]}
    fields = bonnie_line.split(",")
    fields[2] = "tmpfs\x00host"
    before = counts(engine)
    cases = [
        ("fio", _fio(nul_job), "job 2", "parameters.jobname"),
        ("fio", b'{"jobs": [{"jobname": "x", "job options": ' + nested(10_000).encode() + b"}]}",
         "nested too deeply", ""),
        ("fio", _fio(far_time), "timestamp", ""),
        ("fio", _fio(many_jobs), "1001 fio jobs", "at most 1000"),
        ("bonnie", ",".join(fields).encode(), "line 1", "hostname"),
        ("bonnie", "\n".join([bonnie_line] * 6_000).encode(), "6000 bonnie++ CSV lines",
         "at most 1000"),
    ]  # fmt: skip
    for kind, data, *words in cases:
        response = _import(client, upload_headers, kind, data)
        assert response.status_code == 422, (kind, words, response.text)
        assert response.json()["errors"][0]["field"] == "file"
        assert all(word in response.json()["detail"] for word in words), response.text
    raw = (FIXTURES / "fio" / "write-fsync.json").read_bytes()
    for stamp in ("9999-12-31T23:59:59Z", "1960-01-01T00:00:00Z", "0001-01-01T00:00:00+01:00"):
        response = _import(client, upload_headers, "fio", raw, started_at=stamp)
        _assert_names(response, "query.started_at")
    _assert_names(_import(client, upload_headers, "fio", raw, agent="a\x00"), "query.agent")
    assert counts(engine) == before


def test_a_bonnie_file_of_10000_lines_is_refused_whole(settings, upload_headers, engine):
    line = (FIXTURES / "bonnie" / "tmpfs-quick.csv").read_text().strip().splitlines()[-1]
    data = "\n".join([line] * 10_000).encode()  # 3 MB: past the tests' usual 2 MiB limit
    roomy = settings.model_copy(update={"max_body_bytes": 8 * 1024 * 1024})
    before = counts(engine)
    with TestClient(create_app(roomy), raise_server_exceptions=False) as client:
        response = _import(client, upload_headers, "bonnie", data)
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["field"] == "file"
    assert "10000 bonnie++ CSV lines" in response.json()["detail"]
    assert "at most 1000 runs (the batch limit)" in response.json()["detail"]
    assert counts(engine) == before


def test_fio_values_that_are_not_numbers_are_reported(client, upload_headers, read_headers):
    doc = json.loads((FIXTURES / "fio" / "randrw-2jobs.json").read_text())
    reader = next(j for j in doc["jobs"] if j["read"]["io_bytes"] > 0)
    writer = next(j for j in doc["jobs"] if j["write"]["io_bytes"] > 0)
    reader["read"]["bw"] = "fast"
    reader["read"]["clat_ns"]["percentile"]["95.000000"] = None  # fio's "nan", made JSON
    writer["write"]["iops"] = [1, 2]
    expected = [
        {"job": reader["jobname"], "field": "read.bw", "value": '"fast"'},
        {"job": reader["jobname"], "field": "read.clat_ns.percentile.95.000000", "value": "null"},
        {"job": writer["jobname"], "field": "write.iops", "value": "[1, 2]"},
    ]
    response = _import(client, upload_headers, "fio", _fio(doc), agent="a", target="/t")
    assert response.status_code == 200, response.text
    assert sorted(response.json()["skipped"], key=str) == sorted(expected, key=str)
    stored = {}
    for item in response.json()["runs"]:
        run = client.get(f"/api/v1/runs/{item['uuid']}", headers=read_headers).json()
        stored[run["parameters"]["jobname"]] = {r["metric"]: r["value"] for r in run["results"]}
    assert "read.bw" not in stored[reader["jobname"]]
    assert "read.clat_p95" not in stored[reader["jobname"]]
    assert stored[reader["jobname"]]["read.iops"] == reader["read"]["iops"]
    assert "write.iops" not in stored[writer["jobname"]]
    assert stored[writer["jobname"]]["write.bw"] == writer["write"]["bw"]


def test_bonnie_import_twice_is_a_retry(client, upload_headers, read_headers, engine):
    data = (FIXTURES / "bonnie" / "ext4-direct-x2.csv").read_bytes()
    first = _import(client, upload_headers, "bonnie", data, agent="lab-1", target="/mnt/b")
    assert first.status_code == 200, first.text
    assert first.json()["created"] == 2
    listed = client.get("/api/v1/runs", params={"workload": "seqio"}, headers=read_headers)
    times = {r["uuid"]: r["started_at"] for r in listed.json()["items"]}
    before = counts(engine)
    second = _import(client, upload_headers, "bonnie", data, agent="lab-1", target="/mnt/b")
    assert second.status_code == 200, second.text
    assert second.json()["created"] == 0 and second.json()["existing"] == 2
    assert [r["uuid"] for r in second.json()["runs"]] == [r["uuid"] for r in first.json()["runs"]]
    assert counts(engine) == before
    listed = client.get("/api/v1/runs", params={"workload": "seqio"}, headers=read_headers)
    assert {r["uuid"]: r["started_at"] for r in listed.json()["items"]} == times
    # With a time given, the runs are the same runs (same uuids) at another time: a conflict.
    again = _import(client, upload_headers, "bonnie", data, agent="lab-1", target="/mnt/b",
                    started_at="2026-01-01T00:00:00Z")  # fmt: skip
    assert again.status_code == 409 and counts(engine) == before


# ---- the token before the body --------------------------------------------------------------

WRITES = [
    ("POST", "/api/v1/runs", "upload"),
    ("POST", "/api/v1/runs/batch", "upload"),
    ("POST", "/api/v1/import/fio", "upload"),
    ("POST", "/api/v1/import/bonnie", "upload"),
    ("POST", "/api/v1/alert-rules", "admin"),
    ("POST", "/api/v1/channels", "admin"),
]


def test_the_token_is_checked_before_a_large_body_is_read(client, tokens, engine):
    # 9 MB that is not JSON: parsed, it would be a 422 (or a 413 past the 2 MiB test limit).
    junk = b"{" + b"x" * (9 * 1024 * 1024)
    before = counts(engine)
    for method, path, scope in WRITES:
        none = client.request(method, path, content=junk)
        assert none.status_code == 401, (path, none.text)
        assert none.headers["www-authenticate"] == "Bearer"
        unknown = client.request(method, path, content=junk, headers={"Authorization": "Bearer x"})
        assert unknown.status_code == 401, (path, unknown.text)
        weak = tokens.read if scope == "upload" else tokens.upload
        low = client.request(
            method, path, content=junk, headers={"Authorization": f"Bearer {weak}"}
        )
        assert low.status_code == 403, (path, low.text)
        ErrorBody.model_validate(low.json())
        good = getattr(tokens, scope)
        full = client.request(
            method, path, content=junk, headers={"Authorization": f"Bearer {good}"}
        )
        assert full.status_code == 413, (path, full.text)
    assert counts(engine) == before


# ---- the OpenAPI document -------------------------------------------------------------------


def test_openapi_lists_every_error_with_its_real_shape(client, upload_headers):
    doc = client.get("/openapi.json").json()
    ref = {"$ref": "#/components/schemas/ErrorBody"}
    error = doc["components"]["schemas"]["ErrorBody"]
    assert error["properties"]["detail"]["type"] == "string"
    assert error["required"] == ["detail", "code"]
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            expected = {"422", "503"}  # 503: the database does not answer
            if path not in ("/api/v1/health", "/api/v1/ready"):
                expected.add("401")
            if (
                method != "get"
                and path not in ("/api/v1/agents/enroll", "/api/v1/schedules/preview")
            ) or path in (
                "/api/v1/channels",
                "/api/v1/notifications",
                "/api/v1/tokens",
            ):
                expected.add("403")  # upload, admin or agent scope (enroll takes no token,
                # a schedule preview only reads)
            if "{" in path:
                expected.add("404")
            if method in ("post", "put", "patch"):
                expected.add("413")
            if operation["operationId"] in {
                "create_run",
                "create_runs_batch",
                "import_fio",
                "import_bonnie",
                "create_channel",
                "update_channel",
                "enroll_agent",  # the name is taken
                "report_job_progress",  # lease_lost
                "complete_job",
                "release_job",
                "cancel_job",  # final already
                "create_schedule",
                "update_schedule",
                "create_report",  # the slug is taken
                "create_reference",  # a column stored with other values
                "put_attachment",  # the name holds other content
            }:
                expected.add("409")  # fmt: skip
            errors = {code for code in responses if code.startswith(("4", "5"))}
            assert errors == expected, (method, path, errors)
            for code in expected:
                own = code == "503" and path in ("/api/v1/health", "/api/v1/ready")
                shape = responses[code]["content"]["application/json"]["schema"]
                assert (shape != ref) if own else (shape == ref), (path, code)
    # What the server sends is what the document says.
    sent = client.post("/api/v1/runs", json={"uuid": "x"}, headers=upload_headers).json()
    assert set(sent) <= set(error["properties"]) and isinstance(sent["detail"], str)


# ---- a stored run never makes a series unreadable -------------------------------------------


def test_extreme_but_accepted_runs_stay_readable(client, upload_headers, read_headers, engine):
    check_extremes_readable(client, upload_headers, read_headers)
    assert counts(engine)["runs"] == 4


def check_extremes_readable(client, upload_headers, read_headers) -> None:
    latest = NOW + dt.timedelta(hours=23)
    extremes = [
        ("1970-01-01T00:00:00Z", [1e100, -1e100, 0.0]),
        ("1970-01-01T00:00:00.000001+00:00", [5e-324, 1e-300, 2.5e-308]),
        (latest.isoformat(), [1e100, 1e100, 1e100]),
        ("2026-01-01T00:00:00-12:00", [-1e-100, 1e-100]),
    ]
    runs = [
        run_body(
            started_at=started, finished_at=None, job_id=2**63 - 1,
            parameters={"nfiles": 2**63 - 1, "size": 9.2e18, "neg": -(2**63), "tiny": 5e-324},
            environment={"cores": 2**31 - 1, "ram_bytes": 2**63 - 1, "huge": 2**63 - 1},
            meta={"n": -(2**63), "f": -9.2e18, "tiny": -1e-300, "deep": json.loads(nested(100))},
            results=[result("create.ops_per_s", samples)],
        )
        for started, samples in extremes
    ]  # fmt: skip
    stored = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert stored.status_code == 200, stored.text
    assert stored.json()["created"] == len(runs)
    series = client.get("/api/v1/series", headers=read_headers).json()["items"]
    assert len(series) == 1
    points = client.get(
        f"/api/v1/series/{series[0]['id']}/points", params={"samples": "true"}, headers=read_headers
    )
    assert points.status_code == 200, points.text
    medians = sorted(statistics.median(s) for _, s in extremes)
    assert sorted(points.json()["value"]) == medians
    uuids = [r["uuid"] for r in runs]
    for path, params in [
        ("/api/v1/explore", {"workload": "smallfile", "metric": "create.ops_per_s"}),
        ("/api/v1/explore", {"workload": "smallfile", "metric": "create.ops_per_s", "x": "nfiles"}),
        ("/api/v1/explore", {"workload": "smallfile", "metric": "create.ops_per_s", "x": "size",
                             "group": "agent"}),
        ("/api/v1/explore.csv", {"workload": "smallfile", "metric": "create.ops_per_s"}),
        ("/api/v1/compare", {"runs": ",".join(uuids)}),
        ("/api/v1/compare.csv", {"runs": ",".join(uuids)}),
        ("/api/v1/catalog", {}),
        ("/api/v1/agents", {}),
        ("/api/v1/runs", {"limit": 1}),
    ]:  # fmt: skip
        response = client.get(path, params=params, headers=read_headers)
        assert response.status_code == 200, (path, params, response.text)
    for run_uuid in uuids:
        assert client.get(f"/api/v1/runs/{run_uuid}", headers=read_headers).status_code == 200
    # Paging through the runs, cursors of the oldest times included, finds every one.
    seen, cursor = [], None
    while True:
        params = {"limit": 1, **({"cursor": cursor} if cursor else {})}
        page = client.get("/api/v1/runs", params=params, headers=read_headers).json()
        seen += [r["uuid"] for r in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(uuids)


def test_on_sqlite_too(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'perfatlas.db'}"
    migrate(url)
    with session_factory(get_engine(url))() as session:
        token = create_token(session, name="sqlite", scope="admin")[1]
    headers = {"Authorization": f"Bearer {token}"}
    json_headers = {**headers, "Content-Type": "application/json"}
    app = create_app(Settings(database_url=url, broker_url=REDIS_URL, queue=IDLE_QUEUE))
    with TestClient(app, raise_server_exceptions=False) as client:
        for _, overrides, field in RUN_CASES:
            body = _json({"runs": [run_body(**overrides)]})
            response = client.post("/api/v1/runs/batch", content=body, headers=json_headers)
            _assert_names(response, f"body.runs[0].{field}")
        for big in (2**31, 2**64):
            response = client.get(f"/api/v1/series/{big}/points", headers=headers)
            assert response.status_code == 404, response.text
        assert client.get("/api/v1/runs", headers=headers).json()["items"] == []
        check_extremes_readable(client, headers, headers)
    get_engine(url).dispose()


def test_runs_stored_before_times_were_checked_stay_readable(
    client, upload_headers, read_headers, engine
):
    # Before times were checked, a run of year 9999 was accepted and made its series answer
    # 500 for ever. Such rows may still be in a database: the reads must survive them.
    runs = [run_body(started_at=f"2026-0{m}-01T00:00:00Z", finished_at=None) for m in (1, 2, 3)]
    # The only run of its series, moved before 1970: a negative time in explore's rollups.
    early = run_body(workload="seqio", started_at="2026-04-01T00:00:00Z", finished_at=None)
    body = {"runs": [*runs, early]}
    assert client.post("/api/v1/runs/batch", json=body, headers=upload_headers).is_success
    legacy = {
        runs[0]["uuid"]: "9999-12-31T23:59:59+00:00",
        runs[1]["uuid"]: "0001-01-01T00:00:00+00:00",
        early["uuid"]: "1969-07-20T20:17:40+00:00",
    }
    with engine.begin() as conn:
        for run_uuid, stamp in legacy.items():
            for table, column in (("runs", "uuid"), ("results", "run_uuid")):
                conn.execute(
                    text(f"UPDATE {table} SET started_at = :t WHERE {column} = :u"),
                    {"t": stamp, "u": run_uuid},
                )

    def check_series(what: str) -> None:
        series = client.get("/api/v1/series", headers=read_headers).json()["items"]
        assert sorted(item["workload"] for item in series) == ["seqio"] * 3 + ["smallfile"] * 3
        for item in series:
            points = client.get(f"/api/v1/series/{item['id']}/points", headers=read_headers)
            assert points.status_code == 200, points.text
            if item["workload"] == "seqio":
                assert points.json()["t"] == ["1969-07-20T20:17:40+00:00"], what
                assert (item["points"], item["last_at"]) == (1, "1969-07-20T20:17:40Z"), what
                continue
            assert points.json()["t"] == [
                "0001-01-01T00:00:00+00:00", "2026-03-01T00:00:00+00:00", "9999-12-31T23:59:59+00:00"
            ], what  # fmt: skip
            assert (item["points"], item["last_at"]) == (3, "9999-12-31T23:59:59Z"), what

    check_series("pending: read from the results")
    with session_factory(engine)() as session:
        assert fold_pending(session).runs == 4
    check_series("folded: read from explore's rollups and digests")
    for path, params in [
        ("/api/v1/explore", {"workload": "smallfile", "metric": "create.ops_per_s"}),
        ("/api/v1/compare", {"runs": ",".join(legacy)}),
        ("/api/v1/runs", {}),
    ]:
        assert client.get(path, params=params, headers=read_headers).status_code == 200, path
