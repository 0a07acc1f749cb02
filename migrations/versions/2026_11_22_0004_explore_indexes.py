"""explore reads every figure of a point from one covering index

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 21:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies of the INCLUDE lists (runs/models.py EXPLORE_COLUMNS as of this revision).
_NEW = [
    "value", "run_id", "run_uuid", "started_at", "agent_id", "environment_id", "series_id",
    "flags", "n", "mean", "min", "max", "p5", "p95",
]  # fmt: skip
_OLD = ["value", "run_id", "run_uuid", "started_at"]


def _rebuild(include: list[str]) -> None:
    op.drop_index("ix_results_workload_metric", table_name="results")
    op.create_index(
        "ix_results_workload_metric",
        "results",
        ["workload", "metric"],
        postgresql_include=include,
    )


def upgrade() -> None:
    _rebuild(_NEW)


def downgrade() -> None:
    _rebuild(_OLD)
