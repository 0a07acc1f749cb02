"""Detection on stored series: uploads through the API, the check the worker runs
(perfatlas.alerts.service.check_runs / check_all) on the test PostgreSQL, results read back
through the alerts API. The worker process itself is exercised in test_worker.py."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from perfatlas.alerts import service
from perfatlas.analysis.detector import attach_causes, detect
from perfatlas.core.config import Settings
from perfatlas.core.db import session_factory
from perfatlas.notifications.models import Notification
from tests.factories import BASE_TIME, at, noisy, result, run_body

Upload = Callable[..., list[str]]


@pytest.fixture
def upload(client: TestClient, upload_headers: dict[str, str]) -> Upload:
    """Upload one run per level (3 samples each, 1 % noise), a day apart;
    `labels_at(i)` and `kernel_at(i)` say what run i carried."""
    days: dict[str, int] = {}  # each agent's runs start on BASE_TIME, a day apart

    def go(
        levels: list[float],
        *,
        agent: str = "host-a",
        metrics: tuple[str, ...] = ("create.ops_per_s",),
        flat: tuple[str, ...] = ("read_cold.ops_per_s",),
        labels_at: Callable[[int], dict[str, str]] = lambda i: {"fs_version": "6.1"},
        kernel_at: Callable[[int], str] = lambda i: "6.1.0-18-amd64",
        seed: int = 1,
    ) -> list[str]:
        rng = random.Random(seed)
        bodies = []
        for i, level in enumerate(levels):
            day = days.get(agent, 0)
            days[agent] = day + 1
            body = run_body(
                agent=agent,
                started_at=at(days=day),
                labels={"mode": "connected", **labels_at(i)},
                results=[
                    *(result(m, noisy(rng, level)) for m in metrics),
                    *(result(m, noisy(rng, 500)) for m in flat),
                ],
            )
            body["environment"] = {**body["environment"], "hostname": agent, "kernel": kernel_at(i)}
            bodies.append(body)
        response = client.post("/api/v1/runs/batch", json={"runs": bodies}, headers=upload_headers)
        assert response.status_code == 200, response.text
        return [b["uuid"] for b in bodies]

    return go


def check(engine: Engine, settings: Settings, uuids: list[str]) -> service.Report:
    with session_factory(engine)() as session:
        return service.check_runs(session, uuids, settings=settings)


def alerts(client: TestClient, headers: dict[str, str], **params: Any) -> dict[str, Any]:
    response = client.get("/api/v1/alerts", params=params, headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_a_step_opens_one_alert_with_its_cause_and_the_flat_metric_stays_quiet(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload,
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    uuids = upload(
        [1000.0] * 15 + [800.0] * 10,
        labels_at=lambda i: {"fs_version": "6.1" if i < 15 else "6.2"},
    )
    report = check(engine, settings, uuids)
    assert report.series == 2 and report.opened == 1

    page = alerts(client, read_headers)
    assert page["counts"] == {"open": 1, "acknowledged": 0, "expected": 0, "resolved": 0,
                              "confirming": 0}  # fmt: skip
    (alert,) = page["items"]
    assert alert["series"]["metric"] == "create.ops_per_s"
    assert alert["kind"] == "regression" and alert["status"] == "open"
    assert alert["change_run"]["uuid"] == uuids[15]
    assert alert["previous_run"]["uuid"] == uuids[14]
    assert alert["change_pct"] == pytest.approx(-20, abs=2)
    assert alert["confidence"] >= 0.99
    assert not alert["tentative"] and alert["points_after"] >= 6
    assert alert["cause"] == {"labels.fs_version": {"before": "6.1", "after": "6.2"}}

    detail = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert detail["points"]["change_index"] == 15
    assert detail["points"]["run_uuid"][15] == uuids[15]
    assert detail["differences"]["labels"] == {"fs_version": {"before": "6.1", "after": "6.2"}}

    incident = client.get(f"/api/v1/incidents/{alert['incident_id']}", headers=read_headers)
    assert incident.json()["title"] == "fs_version 6.1 → 6.2"
    assert [a["id"] for a in incident.json()["alerts"]] == [alert["id"]]


def test_checking_again_changes_nothing(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload,
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    uuids = upload([1000.0] * 15 + [800.0] * 10)
    assert check(engine, settings, uuids).opened == 1
    again = check(engine, settings, uuids)
    assert (again.opened, again.updated, again.resolved, again.withdrawn) == (0, 0, 0, 0)
    with session_factory(engine)() as session:
        report = service.check_all(session, settings=settings, window=1000)
    assert report.opened == 0
    assert len(alerts(client, read_headers)["items"]) == 1


def test_noise_spikes_and_improvements_open_no_alert(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload,
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    spiky = [1000.0] * 30
    spiky[12] = 300.0  # one bad run
    spiky[20] = 1900.0
    uuids = upload(spiky)
    uuids += upload([1000.0] * 12 + [1300.0] * 12, metrics=("write.ops_per_s",), seed=2)
    report = check(engine, settings, uuids)
    assert report.opened == 0
    assert alerts(client, read_headers)["items"] == []


def test_a_tentative_change_then_a_step_back_resolves_the_alert(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload,
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    first = upload([1000.0] * 20 + [700.0] * 5)
    check(engine, settings, first)
    (alert,) = alerts(client, read_headers)["items"]
    assert alert["tentative"] and alert["points_after"] == 5

    back = upload([700.0] * 5 + [1000.0] * 10, seed=3)
    report = check(engine, settings, back)
    assert report.resolved == 1
    resolved = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert resolved["status"] == "resolved" and resolved["resolution"] == "stepped_back"
    assert resolved["resolved_by_run"]["uuid"] == back[5]
    assert not resolved["tentative"]  # confirmed by the 10 points before the step back
    incident = client.get(f"/api/v1/incidents/{alert['incident_id']}", headers=read_headers)
    assert incident.json()["status"] == "resolved"


def test_one_kernel_update_is_one_incident_for_all_its_alerts(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload,
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    kernel = {"kernel_at": lambda i: "6.1.0-18-amd64" if i < 14 else "6.5.0-1-amd64"}
    uuids = upload(
        [1000.0] * 14 + [850.0] * 10, metrics=("create.ops_per_s", "stat.ops_per_s"), **kernel
    )
    uuids += upload([1000.0] * 14 + [850.0] * 10, agent="host-b", **kernel, seed=5)
    report = check(engine, settings, uuids)
    assert report.opened == 3
    incidents = client.get("/api/v1/incidents", headers=read_headers).json()["items"]
    assert len(incidents) == 1
    (incident,) = incidents
    assert incident["alert_counts"] == {"open": 3}
    assert incident["cause"] == {
        "environment.kernel": {"before": "6.1.0-18-amd64", "after": "6.5.0-1-amd64"}
    }
    assert incident["agent"] is None  # two agents share the cause
    by_agent = client.get("/api/v1/incidents", params={"agent": "host-b"}, headers=read_headers)
    assert [i["id"] for i in by_agent.json()["items"]] == [incident["id"]]


def test_rules_raise_thresholds_and_mute(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload,
    tokens: Any, read_headers: dict[str, str],
) -> None:  # fmt: skip
    admin = {"Authorization": f"Bearer {tokens.admin}"}
    rule = {"name": "create is noisy", "workload": "smallfile", "metric": "create.ops_per_s",
            "min_change_pct": 25}  # fmt: skip
    made = client.post("/api/v1/alert-rules", json=rule, headers=admin)
    assert made.status_code == 201, made.text
    mute = {"name": "ignore host-b", "agent": "host-b", "mute": True}
    assert client.post("/api/v1/alert-rules", json=mute, headers=admin).status_code == 201
    uuids = upload([1000.0] * 15 + [800.0] * 10)  # -20 %: under the rule's 25 %
    uuids += upload([1000.0] * 15 + [500.0] * 10, agent="host-b")  # muted
    uuids += upload([1000.0] * 15 + [800.0] * 10, metrics=("stat.ops_per_s",), seed=9)
    check(engine, settings, uuids)
    items = alerts(client, read_headers)["items"]
    assert [(a["series"]["agent"], a["series"]["metric"]) for a in items] == [
        ("host-a", "stat.ops_per_s")
    ]
    listed = client.get("/api/v1/alert-rules", headers=read_headers).json()
    assert listed["defaults"] == {"min_change_pct": 5.0, "min_confidence": 0.99}
    assert [r["name"] for r in listed["items"]] == ["create is noisy", "ignore host-b"]


def test_rule_writes_need_admin_and_name_bad_fields(
    client: TestClient, tokens: Any, upload_headers: dict[str, str]
) -> None:
    rule = {"name": "r", "min_change_pct": 10}
    assert client.post("/api/v1/alert-rules", json=rule).status_code == 401
    assert client.post("/api/v1/alert-rules", json=rule, headers=upload_headers).status_code == 403
    admin = {"Authorization": f"Bearer {tokens.admin}"}
    bad = client.post("/api/v1/alert-rules", json={"name": "r", "min_confidence": 2}, headers=admin)
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["field"] == "body.min_confidence"
    orphan = client.post(
        "/api/v1/alert-rules", json={"name": "r", "label_value": "x"}, headers=admin
    )
    assert orphan.status_code == 422 and "label_value needs label_key" in orphan.text


def test_triage_changes_status_once_and_notifies_once_per_change(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload, tokens: Any,
    upload_headers: dict[str, str], read_headers: dict[str, str],
) -> None:  # fmt: skip
    admin = {"Authorization": f"Bearer {tokens.admin}"}
    channel = {"name": "team", "kind": "webhook", "target": "http://127.0.0.1:9/hook"}
    assert client.post("/api/v1/channels", json=channel, headers=admin).status_code == 201
    check(engine, settings, upload([1000.0] * 15 + [800.0] * 10))
    (alert,) = alerts(client, read_headers)["items"]
    url = f"/api/v1/alerts/{alert['id']}/status"

    assert (
        client.post(url, json={"status": "acknowledged"}, headers=read_headers).status_code == 403
    )
    ack = client.post(url, json={"status": "acknowledged"}, headers=upload_headers)
    assert ack.status_code == 200 and ack.json()["status"] == "acknowledged"
    assert ack.json()["status_changed_by"] == "test-upload"
    # The same again (a double click, a retry) is no new state change.
    assert (
        client.post(url, json={"status": "acknowledged"}, headers=upload_headers).status_code == 200
    )
    no_note = client.post(url, json={"status": "expected"}, headers=upload_headers)
    assert no_note.status_code == 422 and no_note.json()["errors"][0]["field"] == "body.note"
    expected = client.post(
        url, json={"status": "expected", "note": "fsync on by design"}, headers=upload_headers
    )
    assert expected.json()["note"] == "fsync on by design"
    reopened = client.post(url, json={"status": "open"}, headers=upload_headers)
    assert reopened.json()["status"] == "open"
    assert alerts(client, read_headers, status="open")["counts"]["open"] == 1

    with session_factory(engine)() as session:
        events = session.scalars(select(Notification.event).order_by(Notification.id)).all()
    assert events == ["incident.opened", "alert.acknowledged", "alert.expected", "alert.reopened"]


def test_alert_filters_and_pages(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload,
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    uuids = upload([1000.0] * 15 + [800.0] * 10, metrics=("create.ops_per_s", "stat.ops_per_s"))
    uuids += upload([1000.0] * 15 + [800.0] * 10, agent="host-b", seed=4)
    check(engine, settings, uuids)
    assert len(alerts(client, read_headers)["items"]) == 3
    assert len(alerts(client, read_headers, agent="host-b")["items"]) == 1
    assert len(alerts(client, read_headers, metric="stat.ops_per_s")["items"]) == 1
    assert len(alerts(client, read_headers, label="mode:connected")["items"]) == 3
    assert alerts(client, read_headers, label="mode:other")["items"] == []
    first = alerts(client, read_headers, limit=2)
    rest = alerts(client, read_headers, limit=2, cursor=first["next_cursor"])
    ids = [a["id"] for a in first["items"] + rest["items"]]
    assert len(set(ids)) == 3 and rest["next_cursor"] is None
    bad = client.get("/api/v1/alerts", params={"status": "gone"}, headers=read_headers)
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "query.status[0]"


def test_series_change_points_include_improvements(
    client: TestClient, upload: Upload, read_headers: dict[str, str]
) -> None:
    upload([1000.0] * 12 + [1300.0] * 12)
    series = client.get(
        "/api/v1/series", params={"metric": "create.ops_per_s"}, headers=read_headers
    )
    series_id = series.json()["items"][0]["id"]
    found = client.get(f"/api/v1/series/{series_id}/change-points", headers=read_headers).json()
    (cp,) = found["change_points"]
    assert cp["kind"] == "improvement" and cp["alert_id"] is None
    assert cp["change_pct"] == pytest.approx(30, abs=3)


def test_series_change_points_carry_the_causes_next_to_them(
    client: TestClient, upload: Upload, read_headers: dict[str, str]
) -> None:
    # Two machines step down at run 15 of 25. On host-a the filesystem's version changes with
    # the step; on host-b the kernel changes two runs after it (the far edge of where a cause
    # is looked for), and a build label changed long before (no cause). Only the points next
    # to a change have their labels and environments read: the causes must be those found
    # over every point's context (the oracle: the contexts the runs were uploaded with).
    levels = [1000.0] * 15 + [800.0] * 10
    shapes: dict[str, tuple[Callable[[int], dict[str, str]], Callable[[int], str]]] = {
        "host-a": (lambda i: {"fs_version": "6.1" if i < 15 else "6.2"}, lambda i: "6.1.0-18"),
        "host-b": (
            lambda i: {"fs_version": "6.1", "build": "a" if i < 5 else "b"},
            lambda i: "6.1.0-18" if i < 17 else "6.1.0-19",
        ),
    }
    runs = {
        agent: upload(levels, agent=agent, labels_at=labels_at, kernel_at=kernel_at, seed=n)
        for n, (agent, (labels_at, kernel_at)) in enumerate(shapes.items())
    }
    items = client.get(
        "/api/v1/series", params={"metric": "create.ops_per_s"}, headers=read_headers
    ).json()["items"]
    causes = {}
    for item in items:
        labels_at, kernel_at = shapes[item["agent"]]
        uuids = runs[item["agent"]]
        environment = {**run_body()["environment"], "hostname": item["agent"]}
        contexts = [
            {"environment": {**environment, "kernel": kernel_at(i)},
             "labels": {"mode": "connected", **labels_at(i)}}
            for i in range(len(levels))
        ]  # fmt: skip
        expected = attach_causes(detect(_samples(client, read_headers, uuids), "higher"), contexts)
        found = client.get(
            f"/api/v1/series/{item['id']}/change-points", headers=read_headers
        ).json()["change_points"]
        assert [cp["run_uuid"] for cp in found] == [uuids[cp.index] for cp in expected]
        assert [cp["cause"] for cp in found] == [cp.cause for cp in expected]
        causes[item["agent"]] = [cp["cause"] for cp in found]
    assert causes == {
        "host-a": [{"labels.fs_version": {"before": "6.1", "after": "6.2"}}],
        "host-b": [{"environment.kernel": {"before": "6.1.0-18", "after": "6.1.0-19"}}],
    }


def _samples(client: TestClient, headers: dict[str, str], uuids: list[str]) -> list[Any]:
    """Each run's create.ops_per_s samples, read back run by run (not through its series)."""
    return [
        next(r["samples"] for r in client.get(f"/api/v1/runs/{u}", headers=headers).json()[
            "results"] if r["metric"] == "create.ops_per_s")
        for u in uuids
    ]  # fmt: skip


