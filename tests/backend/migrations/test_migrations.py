"""The migrations build exactly the schema the models describe, on PostgreSQL and SQLite,
and downgrade back to nothing."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import orjson
import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, select

from perfatlas.agents.models import Agent
from perfatlas.cli import _alembic_config
from perfatlas.core.config import Settings
from perfatlas.core.db import make_engine, session_factory
from perfatlas.core.measurement import RunCreate
from perfatlas.core.records import unpack
from perfatlas.models import Base
from perfatlas.rollups import service as rollups
from perfatlas.rollups.models import ChunkBounds, ExploreRollup
from perfatlas.runs import service as runs_service
from perfatlas.runs.models import CatalogValue, RunCount, RunValueDay
from tests.backend.rollups.history import bodies
from tests.databases import create_database, db_name, drop_database
from tests.factories import run_body

T = TypeVar("T")


def _diff(url: str) -> list[object]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


@pytest.fixture(params=["postgresql", "sqlite"])
def empty_db(request: pytest.FixtureRequest, tmp_path: Path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'migrations.db'}"
        return
    name = db_name("migrations")
    yield create_database(name)
    drop_database(name)


def test_models_and_migrations_agree(empty_db: str) -> None:
    config = _alembic_config(empty_db)
    command.upgrade(config, "head")  # type: ignore[arg-type]
    assert _diff(empty_db) == []
    assert _tables(empty_db) == set(Base.metadata.tables)
    command.upgrade(config, "head")  # type: ignore[arg-type]  # again: a no-op
    command.downgrade(config, "base")  # type: ignore[arg-type]
    assert _tables(empty_db) == set()
    command.upgrade(config, "head")  # type: ignore[arg-type]
    assert _diff(empty_db) == []


def test_full_chunks_bounds_are_computed_from_the_records_of_existing_rollups(
    empty_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Migration 0018 on rollups folded before it: a row of explore_chunk_bounds for every full
    chunk (CHUNK_RECORDS, 20, records), none for a head that is not full, from the records,
    read 7 chunks at a time."""
    config = _alembic_config(empty_db)
    command.upgrade(config, "head")  # type: ignore[arg-type]
    engine = make_engine(empty_db)
    try:
        with session_factory(engine)() as session:
            made = bodies(150, seed=5) + bodies(90, seed=6, start=-200)
            runs_service.ingest(
                session, runs=[RunCreate.model_validate(b) for b in made],
                ignore_labels=Settings.model_fields["series_ignore_labels"].default,
            )  # fmt: skip
            session.commit()
            assert rollups.fold_pending(session, limit=50).runs == 240
            folded = session.execute(select(ChunkBounds)).scalars().all()
            made_by_fold = {(b.series_id, b.variant_id, b.chunk, b.first_started, b.last_started)
                            for b in folded}  # fmt: skip
        command.downgrade(config, "0017")  # type: ignore[arg-type]
        monkeypatch.setenv("PERFATLAS_MIGRATION_PAGE", "7")
        command.upgrade(config, "head")  # type: ignore[arg-type]
        with session_factory(engine)() as session:
            rows = session.execute(
                select(ExploreRollup.series_id, ExploreRollup.variant_id, ExploreRollup.chunk,
                       ExploreRollup.count, ExploreRollup.records)
            ).all()  # fmt: skip
            bounds = {(b.series_id, b.variant_id, b.chunk): b
                      for b in session.execute(select(ChunkBounds)).scalars()}  # fmt: skip
    finally:
        engine.dispose()
    full = [row for row in rows if row.count == 20]
    assert len(full) >= 8 and len(full) < len(rows)
    assert set(bounds) == {(r.series_id, r.variant_id, r.chunk) for r in full}
    for row in full:
        started = unpack(row.records)["started"]
        got = bounds[(row.series_id, row.variant_id, row.chunk)]
        assert (got.count, got.first_started, got.last_started) == (
            20,
            started.min(),
            started.max(),
        )
    # The same rows as the fold wrote as it filled the chunks.
    assert {(k[0], k[1], k[2], b.first_started, b.last_started)
            for k, b in bounds.items()} == made_by_fold  # fmt: skip


def _ingested_then_migrated(
    url: str,
    engine: Any,
    made: list[dict[str, Any]],
    read: Callable[[], T],
    before: str,
    table: str,
) -> tuple[T, T]:
    """What ingest keeps of these runs (`read`), then what the migrations compute from them
    once they are stored: down to `before`, which has no `table`, and up again."""
    config = _alembic_config(url)
    with session_factory(engine)() as session:
        runs_service.ingest(
            session,
            runs=[RunCreate.model_validate(b) for b in made],
            ignore_labels=Settings.model_fields["series_ignore_labels"].default,
        )
        session.commit()
    kept = read()
    command.downgrade(config, before)  # type: ignore[arg-type]
    assert table not in _tables(url)
    command.upgrade(config, "head")  # type: ignore[arg-type]
    return kept, read()


