"""The series list's orders (sort=name, points, newest, alerts, id) against a plain sort of the
seeded data: three agents, two workloads, several targets, series of 1 to 6 points with ties in
their counts and newest times, open alerts on some (a resolved one that does not count), and
reference-only series (published figures, newer than every run), pending or folded; every
page size's cursor pages concatenate to the whole order."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.alerts.models import Alert
from perfatlas.runs.models import Run, Series
from tests.backend.rollups.states import fold_to
from tests.factories import BASE_TIME, result, run_body

METRIC = "create.ops_per_s"
# (agent, workload, target): points, the day of its newest point, open alerts.
SEEDED = {
    ("host-a", "smallfile", "/mnt/ext4"): (6, 9, 0),
    ("host-a", "smallfile", "/mnt/xfs"): (1, 9, 2),
    ("host-a", "seqio", "/mnt/ext4"): (3, 4, 0),
    ("host-b", "smallfile", "/mnt/ext4"): (3, 12, 1),
    ("host-b", "seqio", "/mnt/btrfs"): (5, 2, 0),
    ("host-c", "smallfile", "/mnt/tmpfs"): (2, 12, 2),
    ("host-c", "seqio", "/mnt/ext4"): (6, 7, 0),
}
REFERENCE_TARGETS = ("/mnt/ext4", "/mnt/zfs", "/mnt/btrfs")


def _runs() -> list[dict[str, Any]]:
    runs = []
    for (agent, workload, target), (points, newest, _) in SEEDED.items():
        for i in range(points):
            started = BASE_TIME + dt.timedelta(days=newest - i, hours=len(target))
            runs.append(run_body(
                agent=agent, workload=workload, target=target, started_at=started.isoformat(),
                labels={"fs_version": f"6.{i}"}, results=[result(METRIC, [100.0 + i])],
            ))  # fmt: skip
    return runs


def _reference_table() -> dict[str, Any]:
    """Published figures, one run per column, all newer than every measured run."""
    return {
        "source_url": "https://example.org/paper.pdf",
        "description": "Table 1: create rate per filesystem",
        "workload": "smallfile", "agent": "paper-2019",
        "started_at": (BASE_TIME + dt.timedelta(days=40)).isoformat(),
        "parameters": {"nfiles": 1000}, "labels": {},
        "columns": [{"name": t, "target": t} for t in REFERENCE_TARGETS],
        "rows": [{"metric": METRIC, "unit": "ops/s", "values": [10.0, 20.0, 30.0]}],
    }  # fmt: skip


def _walk(client, headers, sort: str | None, limit: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        params = {"limit": limit, **({"sort": sort} if sort else {})}
        page = client.get(
            "/api/v1/series", params=params | ({"cursor": cursor} if cursor else {}),
            headers=headers,
        ).json()  # fmt: skip
        assert page["total"] == len(SEEDED) + len(REFERENCE_TARGETS)
        assert len(page["items"]) <= limit
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return items
        assert len(page["items"]) == limit


@pytest.mark.parametrize("state", ["pending", "folded"])
def test_series_list_orders_equal_a_plain_sort(client, engine, upload_headers, read_headers, state):
    runs = _runs()
    stored = client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers)
    assert stored.status_code == 200, stored.text
    posted = client.post("/api/v1/references", json=_reference_table(), headers=upload_headers)
    assert posted.status_code in (200, 201), posted.text
    with Session(engine) as session:
        fold_to(session, state, len(runs) + len(REFERENCE_TARGETS))
        by_key = {
            (s.agent.name, s.workload, s.target): s.id
            for s in session.scalars(select(Series).where(Series.metric == METRIC))
        }
        # Open alerts as the detector leaves them, and a resolved one, which does not count.
        for key, (_, _, alerts) in SEEDED.items():
            change = session.scalars(select(Run.id).where(Run.target == key[2])).first()
            for kind, status in [("regression", "open"), ("improvement", "open")][:alerts] + (
                [("stopped", "resolved")] if alerts == 1 else []
            ):
                session.add(Alert(
                    series_id=by_key[key], change_run_id=change, change_at=BASE_TIME, kind=kind,
                    before=1.0, after=2.0, confidence=0.9, status=status,
                ))  # fmt: skip
        session.commit()
    # The oracle: each series as seeded.
    seeded: dict[int, dict[str, Any]] = {}
    for (agent, workload, target), (points, newest, alerts) in SEEDED.items():
        last = BASE_TIME + dt.timedelta(days=newest, hours=len(target))
        seeded[by_key[(agent, workload, target)]] = {
            "name": (workload, METRIC, agent, target), "points": points, "last": last,
            "alerts": alerts, "reference": False,
        }  # fmt: skip
    for target in REFERENCE_TARGETS:
        seeded[by_key[("paper-2019", "smallfile", target)]] = {
            "name": ("smallfile", METRIC, "paper-2019", target), "points": 1,
            "last": BASE_TIME + dt.timedelta(days=40), "alerts": 0, "reference": True,
        }  # fmt: skip
    ids = list(seeded)

    def newest_first(i: int) -> tuple[Any, ...]:
        return (seeded[i]["reference"], -seeded[i]["last"].timestamp(), -i)

    expected = {
        None: sorted(ids),
        "id": sorted(ids),
        "name": sorted(ids, key=lambda i: (seeded[i]["name"], i)),
        "points": sorted(ids, key=lambda i: (-seeded[i]["points"], seeded[i]["reference"], i)),
        "newest": sorted(ids, key=newest_first),
        "alerts": sorted(ids, key=lambda i: (-seeded[i]["alerts"], *newest_first(i))),
    }
    # The data leaves no order to chance: ties in points, newest day and alerts, broken by id.
    assert len({s["points"] for s in seeded.values()}) < len(seeded)
    assert expected["newest"][-len(REFERENCE_TARGETS) :] == sorted(
        (i for i in ids if seeded[i]["reference"]), reverse=True
    )
    for sort, order in expected.items():
        for limit in (1, 3, 4, 500):
            items = _walk(client, read_headers, sort, limit)
            assert [s["id"] for s in items] == order, (sort, limit)
            for s in items:
                want = seeded[s["id"]]
                assert (s["workload"], s["metric"], s["agent"], s["target"]) == want["name"]
                assert s["points"] == want["points"] and s["open_alerts"] == want["alerts"]
                assert dt.datetime.fromisoformat(s["last_at"]) == want["last"], (sort, s)
                assert s["reference"] is want["reference"]
    # Filters hold in every order.
    smallfile = client.get(
        "/api/v1/series", params={"sort": "alerts", "workload": "smallfile", "limit": 500},
        headers=read_headers,
    ).json()  # fmt: skip
    assert [s["id"] for s in smallfile["items"]] == [
        i for i in expected["alerts"] if seeded[i]["name"][0] == "smallfile"
    ]


def test_series_list_refuses_a_bad_sort_or_cursor(client, read_headers):
    for params, field in (
        ({"sort": "size"}, "query.sort"),
        ({"sort": "newest", "cursor": "not-a-cursor"}, "query.cursor"),
        ({"sort": "id", "cursor": "abc"}, "query.cursor"),
        ({"sort": "name", "cursor": "WyJuYW1lIiwxLDIsMyw0LDVd"}, "query.cursor"),  # numbers
        ({"sort": "points", "cursor": "WyJuZXdlc3QiLDAsZmFsc2UsMSwyXQ=="}, "query.cursor"),
    ):
        answer = client.get("/api/v1/series", params=params, headers=read_headers)
        assert answer.status_code == 422, (params, answer.text)
        assert answer.json()["errors"][0]["field"] == field, params
