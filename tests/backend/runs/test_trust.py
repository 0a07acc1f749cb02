"""Trust flags and durability facts: what an upload says about how far its numbers can be
trusted, computed at ingest and shown with the run (and by a migration for stored runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient

from perfatlas.cli import _alembic_config
from perfatlas.core import trust
from perfatlas.core.db import make_engine
from tests.databases import create_database, db_name, drop_database
from tests.factories import result, run_body


def _snap(load: float, memory: float = 0.0) -> dict[str, float]:
    return {"loadavg_1m": load, "pressure_memory_some_avg10": memory, "cpu_user_s": 1.0}


def _reps(*pairs: tuple[dict[str, float], dict[str, float]], warmup: bool = False) -> list:
    return [{"warmup": warmup, "before": b, "after": a} for b, a in pairs]


def _upload(client: TestClient, headers: dict[str, str], **overrides) -> dict:
    response = client.post("/api/v1/runs", json=run_body(**overrides), headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


def _flags(run: dict) -> dict[str, list[str]]:
    return {r["metric"]: r["flags"] for r in run["results"]}


def test_quiet_run_with_enough_repetitions_has_no_flags(client, upload_headers):
    run = _upload(
        client, upload_headers, meta={"reps": _reps((_snap(0.5), _snap(2.5))), "short_phases": []}
    )
    assert set(map(tuple, _flags(run).values())) == {()}
    assert run["trust"] == []


def test_short_phase_flags_only_that_phases_metrics(client, upload_headers):
    run = _upload(
        client,
        upload_headers,
        meta={"short_phases": ["create"]},
        results=[
            result("create.ops_per_s", [1.0, 2.0, 3.0]),
            result("create.seconds", [0.1, 0.2, 0.3], unit="s"),
            result("created.ops_per_s", [1.0, 2.0, 3.0]),  # another phase, same prefix
            result("read_cold.ops_per_s", [1.0, 2.0, 3.0]),
        ],
    )
    assert _flags(run) == {
        "create.ops_per_s": ["short_phase"],
        "create.seconds": ["short_phase"],
        "created.ops_per_s": [],
        "read_cold.ops_per_s": [],
    }
    assert run["trust"] == [
        {
            "flag": "short_phase",
            "reason": trust.REASONS["short_phase"],
            "metrics": ["create.ops_per_s", "create.seconds"],
        }
    ]


@pytest.mark.parametrize(
    ("reps", "busy"),
    [
        # Load before a measured repetition above 1.5 x the 2 cores.
        (_reps((_snap(3.5), _snap(1.0))), True),
        # The workload's own load after a repetition does not count.
        (_reps((_snap(0.5), _snap(8.0))), False),
        # Memory pressure counts before or after.
        (_reps((_snap(0.1), _snap(0.1, memory=12.0))), True),
        # A warm-up repetition is not measured.
        (_reps((_snap(9.0), _snap(9.0)), warmup=True), False),
    ],
)
def test_busy_machine_flags_every_metric(client, upload_headers, reps, busy):
    run = _upload(client, upload_headers, meta={"reps": reps})
    expected = ["busy"] if busy else []
    assert all(flags == expected for flags in _flags(run).values())


def test_few_repetitions(client, upload_headers):
    run = _upload(
        client,
        upload_headers,
        results=[result("a.ops_per_s", [1.0, 2.0]), result("b.ops_per_s", [1.0, 2.0, 3.0])],
    )
    assert _flags(run) == {"a.ops_per_s": ["few_repetitions"], "b.ops_per_s": []}


def test_durability_facts_as_stored(client, upload_headers, read_headers):
    legacy = _upload(client, upload_headers, write_cache="disabled")
    assert legacy["write_cache"] == "write through"
    assert legacy["memory_backed"] is None and legacy["flush_to_device"] is None
    tmpfs = _upload(
        client,
        upload_headers,
        fsync_policy="file",
        environment={**run_body()["environment"], "fs_type": "tmpfs"},
    )
    assert (tmpfs["memory_backed"], tmpfs["flush_to_device"]) == (True, False)
    said = _upload(
        client, upload_headers, write_cache="write back", flush_to_device=True, memory_backed=False
    )
    assert (said["write_cache"], said["flush_to_device"], said["memory_backed"]) == (
        "write back",
        True,
        False,
    )
    # A retry of the legacy body is still a retry, not a conflict.
    again = client.post(
        "/api/v1/runs",
        json={**run_body(write_cache="disabled"), "uuid": legacy["uuid"]},
        headers=upload_headers,
    )
    assert again.status_code == 200, again.text


def test_migration_backfills_stored_runs(tmp_path: Path):
    for url in (f"sqlite:///{tmp_path / 'm.db'}", None):
        name = None
        if url is None:
            name = db_name("trust_migration")
            url = create_database(name)
        try:
            _check_backfill(url)
        finally:
            if name:
                drop_database(name)


def _check_backfill(url: str) -> None:
    config = _alembic_config(url)
    command.upgrade(config, "0002")  # type: ignore[arg-type]
    engine = make_engine(url)
    meta = {
        "short_phases": ["create"],
        "reps": _reps((_snap(5.0), _snap(0.1))),
    }
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO agents (id, name, labels, created_at) VALUES "
                             "(7, 'a', '{}', '2026-01-01')"))  # fmt: skip
        conn.execute(
            sa.text(
                "INSERT INTO environments (id, hash, data, fs_type, cores, created_at) VALUES "
                "(1, 'h1', '{}', 'tmpfs', 2, '2026-01-01'), (2, 'h2', '{}', 'ext4', 8, '2026-01-01')"
            )
        )
        # Run 3's meta is free-form JSON that only looks like the agent's: numbers where the
        # agent writes lists, and a phase whose `_` a LIKE pattern would take for a wildcard.
        odd = {"reps": 3, "short_phases": ["read_x"]}
        for run_id, env_id, cache, run_meta in (
            (1, 1, "enabled", meta),
            (2, 2, "disabled", meta),
            (3, 2, None, odd),
            (4, 2, None, {"reps": "many", "short_phases": 7}),
        ):
            conn.execute(
                sa.text(
                    "INSERT INTO runs (id, uuid, body_hash, agent_id, environment_id, workload, "
                    "target, parameters, labels, started_at, status, write_cache, meta, created_at)"
                    " VALUES (:id, :uuid, 'x', 7, :env, 'w', '/t', '{}', '{}', '2026-01-01', 'ok',"
                    " :cache, :meta, '2026-01-01')"
                ),
                {
                    "id": run_id,
                    "uuid": f"00000000-0000-0000-0000-00000000000{run_id}",
                    "env": env_id,
                    "cache": cache,
                    "meta": json.dumps(run_meta),
                },
            )
        conn.execute(sa.text("INSERT INTO series (id, key_hash, workload, metric, unit, direction, "
                             "agent_id, target, parameters, labels, created_at) VALUES (1, 'k', 'w',"
                             " 'm', 's', 'lower', 7, '/t', '{}', '{}', '2026-01-01')"))  # fmt: skip
        rows = [
            (1, 1, "create.seconds", 5), (2, 1, "read.seconds", 2), (3, 2, "create.seconds", 3),
            (4, 3, "read_x.seconds", 3), (5, 3, "readXx.seconds", 3), (6, 4, "create.seconds", 3),
        ]  # fmt: skip
        for result_id, run_id, metric, n in rows:
            conn.execute(
                sa.text(
                    "INSERT INTO results (id, run_id, series_id, workload, started_at, run_uuid, "
                    "metric, unit, direction, value, samples, n, mean, stdev, min, max, p5, p50, "
                    "p95, p99) VALUES (:id, :run, 1, 'w', '2026-01-01', "
                    "'00000000-0000-0000-0000-000000000001', :metric, 's', 'lower', 1, '[1]', :n,"
                    " 1, 0, 1, 1, 1, 1, 1, 1)"
                ),
                {"id": result_id, "run": run_id, "metric": metric, "n": n},
            )
    command.upgrade(config, "0003")  # type: ignore[arg-type]
    with engine.connect() as conn:
        runs = conn.execute(
            sa.text("SELECT id, write_cache, memory_backed, flush_to_device FROM runs ORDER BY id")
        ).all()
        results = conn.execute(sa.text("SELECT id, agent_id, flags FROM results ORDER BY id")).all()
    engine.dispose()
    assert [tuple(r) for r in runs] == [
        (1, "write back", True, False),
        (2, "write through", None, None),
        (3, None, None, None),
        (4, None, None, None),
    ]
    # Run 1: busy (load 5 > 1.5 x 2 cores) on every result, short on create.*; run 2 is on 8
    # cores with the same meta: not busy; 3 repetitions is enough.
    assert [tuple(r) for r in results] == [
        (1, 7, trust.BUSY | trust.SHORT_PHASE),
        (2, 7, trust.BUSY | trust.FEW_REPETITIONS),
        (3, 7, trust.SHORT_PHASE),
        (4, 7, trust.SHORT_PHASE),
        (5, 7, 0),
        (6, 7, 0),
    ]
    command.downgrade(config, "0002")  # type: ignore[arg-type]
