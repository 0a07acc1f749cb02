"""explore digests: per (series, variant) counts, sums, newest runs and quantile sketches

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26 10:10:00

- explore_digests: what explore needs of a series' and variant's folded results in a size that
  does not grow with them (rollups/digests.py), kept by the fold beside explore_rollups.
- The rollups are folded again, so that every folded result is in a digest: the existing
  rollups are emptied and every run (confirmation runs aside) is pending again. Until the
  worker has folded them, explore reads their results, exactly, as it does for any pending run.
- On PostgreSQL the records of explore_rollups are stored uncompressed (STORAGE EXTERNAL): they
  barely compress, and every append to a chunk tried to; its pages are kept 70 % full
  (fillfactor), so that an append to a head chunk (20 records now, under the TOAST threshold)
  is an update in place.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "explore_digests",
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("variant_id", sa.Integer(), nullable=False),
        sa.Column("workload", sa.String(length=64), nullable=False),
        sa.Column("metric", sa.String(length=128), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("repetitions", sa.BigInteger(), nullable=False),
        sa.Column("mean_sum", sa.Float(), nullable=False),
        sa.Column("min", sa.Float(), nullable=False),
        sa.Column("max", sa.Float(), nullable=False),
        sa.Column("flags", sa.Integer(), nullable=False),
        sa.Column("newest", sa.LargeBinary(), nullable=False),
        sa.Column("value_sketch", sa.LargeBinary(), nullable=False),
        sa.Column("p5_sketch", sa.LargeBinary(), nullable=False),
        sa.Column("p95_sketch", sa.LargeBinary(), nullable=False),
        sa.Column("head_chunk", sa.Integer(), nullable=False),
        sa.Column("head_count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["series_id"],
            ["series.id"],
            name=op.f("fk_explore_digests_series_id_series"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["variant_id"],
            ["run_variants.id"],
            name=op.f("fk_explore_digests_variant_id_run_variants"),
        ),
        sa.PrimaryKeyConstraint("series_id", "variant_id", name=op.f("pk_explore_digests")),
    )
    with op.batch_alter_table("explore_digests", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_explore_digests_workload_metric"), ["workload", "metric"], unique=False
        )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE explore_rollups ALTER COLUMN records SET STORAGE EXTERNAL")
        op.execute("ALTER TABLE explore_rollups SET (fillfactor = 70)")
    _fold_again()


def _fold_again() -> None:
    op.execute("DELETE FROM explore_rollups")
    pending = sa.table("rollup_pending", sa.column("run_id", BIG_ID))
    runs = sa.table("runs", sa.column("id", BIG_ID), sa.column("confirming", sa.Boolean()))
    op.execute(pending.delete())
    op.execute(
        pending.insert().from_select(
            ["run_id"], sa.select(runs.c.id).where(runs.c.confirming == sa.false())
        )
    )


def downgrade() -> None:
    with op.batch_alter_table("explore_digests", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_explore_digests_workload_metric"))
    op.drop_table("explore_digests")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE explore_rollups ALTER COLUMN records SET STORAGE EXTENDED")
        op.execute("ALTER TABLE explore_rollups RESET (fillfactor)")
