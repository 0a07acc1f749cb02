"""The schedules API on PostgreSQL: "now" fires in the request, selectors pick the enrolled
agents, preview counts runs, PATCH recomputes the next firing, DELETE keeps the history, and bad
input answers a 4xx naming the field."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from perfatlas.core.errors import ErrorBody
from tests.backend.schedules.conftest import SPEC, jobs_of, oracle_firings

URL = "/api/v1/schedules"


def at(text_: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text_.replace("Z", "+00:00"))


def points(spec: dict[str, Any]) -> int:
    """Runs per agent, counted by expanding the sweep."""
    lists = [v if isinstance(v, list) else [v] for v in spec.get("params", {}).values()]
    return len(spec["targets"]) * sum(1 for _ in itertools.product(*lists))


@pytest.fixture
def lab(enroll) -> None:
    """Five agents; two of them not eligible (not enrolled, revoked)."""
    enroll("nvme-1", pool="nvme", rack="a")
    enroll("nvme-2", pool="nvme", rack="b")
    enroll("hdd-1", pool="hdd", rack="a")
    enroll("uploader", enrolled=False, pool="nvme")
    enroll("gone", revoked=True, pool="nvme")


def create(client: TestClient, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    body = {"name": "s", "spec": SPEC, "agents": ["pool=nvme"], "when": "now", **body}
    response = client.post(URL, json=body, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


@pytest.mark.parametrize(
    ("selector", "picked"),
    [
        (["pool=nvme"], ["nvme-1", "nvme-2"]),
        (["rack=a"], ["hdd-1", "nvme-1"]),
        (["pool=nvme", "rack=a"], ["nvme-1"]),
        (["hdd-1", "nvme-2"], ["hdd-1", "nvme-2"]),
        (["hdd-1", "nvme-2", "rack=b"], ["nvme-2"]),
        (["uploader", "gone"], []),
        (["pool=ssd"], []),
    ],
)
def test_now_fires_one_job_per_matching_agent_in_the_request(
    client, admin_headers, engine, lab, selector, picked
) -> None:
    before = dt.datetime.now(dt.UTC)
    made = create(client, admin_headers, agents=selector)
    assert made["matching_agents"] == picked
    assert made["runs_per_agent"] == points(SPEC) == 6
    assert made["next_fire_at"] is None  # a one-off that fired
    jobs = jobs_of(engine, made["id"])
    assert [name for name, _, _ in jobs] == picked
    assert {status for _, _, status in jobs} <= {"queued"}
    fired = at(made["last_fired_at"])
    assert before <= fired <= dt.datetime.now(dt.UTC)
    assert {fire_at for _, fire_at, _ in jobs} <= {fired}
    expected_last = {
        "fire_at": made["last_fired_at"],
        "jobs": {"queued": len(picked)} if picked else {},
    }
    assert made["last_firing"] == expected_last
    # The firing's jobs carry the spec and expire a day after the firing.
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT spec, selector, expires_at FROM jobs")).all()
    assert all(r.spec["targets"] == SPEC["targets"] and r.selector == selector for r in rows)
    assert all(r.expires_at == fired + dt.timedelta(hours=24) for r in rows)


def test_paused_now_fires_on_resume_only(client, admin_headers, engine, lab) -> None:
    made = create(client, admin_headers, paused=True)
    assert jobs_of(engine, made["id"]) == [] and made["last_firing"] is None
    resumed = client.post(f"{URL}/{made['id']}/resume", headers=admin_headers).json()
    assert [n for n, _, _ in jobs_of(engine, made["id"])] == ["nvme-1", "nvme-2"]
    assert resumed["paused"] is False and resumed["next_fire_at"] is None
    # Resuming again is a no-op: nothing more.
    client.post(f"{URL}/{made['id']}/resume", headers=admin_headers)
    assert len(jobs_of(engine, made["id"])) == 2


def test_cron_schedule_next_fire_at_and_patch_recomputes(client, admin_headers, lab) -> None:
    before = dt.datetime.now(dt.UTC)
    made = create(client, admin_headers, when="cron:0 */6 * * *", timezone="Asia/Kolkata")
    after = dt.datetime.now(dt.UTC)

    def first_after(fields: str, zone: str, t: dt.datetime) -> dt.datetime:
        return next(x for x in oracle_firings(fields, zone, t, days=3) if x > t)

    assert at(made["next_fire_at"]) in {
        first_after("0 */6 * * *", "Asia/Kolkata", before),
        first_after("0 */6 * * *", "Asia/Kolkata", after),
    }
    assert made["last_fired_at"] is None and made["last_firing"] is None
    sid = made["id"]
    before = dt.datetime.now(dt.UTC)
    patched = client.patch(
        f"{URL}/{sid}", json={"when": "cron:30 7 * * *", "timezone": "America/New_York"},
        headers=admin_headers,
    ).json()  # fmt: skip
    after = dt.datetime.now(dt.UTC)
    assert at(patched["next_fire_at"]) in {
        first_after("30 7 * * *", "America/New_York", before),
        first_after("30 7 * * *", "America/New_York", after),
    }
    # Only the zone: the same fields, read on another clock.
    patched = client.patch(f"{URL}/{sid}", json={"timezone": "UTC"}, headers=admin_headers).json()
    assert patched["when"] == "cron:30 7 * * *"
    assert at(patched["next_fire_at"]).astimezone(dt.UTC).time() == dt.time(7, 30)
    # An ISO time, without an offset: read in the schedule's zone.
    later = (dt.datetime.now(dt.UTC) + dt.timedelta(days=3)).replace(microsecond=0)
    wall = later.astimezone(dt.timezone(dt.timedelta(hours=9))).replace(tzinfo=None)
    patched = client.patch(
        f"{URL}/{sid}", json={"when": wall.isoformat(), "timezone": "Asia/Tokyo"},
        headers=admin_headers,
    ).json()  # fmt: skip
    assert at(patched["next_fire_at"]) == later
    # Other fields leave the firing time alone; the spec and agents change.
    spec = {**SPEC, "targets": ["/mnt/c"], "params": {"size": ["4k", "8k"], "depth": [1, 2, 4]}}
    patched = client.patch(
        f"{URL}/{sid}", json={"name": "renamed", "spec": spec, "agents": ["rack=a"]},
        headers=admin_headers,
    ).json()  # fmt: skip
    assert at(patched["next_fire_at"]) == later
    assert patched["name"] == "renamed" and patched["runs_per_agent"] == points(spec) == 6
    assert patched["matching_agents"] == ["hdd-1", "nvme-1"]
    got = client.get(f"{URL}/{sid}", headers=admin_headers).json()
    assert got == patched
    listed = client.get(URL, headers=admin_headers).json()["items"]
    assert listed == [patched]


def test_patch_to_now_fires_and_pause_keeps_it_from_firing(client, admin_headers, engine, lab):
    made = create(client, admin_headers, when="cron:0 0 1 1 *")
    sid = made["id"]
    paused = client.post(f"{URL}/{sid}/pause", headers=admin_headers).json()
    assert paused["paused"] is True
    client.patch(f"{URL}/{sid}", json={"when": "now"}, headers=admin_headers)
    assert jobs_of(engine, sid) == []
    fired = client.patch(f"{URL}/{sid}", json={"paused": False}, headers=admin_headers).json()
    assert [n for n, _, _ in jobs_of(engine, sid)] == ["nvme-1", "nvme-2"]
    assert fired["next_fire_at"] is None and fired["last_firing"]["jobs"] == {"queued": 2}


def test_delete_cancels_queued_jobs_and_keeps_the_history(client, admin_headers, engine, lab):
    made = create(client, admin_headers, agents=["pool=nvme"])
    other = create(client, admin_headers, name="other", agents=["hdd-1"])
    with engine.begin() as conn:  # an agent took one of the jobs
        conn.execute(text(
            "UPDATE jobs SET status = 'running' WHERE agent_id = "
            "(SELECT id FROM agents WHERE name = 'nvme-2')"
        ))  # fmt: skip
    response = client.delete(f"{URL}/{made['id']}", headers=admin_headers)
    assert response.status_code == 204
    assert client.get(f"{URL}/{made['id']}", headers=admin_headers).status_code == 404
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT a.name, j.status, j.schedule_id, j.finished_at IS NOT NULL AS finished "
            "FROM jobs j JOIN agents a ON a.id = j.agent_id ORDER BY a.name"
        )).all()  # fmt: skip
    assert [tuple(r) for r in rows] == [
        ("hdd-1", "queued", other["id"], False),  # another schedule's job is untouched
        ("nvme-1", "cancelled", None, True),
        ("nvme-2", "running", None, False),
    ]
    assert client.delete(f"{URL}/{made['id']}", headers=admin_headers).status_code == 404


def test_preview_counts_runs_and_lists_firings(client, read_headers, lab) -> None:
    spec = {**SPEC, "params": {"size": ["4k", "64k", "1m"], "threads": [1, 8], "fsync": True}}
    body = {"spec": spec, "agents": ["pool=nvme"], "when": "cron:*/15 9-17 * * 1-5",
            "timezone": "Europe/Paris"}  # fmt: skip
    before = dt.datetime.now(dt.UTC)
    preview = client.post(f"{URL}/preview", json=body, headers=read_headers)
    after = dt.datetime.now(dt.UTC)
    assert preview.status_code == 200, preview.text
    got = preview.json()
    assert got["runs_per_agent"] == points(spec) == 2 * 3 * 2
    assert got["matching_agents"] == ["nvme-1", "nvme-2"]
    assert got["runs_total"] == 12 * 2
    expected = [
        [x for x in oracle_firings("*/15 9-17 * * 1-5", "Europe/Paris", t, days=5) if x > t][:5]
        for t in (before, after)
    ]
    assert [at(x) for x in got["next_firings"]] in expected
    once = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=2)).replace(microsecond=0)
    body = {**body, "agents": ["hdd-1", "nvme-1", "nope"], "when": once.isoformat()}
    got = client.post(f"{URL}/preview", json=body, headers=read_headers).json()
    assert got["matching_agents"] == ["hdd-1", "nvme-1"] and got["runs_total"] == 24
    assert [at(x) for x in got["next_firings"]] == [once]


def _names(response: Any, field: str, status: int = 422) -> None:
    assert response.status_code == status, response.text
    ErrorBody.model_validate(response.json())
    if status == 422:
        assert response.json()["errors"][0]["field"] == field, response.json()
    assert field in response.json()["detail"]


BAD: list[tuple[str, dict[str, Any], str]] = [
    ("cron of 4 fields", {"when": "cron:* * * *"}, "body.when"),
    ("cron out of range", {"when": "cron:0 25 * * *"}, "body.when"),
    ("never", {"when": "cron:0 0 31 2 *"}, "body.when"),
    ("past", {"when": "2020-01-01T00:00:00Z"}, "body.when"),
    ("garbage when", {"when": "every day"}, "body.when"),
    ("empty when", {"when": ""}, "body.when"),
    ("zone", {"timezone": "Europe/Atlantis"}, "body.timezone"),
    ("zone path", {"timezone": "../../etc/passwd"}, "body.timezone"),
    ("zone nul", {"timezone": "UTC\x00"}, "body.timezone"),
    ("no agents", {"agents": []}, "body.agents"),
    ("nul agent", {"agents": ["a\x00"]}, "body.agents[0]"),
    ("bad label", {"agents": ["pool=nvme", "=x"]}, "body.agents[1]"),
    ("nul name", {"name": "s\x00"}, "body.name"),
    ("long name", {"name": "s" * 129}, "body.name"),
    ("nul target", {"spec": {**SPEC, "targets": ["/mnt/\x00"]}}, "body.spec.targets[0]"),
    ("nul label value", {"spec": {**SPEC, "labels": {"v": "1\x00"}}}, "body.spec.labels.v"),
    ("nul param", {"spec": {**SPEC, "params": {"cmd": "x\x00"}}}, "body.spec.params.cmd"),
    ("no targets", {"spec": {**SPEC, "targets": []}}, "body.spec.targets"),
    ("unknown spec key", {"spec": {**SPEC, "what": 1}}, "body.spec.what"),
    ("unknown key", {"colour": "red"}, "body.colour"),
    (
        "huge sweep",
        {"spec": {**SPEC, "params": {"a": list(range(200)), "b": list(range(200))}}},
        "body.spec",
    ),
]


@pytest.mark.parametrize(("name", "override", "field"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_names_the_field_and_writes_nothing(
    client, admin_headers, read_headers, engine, lab, name, override, field
) -> None:
    body = {"name": "s", "spec": SPEC, "agents": ["pool=nvme"], "when": "now", **override}
    _names(client.post(URL, json=body, headers=admin_headers), field)
    if "name" not in override and "colour" not in override:
        preview = {k: v for k, v in body.items() if k != "name"}
        _names(client.post(f"{URL}/preview", json=preview, headers=read_headers), field)
    made = create(client, admin_headers, name="good", when="cron:0 0 1 1 *")
    patch = {k: v for k, v in override.items()}
    _names(client.patch(f"{URL}/{made['id']}", json=patch, headers=admin_headers), field)
    with engine.connect() as conn:
        assert conn.scalar(text("SELECT count(*) FROM schedules")) == 1
        assert conn.scalar(text("SELECT count(*) FROM jobs")) == 0
    assert client.get(f"{URL}/{made['id']}", headers=admin_headers).json() == made


def test_names_are_unique_permissions_and_missing_ids(client, admin_headers, read_headers, lab):
    made = create(client, admin_headers, name="nightly", when="cron:0 2 * * *")
    again = client.post(
        URL, json={"name": "nightly", "spec": SPEC, "agents": ["x"], "when": "now"},
        headers=admin_headers,
    )  # fmt: skip
    assert again.status_code == 409 and "name" in again.json()["detail"]
    other = create(client, admin_headers, name="other", when="cron:0 3 * * *")
    clash = client.patch(f"{URL}/{other['id']}", json={"name": "nightly"}, headers=admin_headers)
    assert clash.status_code == 409
    body = {"name": "x", "spec": SPEC, "agents": ["x"], "when": "now"}
    assert client.post(URL, json=body, headers=read_headers).status_code == 403
    assert client.post(URL, json=body).status_code == 401
    for path in ("pause", "resume"):
        assert client.post(f"{URL}/{made['id']}/{path}", headers=read_headers).status_code == 403
    assert client.delete(f"{URL}/{made['id']}", headers=read_headers).status_code == 403
    assert client.get(f"{URL}/{made['id']}", headers=read_headers).status_code == 200
    for big in (999, 2**31, 2**64):
        for method, path in [
            ("GET", f"{URL}/{big}"), ("PATCH", f"{URL}/{big}"), ("DELETE", f"{URL}/{big}"),
            ("POST", f"{URL}/{big}/pause"), ("POST", f"{URL}/{big}/resume"),
            ("GET", f"{URL}/{big}/firings"),
        ]:  # fmt: skip
            response = client.request(method, path, json={"name": "y"}, headers=admin_headers)
            assert response.status_code == 404, (method, path, response.text)
    _names(client.get(f"{URL}/{made['id']}/firings?cursor=nope", headers=read_headers), "cursor")
    _names(client.get(f"{URL}/{made['id']}/firings?limit=0", headers=read_headers), "query.limit")