def _window_changes(
    client: TestClient, headers: dict[str, str], uuids: list[str], *, window: int
) -> list[Any]:
    """The detector's changes over these runs (a window's and those that followed it) that
    fall among the window's first `window`."""
    return [c for c in detect(_samples(client, headers, uuids), "higher") if c.index < window]


def test_series_change_points_in_a_window_further_back(
    client: TestClient, upload: Upload, read_headers: dict[str, str]
) -> None:
    # A step up at run 12 of 64, a day apart: the newest points hold no change; the newest 30
    # before day 30 hold the step, as the detector finds it in those runs' own samples (the
    # oracle: the runs read back one by one, not the series).
    uuids = upload([1000.0] * 12 + [1300.0] * 52)
    (series,) = client.get(
        "/api/v1/series", params={"metric": "create.ops_per_s"}, headers=read_headers
    ).json()["items"]
    url = f"/api/v1/series/{series['id']}/change-points"

    def found(**params: Any) -> dict[str, Any]:
        answer = client.get(url, params=params, headers=read_headers)
        assert answer.status_code == 200, answer.text
        return answer.json()

    assert found(points=20) == {"series_id": series["id"], "points": 20, "change_points": []}
    until = (BASE_TIME + dt.timedelta(days=30)).isoformat()
    back = found(points=30, until=until)
    assert back["points"] == 30
    # The 30 runs and the six that followed them, each read back on its own.
    expected = _window_changes(client, read_headers, uuids[:36], window=30)
    assert [cp["run_uuid"] for cp in back["change_points"]] == [uuids[c.index] for c in expected]
    (cp,) = back["change_points"]
    assert cp["run_uuid"] == uuids[12] and cp["kind"] == "improvement"
    assert dt.datetime.fromisoformat(cp["started_at"]) == BASE_TIME + dt.timedelta(days=12)
    assert (cp["before"], cp["after"]) == pytest.approx((expected[0].before, expected[0].after))
    # Ten points before day 30 are runs 20 to 29: level, and so no change.
    assert found(points=10, until=until)["change_points"] == []
    # Before the first run, nothing.
    assert found(until=BASE_TIME.isoformat()) == {
        "series_id": series["id"], "points": 0, "change_points": [],
    }  # fmt: skip


