"""detection_requests: claims, so that a check holds no lock an upload would wait for

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 13:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("detection_requests") as batch:
        batch.add_column(sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column("again", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("detection_requests") as batch:
        batch.drop_column("again")
        batch.drop_column("claimed_at")
