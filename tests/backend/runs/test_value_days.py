"""The runs list filtered on labels, parameters, status and target (runs/queries.py list_runs),
which on PostgreSQL walks only the days those values were seen (runs/value_days.py): every page
against a plain filter over the bodies sent, and the days ingest keeps against the days computed
from the runs stored, after retries and under concurrent uploads."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from perfatlas.runs.value_days import STRETCHES_WALKED
from tests.backend.runs.racing import upload_at_once
from tests.factories import run_body

# What ingest should have kept, computed from the runs stored (the migration's statement).
_RECOMPUTED = text(
    "SELECT DISTINCT e.kind, e.name, left(e.value, 200), r.workload,"
    " (r.started_at AT TIME ZONE 'UTC')::date"
    " FROM runs AS r CROSS JOIN LATERAL ("
    " SELECT 'label', key, value FROM jsonb_each_text(r.labels)"
    " UNION ALL SELECT 'parameter', key, value FROM jsonb_each_text(r.parameters)"
    " UNION ALL SELECT 'status', '', r.status"
    " UNION ALL SELECT 'target', '', r.target) AS e(kind, name, value)"
    " WHERE e.value IS NOT NULL AND r.workload LIKE :workloads"
)
_KEPT = text(
    "SELECT kind, name, value, workload, day FROM run_value_days WHERE workload LIKE :workloads"
)

# Two targets alike in their first 200 characters: their days are kept as one value's.
_LONG = "/mnt/" + "x" * 200
TARGETS = ["/mnt/ext4", "/mnt/xfs", _LONG + "-a", _LONG + "-b"]


def _text(value: Any) -> str:
    """A JSON value as the filter compares it (PostgreSQL's `->>`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)  # text, integers, and floats whose shortest form PostgreSQL writes too


def _history(rng: random.Random) -> list[dict[str, Any]]:
    """Runs of three agents and two workloads over a long history: versions that follow each
    other in time, values seen on many days far apart (more stretches than are walked one by
    one), rare statuses, long targets, and runs at the ends of the times a run can have."""
    runs: list[dict[str, Any]] = []
    start = dt.datetime(2026, 3, 1, 6, tzinfo=dt.UTC)
    for day in range(60):
        for i in range(rng.randint(1, 4)):
            at = start + dt.timedelta(days=day, hours=rng.randint(0, 17), seconds=i)
            labels = {"fs_version": f"6.{day // 15}", "mode": rng.choice(["a", "b"])}
            if day % 5 == 0 and i == 0:
                labels["rare"] = "yes"  # 12 days apart from each other
            runs.append(run_body(
                agent=rng.choice(["vd-a", "vd-b", "vd-c"]),
                workload=rng.choice(["smallfile", "treeops"]),
                target=rng.choice(TARGETS),
                status=rng.choices(["ok", "failed", "partial"], [12, 1, 1])[0],
                parameters={"threads": rng.choice([1, 4]), "ratio": rng.choice([0.25, 1.5]),
                            "fsync": rng.choice([False, True]),
                            **({"size": "1MiB"} if day > 40 else {})},
                labels=labels, started_at=at.isoformat(),
            ))  # fmt: skip
    # An old version, a year before, and runs at the ends of time.
    for i in range(5):
        at = dt.datetime(2025, 1, 10, tzinfo=dt.UTC) + dt.timedelta(hours=7 * i)
        runs.append(run_body(agent="vd-a", labels={"fs_version": "5.9", "mode": "a"},
                             started_at=at.isoformat()))  # fmt: skip
    # The oldest stretch of the rare label's days is two days long.
    for at in ("1970-01-01T00:00:01+00:00", "1970-01-02T23:59:59+00:00"):
        runs.append(run_body(agent="vd-b", labels={"fs_version": "5.9", "rare": "yes"},
                             started_at=at))  # fmt: skip
    soon = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=12)
    runs.append(run_body(agent="vd-b", labels={"fs_version": "7.0", "rare": "yes"},
                         started_at=soon.isoformat(), finished_at=soon.isoformat()))  # fmt: skip
    return runs


def _matches(run: dict[str, Any], filters: dict[str, Any]) -> bool:
    for field in ("workload", "agent", "status", "target"):
        if filters.get(field) and run[field] != filters[field]:  # left empty: no filter
            return False
    for param, document in (("label", run["labels"]), ("param", run["parameters"])):
        wanted: dict[str, set[str]] = {}
        for pair in filters.get(param, []):
            key, _, value = pair.partition(":")
            wanted.setdefault(key, set()).add(value)
        for key, values in wanted.items():
            if key not in document or _text(document[key]) not in values:
                return False
    started = dt.datetime.fromisoformat(run["started_at"])
    if "since" in filters and started < dt.datetime.fromisoformat(filters["since"]):
        return False
    return not ("until" in filters and started >= dt.datetime.fromisoformat(filters["until"]))


