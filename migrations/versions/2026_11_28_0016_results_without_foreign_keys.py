"""results: no foreign keys to runs and series

A result is written once, by ingest, in the transaction that inserts its run and reads or
inserts its series; runs and series are never deleted. The two checks per stored row cost
about a fifth of the machine's CPU per result, and each took a share lock on its series row.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 02:20:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_constraint("fk_results_run_id_runs", type_="foreignkey")
        batch.drop_constraint("fk_results_series_id_series", type_="foreignkey")


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.create_foreign_key(
            "fk_results_run_id_runs", "runs", ["run_id"], ["id"], ondelete="CASCADE"
        )
        batch.create_foreign_key("fk_results_series_id_series", "series", ["series_id"], ["id"])
