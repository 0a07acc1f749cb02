"""worker_heartbeats: the worker's heartbeat per queue, read by /ready

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-05 01:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from perfatlas.core.models import UTCDateTime

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "worker_heartbeats",
        sa.Column("queue", sa.String(length=200), nullable=False),
        sa.Column("beat_at", UTCDateTime(), nullable=False),
        sa.Column("down_since", UTCDateTime(), nullable=True),
        sa.Column("detail", sa.String(length=500), nullable=False),
        sa.PrimaryKeyConstraint("queue", name=op.f("pk_worker_heartbeats")),
    )


def downgrade() -> None:
    op.drop_table("worker_heartbeats")
