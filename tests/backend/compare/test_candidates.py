"""The runs a group comparison reads, found through explore's rollups (compare/candidates.py),
on PostgreSQL and SQLite: exactly the folded runs in the groups and filters that the variants
can judge, every pending run of the workload, nothing of another workload."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.auth.service import create_token
from perfatlas.compare import candidates
from perfatlas.compare.groups import HISTORY
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.explore import dims
from perfatlas.main import create_app
from perfatlas.rollups import service as rollups
from perfatlas.runs.models import Run
from tests.databases import migrate
from tests.factories import BASE_TIME, result, run_body

METRICS = ["create.ops_per_s", "delete.seconds"]


def bodies() -> list[dict]:
    """Runs varying along everything a variant or series holds: agent, target, fs type,
    version label, a parameter; and a second workload."""
    runs = []
    env = run_body()["environment"]
    for i, (agent, target, fs, version, threads) in enumerate(
        (a, t, fs, v, th)
        for a in ("lab-1", "lab-2")
        for t, fs in (("/mnt/a", "ext4"), ("/mnt/b", "xfs"))
        for v in ("6.1", "6.5", "6.8")
        for th in (1, 4)
    ):
        runs.append(run_body(
            agent=agent, target=target, labels={"fs_version": version, "mode": "c"},
            parameters={**run_body()["parameters"], "threads": threads},
            environment={**env, "hostname": agent, "fs_type": fs},
            started_at=(BASE_TIME + dt.timedelta(minutes=i)).isoformat(),
            results=[result("create.ops_per_s", [100.0 + i, 101.0 + i, 99.0 + i]),
                     result("delete.seconds", [1.0, 1.1, 0.9], unit="s")],
        ))  # fmt: skip
    runs.append(run_body(workload="seqio", labels={"fs_version": "6.1"},
                         results=[result("write.mb_per_s", [500.0, 510.0, 490.0])]))  # fmt: skip
    return runs


def found(session: Session, by: str, values: list[str], filters: list[str]) -> set[int] | None:
    scope = dims.Scope(session=session, workload="smallfile", metric="create.ops_per_s")
    conditions = dims.filters(scope, filters).conditions
    return candidates.candidate_runs(
        session, workload="smallfile", metrics=METRICS, by=dims.resolve(scope, by, field="by").expr,
        values=values, conditions=conditions,
    )  # fmt: skip


def ids(session: Session, uuids: list[str]) -> set[int]:
    return set(
        session.scalars(select(Run.id).where(Run.uuid.in_([uuid_mod.UUID(u) for u in uuids])))
    )


def check(engine, client, headers) -> None:
    runs = bodies()
    first, later = runs[::2], runs[1::2]
    assert client.post("/api/v1/runs/batch", json={"runs": first}, headers=headers).is_success
    with session_factory(engine)() as session:
        assert rollups.fold_pending(session).runs == len(first)
    # Not folded yet: every pending run of the workload is a candidate, whatever its labels.
    assert client.post("/api/v1/runs/batch", json={"runs": later}, headers=headers).is_success
    pending = [r["uuid"] for r in later if r["workload"] == "smallfile"]
    cases = [
        ("fs_version", ["6.1", "6.5"], [], lambda r: r["labels"]["fs_version"] in ("6.1", "6.5")),
        ("fs_version", ["6.8", "6.1"], ["agent:lab-1"],
         lambda r: r["labels"]["fs_version"] != "6.5" and r["agent"] == "lab-1"),
        ("fs_type", ["ext4", "xfs"], ["threads:4"], lambda r: r["parameters"]["threads"] == 4),
        ("threads", ["1", "4"], ["fs_type:xfs", "fs_version:6.5"],
         lambda r: r["target"] == "/mnt/b" and r["labels"]["fs_version"] == "6.5"),
        ("target", ["/mnt/a"], [], lambda r: r["target"] == "/mnt/a"),
        ("agent", ["lab-2"], [], lambda r: r["agent"] == "lab-2"),
        # A time filter is left to the comparison's own query: the folded runs in the groups.
        ("fs_version", ["6.5"], ["time:..2026-06-01T12:03:00+00:00"],
         lambda r: r["labels"]["fs_version"] == "6.5"),
    ]  # fmt: skip
    with session_factory(engine)() as session:
        for by, values, filters, keep in cases:
            folded = [r["uuid"] for r in first if r["workload"] == "smallfile" and keep(r)]
            expected = ids(session, folded + pending)
            assert found(session, by, values, filters) == expected, (by, values, filters)
            assert len(expected) < len(runs) - 1  # the rollups did narrow
        assert candidates.known_metrics(session, "smallfile", HISTORY) == METRICS
        assert candidates.known_metrics(session, "seqio", HISTORY) == ["write.mb_per_s"]
        assert candidates.known_metrics(session, "fio", HISTORY) == []


def test_candidates_on_postgresql(engine, client, upload_headers) -> None:
    check(engine, client, upload_headers)


def test_candidates_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'candidates.db'}"
    migrate(url)
    with session_factory(get_engine(url))() as session:
        token = create_token(session, name="t", scope="upload")[1]
    with TestClient(create_app(Settings(database_url=url))) as client:
        check(get_engine(url), client, {"Authorization": f"Bearer {token}"})


@pytest.mark.parametrize("by", ["fs_version", "threads"])
def test_unknown_values_find_only_pending_runs(engine, client, upload_headers, by) -> None:
    runs = bodies()[:6]
    assert client.post("/api/v1/runs/batch", json={"runs": runs}, headers=upload_headers).is_success
    with session_factory(engine)() as session:
        rollups.fold_pending(session)
        assert found(session, by, ["9.9"], []) == set()