def test_a_change_near_the_end_of_a_window_further_back_is_judged_with_what_followed(
    client: TestClient, upload: Upload, read_headers: dict[str, str]
) -> None:
    # A step down at run 30 of 60; the window before day 35 holds five runs after it. The runs
    # that followed the window (six of them) count in judging it: the change is confirmed, its
    # level after is that of the six runs after it, as the detector finds over runs 0 to 40 (the
    # oracle: their own samples); and a change among those six would be the next window's.
    uuids = upload([1000.0] * 30 + [700.0] * 30)
    (series,) = client.get(
        "/api/v1/series", params={"metric": "create.ops_per_s"}, headers=read_headers
    ).json()["items"]
    until = (BASE_TIME + dt.timedelta(days=35)).isoformat()
    back = client.get(
        f"/api/v1/series/{series['id']}/change-points", params={"until": until},
        headers=read_headers,
    ).json()  # fmt: skip
    assert back["points"] == 35
    (expected,) = _window_changes(client, read_headers, uuids[:41], window=35)
    (cp,) = back["change_points"]
    assert cp["run_uuid"] == uuids[30] and cp["kind"] == "regression"
    assert cp["tentative"] is False and not expected.tentative
    assert (cp["before"], cp["after"]) == pytest.approx((expected.before, expected.after))
    assert cp["after"] == pytest.approx(700, rel=0.02)
    # Alone, the window would have had it tentative: only five runs follow it there.
    assert detect(_samples(client, read_headers, uuids[:35]), "higher")[0].tentative

    def window_before(day: int) -> dict[str, Any]:
        return client.get(
            f"/api/v1/series/{series['id']}/change-points",
            params={"until": (BASE_TIME + dt.timedelta(days=day)).isoformat()},
            headers=read_headers,
        ).json()  # fmt: skip

    # The window before day 31 ends with the step's first run: with what followed, found and
    # confirmed. The window before day 28 ends two runs short of it: the step is the next
    # window's, though the runs that follow this one reach it.
    (last,) = window_before(31)["change_points"]
    assert last["run_uuid"] == uuids[30] and last["tentative"] is False
    short = window_before(28)
    assert short["points"] == 28 and short["change_points"] == []


