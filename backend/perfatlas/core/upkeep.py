"""Upkeep of the tables that work as queues: rows an upload inserts and the worker deletes a few
seconds later (rollup_pending, detection_requests). Each such row leaves a dead one behind, and
the queries that read the queue scan the dead with the live: after a burst of uploads, explore
read 1,600 empty pages of rollup_pending twice a request (a quarter of its throughput under
load). Autovacuum would clean them, when it runs and when it reaches them (it can be busy with
the results table for an hour, or off); so the worker vacuums a queue table itself once it has
drained it and its dead rows have piled up. On a table this small (its live rows are a backlog
at most) a VACUUM costs milliseconds. PostgreSQL only: SQLite reuses the space itself."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

# Dead rows that make a vacuum worth its while, and their share of the live ones (autovacuum's
# default scale factor).
MIN_DEAD = 1_000
DEAD_SHARE = 0.2


def _engine(session: Session) -> Engine:
    bind = session.get_bind()
    return bind if isinstance(bind, Engine) else bind.engine


def vacuum_if_bloated(
    session: Session, tables: Mapping[str, int], *, min_dead: int = MIN_DEAD
) -> list[str]:
    """VACUUM (and ANALYZE) those of `tables` with at least `min_dead` dead rows, and at least
    DEAD_SHARE of their live ones, on a connection of its own (VACUUM runs outside any
    transaction); returns the tables vacuumed, and skips one another VACUUM holds.

    `tables` maps each table to the dead rows the caller knows it left (the runs a fold just
    deleted): the statistics count them only once the caller's backend has reported them, up to
    a second later. The caller's transaction must be over (an open one keeps the rows it could
    see from being removed)."""
    engine = _engine(session)
    if engine.dialect.name != "postgresql":
        return []
    done = []
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        rows = conn.execute(
            text(
                "SELECT relname, n_dead_tup, n_live_tup FROM pg_stat_user_tables"
                " WHERE schemaname = current_schema() AND relname = ANY(:names)"
            ),
            {"names": sorted(tables)},
        ).all()
        for name, counted, live in sorted(rows):
            dead = max(counted, tables[name])
            if dead >= min_dead and dead >= DEAD_SHARE * live:
                # The name is one of ours (a table of the schema, read back from the catalog).
                conn.execute(text(f'VACUUM (ANALYZE, SKIP_LOCKED) "{name}"'))
                done.append(name)
    return done