def _pages(client, headers, filters: dict[str, Any], limit: int) -> list[str]:
    seen: list[str] = []
    cursor = None
    while True:
        params = {**filters, "limit": limit, **({"cursor": cursor} if cursor else {})}
        response = client.get("/api/v1/runs", params=params, headers=headers)
        assert response.status_code == 200, (filters, response.text)
        page = response.json()
        assert len(page["items"]) <= limit
        seen.extend(item["uuid"] for item in page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            return seen
        assert len(page["items"]) == limit, filters  # a page short of the limit is the last


FILTERS: list[dict[str, Any]] = [
    {"label": ["fs_version:6.0"]},
    {"label": ["fs_version:6.3"]},
    {"label": ["fs_version:5.9"]},
    {"label": ["fs_version:5.9", "fs_version:6.2"]},
    {"label": ["fs_version:8.8"]},
    {"label": ["rare:yes"]},
    {"label": ["rare:yes", "mode:b"]},
    {"label": ["rare:yes"], "workload": "treeops"},
    {"label": ["fs_version:6.1"], "agent": "vd-c"},
    {"label": ["mode:a"], "since": "2026-03-20T00:00:00+00:00", "until": "2026-04-02T09:00:00+00:00"},
    {"label": ["fs_version:6.2"], "until": "2026-04-01T00:00:00+00:00"},
    {"param": ["threads:4"]},
    {"param": ["threads:4", "threads:1"], "label": ["fs_version:6.1"]},
    {"param": ["ratio:0.25"], "status": "failed"},
    {"param": ["fsync:true"], "workload": "smallfile"},
    {"param": ["size:1MiB"]},
    {"param": ["size:1MiB"], "until": "2026-04-05T00:00:00+00:00"},
    {"status": "failed"},
    {"status": "partial", "agent": "vd-a"},
    {"status": "aborted"},
    {"target": _LONG + "-a"},
    {"target": _LONG + "-b", "label": ["rare:yes"]},
    {"target": _LONG},
    {"target": "/mnt/xfs", "since": "2026-04-15T00:00:00+00:00"},
    {"workload": "", "status": "failed"},
    {"workload": "", "agent": "", "label": ["rare:yes"]},
]  # fmt: skip


def test_filtered_runs_lists_match_the_bodies(client, upload_headers, read_headers, engine):
    rng = random.Random(29)
    runs = _history(rng)
    order = runs[:]
    rng.shuffle(order)  # uploaded out of time order, in batches
    for at in range(0, len(order), 40):
        response = client.post("/api/v1/runs/batch", json={"runs": order[at : at + 40]},
                               headers=upload_headers)  # fmt: skip
        assert response.status_code == 200, response.text
    # A retry stores nothing more.
    retry = client.post("/api/v1/runs/batch", json={"runs": order[:25]}, headers=upload_headers)
    assert retry.status_code == 200
    newest_first = sorted(runs, key=lambda r: dt.datetime.fromisoformat(r["started_at"]),
                          reverse=True)  # fmt: skip
    assert len({r["started_at"] for r in runs}) == len(runs)  # no ties: one order
    # The rare label is on more stretches of days than are walked one by one.
    rare_days = {r["started_at"][:10] for r in runs if r["labels"].get("rare") == "yes"}
    assert len(rare_days) > STRETCHES_WALKED + 2
    for filters in FILTERS:
        want = [r["uuid"] for r in newest_first if _matches(r, filters)]
        # A page of one run on the values seen on few days (where the walk of their stretches
        # is what pages); pages of 3 cut every list at many places already.
        for limit in (1, 3, 50) if len(want) <= 20 else (3, 50):
            assert _pages(client, read_headers, filters, limit) == want, (filters, limit)
    assert all(_pages(client, read_headers, f, 200) for f in FILTERS[:4])  # not all empty

    with engine.connect() as conn:
        kept = set(conn.execute(_KEPT, {"workloads": "%"}).all())
        recomputed = set(conn.execute(_RECOMPUTED, {"workloads": "%"}).all())
    assert kept == recomputed
    # Both long targets kept as one value, their first 200 characters.
    assert {v for kind, _, v, _, _ in kept if kind == "target"} == {*TARGETS[:2], _LONG[:200]}
    assert ("label", "rare", "yes", "smallfile", dt.date(1970, 1, 1)) in kept


@pytest.mark.parametrize("round_", range(2))
def test_days_kept_under_concurrent_uploads(live_server, round_):
    """Uploads at once adding the same new days and values, with retries racing their first
    upload: every day of every value kept once, none missing, no deadlock."""
    rng = random.Random(round_)
    workloads = [f"vdc{round_}-small", f"vdc{round_}-tree"]
    base = dt.datetime(2026, 5, 1, tzinfo=dt.UTC)
    batches = [
        [run_body(agent=rng.choice(["vdc-a", "vdc-b"]), workload=rng.choice(workloads),
                  target=rng.choice(TARGETS), status=rng.choice(["ok", "failed"]),
                  parameters={"threads": rng.choice([1, 2, 4]), "tag": rng.choice(["p", "q"])},
                  labels={"fs_version": f"6.{rng.randint(0, 3)}", f"k{rng.randint(0, 2)}": "v"},
                  started_at=(base + dt.timedelta(days=rng.randint(0, 6),
                                                  seconds=rng.randint(0, 80000))).isoformat())
         for _ in range(rng.randint(1, 12))]
        for _ in range(10)
    ]  # fmt: skip
    sends = [batch + batches[(i + 1) % len(batches)][:2] for i, batch in enumerate(batches)]
    assert upload_at_once(live_server, sends) == [200] * len(sends)
    pattern = {"workloads": f"vdc{round_}-%"}
    engine = create_engine(live_server.database_url)
    try:
        with engine.connect() as conn:
            kept = conn.execute(_KEPT, pattern).all()
            recomputed = set(conn.execute(_RECOMPUTED, pattern).all())
    finally:
        engine.dispose()
    assert len(kept) == len(set(kept)) and set(kept) == recomputed
    expect = {
        ("label", "fs_version", b["labels"]["fs_version"], b["workload"],
         dt.datetime.fromisoformat(b["started_at"]).date())
        for batch in batches for b in batch
    }  # fmt: skip
    assert expect <= recomputed
