"""confirmations: a confirm job's plan, runs.confirming, alerts unique per kind

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-22 23:02:59.662169

- jobs.plan: a confirmation job's variants, rounds and time budget (confirm/plan.py).
- runs.confirming: a confirmation job's run, kept out of the series' history; its results
  carry the CONFIRMING trust bit, so the series' covering index now includes `flags` (a
  series' points are read without the confirmation runs from the index alone).
- alerts are unique per (series, change run, kind): a `stopped` alert names the series' last
  run, which may also be the change run of a regression.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SERIES_INCLUDE = ["value", "n", "min", "max", "p5", "p95", "run_uuid", "environment_id"]


def upgrade() -> None:
    with op.batch_alter_table("alerts", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_alerts_series_id_change_run_id"), type_="unique")
        batch_op.create_unique_constraint(
            batch_op.f("uq_alerts_series_id_change_run_id_kind"),
            ["series_id", "change_run_id", "kind"],
        )

    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "plan",
                sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
                nullable=True,
            )
        )

    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("confirming", sa.Boolean(), server_default=sa.false(), nullable=False)
        )

    op.drop_index(
        "ix_results_series_id_started_at",
        table_name="results",
        postgresql_include=SERIES_INCLUDE,
    )
    op.create_index(
        "ix_results_series_id_started_at",
        "results",
        ["series_id", "started_at"],
        unique=False,
        postgresql_include=["flags", *SERIES_INCLUDE],
    )


def downgrade() -> None:
    op.drop_index(
        "ix_results_series_id_started_at",
        table_name="results",
        postgresql_include=["flags", *SERIES_INCLUDE],
    )
    op.create_index(
        "ix_results_series_id_started_at",
        "results",
        ["series_id", "started_at"],
        unique=False,
        postgresql_include=SERIES_INCLUDE,
    )

    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_column("confirming")

    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_column("plan")

    with op.batch_alter_table("alerts", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("uq_alerts_series_id_change_run_id_kind"), type_="unique"
        )
        batch_op.create_unique_constraint(
            batch_op.f("uq_alerts_series_id_change_run_id"), ["series_id", "change_run_id"]
        )
