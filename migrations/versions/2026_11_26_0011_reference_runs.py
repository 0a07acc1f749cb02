"""reference runs: runs.reference

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26 07:00:00.000000

- runs.reference: published figures entered by hand with their source (POST /references,
  `perfatlas reference import`); their results carry the REFERENCE trust bit (16), so every
  reader shows them marked, and detection and alert baselines leave them out.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("reference", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_column("reference")