def test_a_tentative_change_that_fades_is_withdrawn(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload,
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    """Five slow runs open a tentative alert; the next runs are back to normal, so the
    detector no longer sees a change: the alert is withdrawn and its incident resolved."""
    check(engine, settings, upload([1000.0] * 20 + [700.0] * 5))
    (alert,) = alerts(client, read_headers)["items"]
    assert alert["tentative"]
    check(engine, settings, upload([1000.0] * 2, seed=11))
    after = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert after["status"] == "resolved" and after["resolution"] == "withdrawn"
    incident = client.get(f"/api/v1/incidents/{alert['incident_id']}", headers=read_headers)
    assert incident.json()["status"] == "resolved"


def test_a_short_bounce_does_not_resolve_a_regression(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload,
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    """Five good runs after a regression are a tentative step back: the alert stays open,
    and stays open when the series falls back to the regressed level."""
    check(engine, settings, upload([1000.0] * 20 + [700.0] * 10))
    (alert,) = alerts(client, read_headers)["items"]
    check(engine, settings, upload([1000.0] * 5, seed=12))
    assert (
        client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()["status"] == "open"
    )
    check(engine, settings, upload([700.0] * 12, seed=13))
    after = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert after["status"] == "open" and after["resolution"] is None


def test_an_incident_withdrawn_before_its_first_notification_sends_nothing(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload, tokens: Any,
    read_headers: dict[str, str],
) -> None:  # fmt: skip
    """The first notification of an incident waits notify_delay_seconds (30 s here); if the
    tentative alert is withdrawn before that, neither "opened" nor "resolved" goes out."""
    admin = {"Authorization": f"Bearer {tokens.admin}"}
    channel = {"name": "team", "kind": "webhook", "target": "http://127.0.0.1:9/hook"}
    assert client.post("/api/v1/channels", json=channel, headers=admin).status_code == 201
    check(engine, settings, upload([1000.0] * 20 + [700.0] * 5))
    with session_factory(engine)() as session:
        assert session.scalars(select(Notification.event)).all() == ["incident.opened"]
    check(engine, settings, upload([1000.0] * 2, seed=11))
    (alert,) = alerts(client, read_headers)["items"]
    assert alert["resolution"] == "withdrawn"
    with session_factory(engine)() as session:
        assert session.scalars(select(Notification.event)).all() == []


def test_editing_the_note_of_a_triaged_incident_notifies_nobody_again(
    client: TestClient, engine: Engine, settings: Settings, upload: Upload, tokens: Any,
    upload_headers: dict[str, str], read_headers: dict[str, str],
) -> None:  # fmt: skip
    admin = {"Authorization": f"Bearer {tokens.admin}"}
    channel = {"name": "team", "kind": "webhook", "target": "http://127.0.0.1:9/hook"}
    assert client.post("/api/v1/channels", json=channel, headers=admin).status_code == 201
    check(engine, settings, upload([1000.0] * 15 + [800.0] * 10))
    (alert,) = alerts(client, read_headers)["items"]
    url = f"/api/v1/incidents/{alert['incident_id']}/status"
    for note in (None, "looking", "still looking"):
        body = {"status": "acknowledged", **({"note": note} if note else {})}
        assert client.post(url, json=body, headers=upload_headers).status_code == 200
    detail = client.get(f"/api/v1/alerts/{alert['id']}", headers=read_headers).json()
    assert detail["status"] == "acknowledged" and detail["note"] == "still looking"
    with session_factory(engine)() as session:
        events = session.scalars(select(Notification.event).order_by(Notification.id)).all()
    assert events == ["incident.opened", "incident.acknowledged"]