def test_run_counts_and_catalog_values_are_computed_from_the_runs_stored_before(
    empty_db: str,
) -> None:
    """Migration 0019 on runs stored before it: the counts of each agent's runs of each
    workload, and each parameter's and label's value, the same as ingest keeps them and as the
    runs sent hold them."""
    config = _alembic_config(empty_db)
    command.upgrade(config, "head")  # type: ignore[arg-type]
    made = [
        run_body(agent=f"mig-{a}", workload=w, parameters={"k": k, "ratio": r, "cached": c},
                 labels={"fs_version": f"6.{v}", "mode": "x"})
        for a in range(3) for w in ("smallfile", "treeops") for k in (1, 3, 10)
        for r in (0.5, 2.0) for c in (False, True) for v in range(a + 1)
    ]  # fmt: skip
    engine = make_engine(empty_db)

    def read() -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
        with engine.connect() as conn:
            counts = conn.execute(select(RunCount.agent_id, RunCount.workload, RunCount.runs)
                                  .order_by(RunCount.agent_id, RunCount.workload)).all()  # fmt: skip
            values = conn.execute(
                select(CatalogValue.workload, CatalogValue.kind, CatalogValue.name,
                       CatalogValue.value).order_by(*CatalogValue.__table__.primary_key)
            ).all()  # fmt: skip
        return [tuple(r) for r in counts], [tuple(r) for r in values]

    try:
        kept, computed = _ingested_then_migrated(empty_db, engine, made, read, "0018", "run_counts")
        with engine.connect() as conn:
            names = dict(conn.execute(select(Agent.id, Agent.name)).all())
    finally:
        engine.dispose()
    assert computed == kept
    counts, values = computed
    sent = Counter((b["agent"], b["workload"]) for b in made)
    assert {(names[a], w): n for a, w, n in counts} == dict(sent)
    assert len(counts) == 6 and sum(sent.values()) == len(made) == 2 * 3 * 2 * 2 * 6
    expect = {
        (w, kind, name, orjson.dumps(value).decode())
        for b in made for w in [b["workload"]]
        for kind, doc in (("parameter", b["parameters"]), ("label", b["labels"]))
        for name, value in doc.items()
    }  # fmt: skip
    assert set(values) == expect and len(values) == len(expect)
    assert ("smallfile", "parameter", "ratio", "2.0") in expect  # 2.0 stays a float


def test_run_value_days_are_computed_from_the_runs_stored_before(empty_db: str) -> None:
    """Migration 0020 on runs stored before it: the days of each label's, parameter's, status's
    and target's value, the same as ingest keeps them and as the runs sent hold them (on
    PostgreSQL; on SQLite the runs list walks the runs and nothing is kept)."""
    config = _alembic_config(empty_db)
    command.upgrade(config, "head")  # type: ignore[arg-type]
    engine = make_engine(empty_db)
    if empty_db.startswith("postgresql"):
        # A day is a UTC day, whatever the zone of the connection computing it.
        with engine.begin() as conn:
            conn.exec_driver_sql(
                f"ALTER DATABASE {engine.url.database} SET timezone = 'Pacific/Kiritimati'"
            )
        engine.dispose()
    start = dt.datetime(2026, 2, 27, 22, tzinfo=dt.UTC)
    made = [
        run_body(workload=w, status=s, target=f"/mnt/{t}" + "é" * (300 * t), started_at=(start + dt.timedelta(hours=9 * d + t)).isoformat(),
                 parameters={"k": d % 3, "ratio": 0.5 * (d % 2), "cached": d % 2 == 0, "size": "4KiB"},
                 labels={"fs_version": f"6.{d // 3}"})
        for w in ("smallfile", "treeops") for d in range(8) for t in range(2)
        for s in (("ok", "failed") if d == 5 else ("ok",))
    ]  # fmt: skip
    columns = RunValueDay.__table__.primary_key.columns

    def read() -> set[tuple[object, ...]]:
        with engine.connect() as conn:
            return {tuple(r) for r in conn.execute(select(*columns))}

    try:
        kept, computed = _ingested_then_migrated(
            empty_db, engine, made, read, "0019", "run_value_days"
        )
    finally:
        engine.dispose()
    assert computed == kept
    if not empty_db.startswith("postgresql"):
        assert computed == set()
        return
    expect = {
        (kind, name, str(value).lower() if isinstance(value, bool) else str(value),
         b["workload"], dt.datetime.fromisoformat(b["started_at"]).date())
        for b in made
        for kind, name, value in [
            *(("parameter", k, v) for k, v in b["parameters"].items()),
            *(("label", k, v) for k, v in b["labels"].items()),
            ("status", "", b["status"]), ("target", "", b["target"][:200]),
        ]
    }  # fmt: skip
    assert computed == expect
    assert ("status", "", "failed", "treeops", dt.date(2026, 3, 1)) in expect
