"""run_value_days: the days on which each label's, parameter's, status's and target's value was
seen with a workload

A runs list filtered on a label, a parameter, a status or a target walked the runs newest first
until it had a page: for a value that is rare, old or absent, that was every run stored (190 ms
at 200,000 runs, ten times that at ten times the runs). Ingest now keeps the days each value was
seen (runs/value_days.py), and the list walks those days only. Here they are computed from the
runs stored before (PostgreSQL; on SQLite the list walks the runs and the table stays empty),
with the runs table locked against inserts while they are: stop the API, or run this migration
from the new code's `perfatlas migrate`, so that no upload by the old code is left out.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-29 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "run_value_days",
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("workload", sa.String(length=64), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.PrimaryKeyConstraint(
            "kind", "name", "value", "workload", "day", name=op.f("pk_run_value_days")
        ),
    )
    if op.get_bind().dialect.name != "postgresql":
        return
    # Uploads wait until this transaction commits, and are noted by the new code. Each value as
    # `->>` gives it (runs/value_days.py PG_NOTE writes the same text), from the runs' columns.
    op.execute(sa.text("LOCK TABLE runs IN SHARE MODE"))
    op.execute(
        sa.text(
            "INSERT INTO run_value_days (kind, name, value, workload, day)"
            " SELECT DISTINCT e.kind, e.name, left(e.value, 200), r.workload,"
            " (r.started_at AT TIME ZONE 'UTC')::date"
            " FROM runs AS r CROSS JOIN LATERAL ("
            " SELECT 'label', key, value FROM jsonb_each_text(r.labels)"
            " UNION ALL SELECT 'parameter', key, value FROM jsonb_each_text(r.parameters)"
            " UNION ALL SELECT 'status', '', r.status"
            " UNION ALL SELECT 'target', '', r.target) AS e(kind, name, value)"
            " WHERE e.value IS NOT NULL"
        )
    )


def downgrade() -> None:
    op.drop_table("run_value_days")
