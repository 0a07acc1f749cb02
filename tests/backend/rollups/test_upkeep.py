"""The fold vacuums the tables it churns once it has drained them (core/upkeep.py): after a
fold of more than MIN_DEAD runs rollup_pending is vacuumed and its pages are gone; a small
fold, or one with nothing to do, leaves it to autovacuum; explore's answer is the oracle's
either way. SQLite has nothing to vacuum."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.core import upkeep
from perfatlas.core.db import session_factory
from perfatlas.rollups import fold
from perfatlas.rollups import service as rollups
from tests.backend.rollups.history import bodies, check_all, runs_of
from tests.backend.rollups.test_fold import asker, ingest


def table_stats(engine: Engine, table: str) -> tuple[int, int]:
    """(times vacuumed by hand, from PostgreSQL's statistics; bytes on disk) of a table."""
    with engine.connect() as conn:
        row = conn.execute(
            text(
                "SELECT vacuum_count, pg_relation_size(relid) FROM pg_stat_user_tables"
                " WHERE schemaname = current_schema() AND relname = :t"
            ),
            {"t": table},
        ).one()
    return int(row[0]), int(row[1])


def fold_all(db: sessionmaker[Session]) -> int:
    with db() as session:
        done = rollups.fold_pending(session)
        assert fold.pending_count(session) == 0
    return done.runs


def test_a_fold_that_drained_many_runs_vacuums_the_pending_table(engine: Engine) -> None:
    # The database is this test process's: earlier tests' folds may have left rollup_pending
    # dead rows enough for a vacuum (one failed that way under `-n 3`). Start from none: the
    # pool's connections closed (their backends report what they did as they exit), then a
    # vacuum.
    engine.dispose()
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM rollup_pending"))
    db = session_factory(engine)
    made: list[dict[str, Any]] = []
    small = bodies(upkeep.MIN_DEAD // 10, seed=3)
    made += small
    assert ingest(db, small) == len(small)
    before = table_stats(engine, "rollup_pending")
    assert fold_all(db) == len(small)
    # Fewer dead rows than a vacuum is worth: left for autovacuum.
    assert table_stats(engine, "rollup_pending")[0] == before[0]

    many = bodies(upkeep.MIN_DEAD + 200, seed=4, start=len(small))
    made += many
    assert ingest(db, many) == len(many)
    assert fold_all(db) == len(many)
    vacuumed, size = table_stats(engine, "rollup_pending")
    assert vacuumed == before[0] + 1
    # Every row dead and removed: the empty pages went back to the system.
    assert size == 0
    # Nothing to fold: nothing vacuumed.
    assert fold_all(db) == 0
    assert table_stats(engine, "rollup_pending")[0] == vacuumed
    check_all(asker(db), runs_of(made), "after the vacuum")


def test_upkeep_reads_the_statistics_and_leaves_sqlite_alone(db: sessionmaker[Session]) -> None:
    with db() as session:
        dialect = session.get_bind().dialect.name
        # Once vacuumed (whatever earlier tests left), no dead row is counted, and none known
        # to the caller: nothing to do anywhere.
        upkeep.vacuum_if_bloated(session, {"rollup_pending": 0}, min_dead=0)
        assert upkeep.vacuum_if_bloated(session, {"rollup_pending": 0}) == []
        # The caller's count decides on PostgreSQL; SQLite reuses its space itself.
        done = upkeep.vacuum_if_bloated(session, {"detection_requests": upkeep.MIN_DEAD})
    assert done == (["detection_requests"] if dialect == "postgresql" else [])
