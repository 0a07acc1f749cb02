"""explore_chunk_bounds: each full chunk's earliest and latest start

A series' newest points are read from explore's rollups (runs/series_rolled.py): the head
chunks, and the full chunks that can hold one of the newest points, found by this table's index
without reading the others. The fold writes a row when it fills a chunk; here the rows of the
chunks already full (every chunk but a pair's head, and a head with 20 records) are computed
from their records (a record's start, microseconds since the epoch, is the 8 bytes at offset 48
of its 80: core/records.py RECORD), under the fold's lock. Workers should run the new code
before this migration runs (stop them, migrate, start them): a full chunk without its row is
left out of its series' newest points.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28 13:00:00
"""

import os
from collections.abc import Sequence

import numpy as np
import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STARTED = np.dtype({"names": ["started"], "formats": ["<i8"], "offsets": [48], "itemsize": 80})
_FULL = 20  # rollups/fold.py CHUNK_RECORDS
# rollups/fold.py FOLD_LOCK: a fold of a worker still on the code before this migration fills
# chunks without writing their rows; it tries this lock and leaves its work while it is held.
_FOLD_LOCK = 0x726F6C6C757073


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(sa.text(f"SELECT pg_advisory_xact_lock({_FOLD_LOCK})"))
    op.create_table(
        "explore_chunk_bounds",
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("variant_id", sa.Integer(), nullable=False),
        sa.Column("chunk", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("first_started", sa.BigInteger(), nullable=False),
        sa.Column("last_started", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["series_id"],
            ["series.id"],
            name=op.f("fk_explore_chunk_bounds_series_id_series"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["variant_id"],
            ["run_variants.id"],
            name=op.f("fk_explore_chunk_bounds_variant_id_run_variants"),
        ),
        sa.PrimaryKeyConstraint(
            "series_id", "variant_id", "chunk", name=op.f("pk_explore_chunk_bounds")
        ),
    )
    op.create_index(
        op.f("ix_explore_chunk_bounds_series_id_last"),
        "explore_chunk_bounds",
        ["series_id", "last_started"],
        unique=False,
    )
    _full_chunks()


def _full_chunks() -> None:
    """A row for every full chunk, a page of chunks at a time, in key order."""
    bind = op.get_bind()
    rollups = sa.table(
        "explore_rollups", *(sa.column(c) for c in ("series_id", "variant_id", "chunk", "count")),
        sa.column("records", sa.LargeBinary()),
    )  # fmt: skip
    digests = sa.table(
        "explore_digests", *(sa.column(c) for c in ("series_id", "variant_id", "head_chunk"))
    )
    bounds = sa.table(
        "explore_chunk_bounds",
        *(sa.column(c) for c in ("series_id", "variant_id", "chunk", "count")),
        *(sa.column(c, sa.BigInteger()) for c in ("first_started", "last_started")),
    )
    r, d = rollups.c, digests.c
    # Chunks read at a time (tests/backend/migrations/test_migrations.py reads a few at a time).
    page_size = int(os.environ.get("PERFATLAS_MIGRATION_PAGE", "5000"))
    key = sa.tuple_(r.series_id, r.variant_id, r.chunk)
    full = (
        sa.select(r.series_id, r.variant_id, r.chunk, r.records)
        .join(digests, sa.and_(d.series_id == r.series_id, d.variant_id == r.variant_id))
        .where(sa.or_(r.chunk < d.head_chunk, r.count >= _FULL))
        .order_by(r.series_id, r.variant_id, r.chunk)
        .limit(page_size)
    )
    after: tuple[int, int, int] | None = None
    while True:
        page = full if after is None else full.where(key > sa.tuple_(*map(sa.literal, after)))
        rows = bind.execute(page).all()
        if not rows:
            return
        made = []
        for series_id, variant_id, chunk, records in rows:
            started = np.frombuffer(records, dtype=_STARTED)["started"]
            made.append({
                "series_id": series_id, "variant_id": variant_id, "chunk": chunk,
                "count": len(started), "first_started": int(started.min()),
                "last_started": int(started.max()),
            })  # fmt: skip
        bind.execute(bounds.insert(), made)
        after = (rows[-1][0], rows[-1][1], rows[-1][2])


def downgrade() -> None:
    op.drop_index(op.f("ix_explore_chunk_bounds_series_id_last"), table_name="explore_chunk_bounds")
    op.drop_table("explore_chunk_bounds")
