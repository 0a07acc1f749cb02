"""explore rollups: run variants, per-(series, variant) record packs, runs pending a fold

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26 06:50:00

- run_variants: what a run has that its series does not fix (environment, status, labels,
  durability and cache facts), unique by their hash.
- explore_rollups: one row per (series, variant, chunk) holding `count` packed records.
- rollup_pending: runs not folded yet. Every stored run (confirmation runs aside) starts
  pending, so an upgraded database answers explore exactly from the results until the worker
  has folded them.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "run_variants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("environment_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("target", sa.String(length=1024), nullable=False),
        sa.Column("labels", JSON, nullable=False),
        sa.Column("fsync_policy", sa.String(length=16), nullable=True),
        sa.Column("o_direct", sa.Boolean(), nullable=True),
        sa.Column("sync_mount", sa.Boolean(), nullable=True),
        sa.Column("write_cache", sa.String(length=16), nullable=True),
        sa.Column("flush_to_device", sa.Boolean(), nullable=True),
        sa.Column("memory_backed", sa.Boolean(), nullable=True),
        sa.Column("cold_method", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_run_variants_agent_id_agents")
        ),
        sa.ForeignKeyConstraint(
            ["environment_id"],
            ["environments.id"],
            name=op.f("fk_run_variants_environment_id_environments"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_variants")),
        sa.UniqueConstraint("hash", name=op.f("uq_run_variants_hash")),
    )
    op.create_table(
        "explore_rollups",
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("variant_id", sa.Integer(), nullable=False),
        sa.Column("chunk", sa.Integer(), nullable=False),
        sa.Column("workload", sa.String(length=64), nullable=False),
        sa.Column("metric", sa.String(length=128), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("records", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["series_id"],
            ["series.id"],
            name=op.f("fk_explore_rollups_series_id_series"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["variant_id"],
            ["run_variants.id"],
            name=op.f("fk_explore_rollups_variant_id_run_variants"),
        ),
        sa.PrimaryKeyConstraint(
            "series_id", "variant_id", "chunk", name=op.f("pk_explore_rollups")
        ),
    )
    with op.batch_alter_table("explore_rollups", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_explore_rollups_workload_metric"), ["workload", "metric"], unique=False
        )
    pending = op.create_table(
        "rollup_pending",
        sa.Column("run_id", BIG_ID, nullable=False),
        sa.PrimaryKeyConstraint("run_id", name=op.f("pk_rollup_pending")),
    )
    runs = sa.table("runs", sa.column("id", BIG_ID), sa.column("confirming", sa.Boolean()))
    op.execute(
        pending.insert().from_select(
            ["run_id"], sa.select(runs.c.id).where(runs.c.confirming == sa.false())
        )
    )


def downgrade() -> None:
    op.drop_table("rollup_pending")
    with op.batch_alter_table("explore_rollups", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_explore_rollups_workload_metric"))
    op.drop_table("explore_rollups")
    op.drop_table("run_variants")
