"""jobs_of_an_agent_or_schedule: the jobs list of one agent or schedule walks its own jobs

The list of an agent's jobs (made for it or held by it) walked every job newest first until it
had a page: for an agent whose jobs are old, every newer job (200 ms at 500,000 jobs). Each of
the two ties now has an index in the list's order (jobs/queries.py). A schedule's jobs were
read by schedule and firing time, then sorted: all of them, at every page; the index by
schedule is now in the list's order (the unique constraint's index, by schedule and firing
time, serves the firings).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-29 13:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_schedule_id_fire_at")
        batch_op.create_index(
            "ix_jobs_schedule_id_created_at_id", ["schedule_id", "created_at", "id"], unique=False
        )
        batch_op.create_index(
            "ix_jobs_agent_id_created_at_id", ["agent_id", "created_at", "id"], unique=False
        )
        batch_op.create_index(
            "ix_jobs_leased_by_id_created_at_id", ["leased_by_id", "created_at", "id"],
            unique=False,
        )  # fmt: skip


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_leased_by_id_created_at_id")
        batch_op.drop_index("ix_jobs_agent_id_created_at_id")
        batch_op.drop_index("ix_jobs_schedule_id_created_at_id")
        batch_op.create_index(
            "ix_jobs_schedule_id_fire_at", ["schedule_id", "fire_at"], unique=False
        )
