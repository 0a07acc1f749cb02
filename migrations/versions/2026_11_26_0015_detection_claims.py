"""detection_requests: claimed rows beside waiting ones, so that an upload never waits for a check

A check claims its batch (claimed_at) in a transaction of its own; a claimed row leaves the
unique index of waiting rows, so an upload during the check inserts a new waiting row instead
of locking the claimed one. The table is made anew with a key of its own; the waiting requests
are copied over.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 13:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import perfatlas.core.models

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _old_table(name: str) -> None:
    op.create_table(
        name,
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("requested_at", perfatlas.core.models.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["series_id"], ["series.id"],
            name=op.f("fk_detection_requests_series_id_series"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("series_id", name=op.f("pk_detection_requests")),
    )  # fmt: skip


def upgrade() -> None:
    op.rename_table("detection_requests", "detection_requests_0014")
    with op.batch_alter_table("detection_requests_0014") as batch:
        batch.drop_index("ix_detection_requests_requested_at")
    if op.get_bind().dialect.name == "postgresql":
        # The constraints keep their names through a rename; the new table takes them.
        op.execute(
            "ALTER TABLE detection_requests_0014 RENAME CONSTRAINT pk_detection_requests"
            " TO pk_detection_requests_0014"
        )
        op.execute(
            "ALTER TABLE detection_requests_0014 RENAME CONSTRAINT"
            " fk_detection_requests_series_id_series TO fk_detection_requests_0014_series"
        )
    op.create_table(
        "detection_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("requested_at", perfatlas.core.models.UTCDateTime(timezone=True), nullable=False),
        sa.Column("claimed_at", perfatlas.core.models.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["series_id"], ["series.id"],
            name=op.f("fk_detection_requests_series_id_series"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_detection_requests")),
    )  # fmt: skip
    with op.batch_alter_table("detection_requests") as batch:
        batch.create_index(
            batch.f("ix_detection_requests_requested_at"), ["requested_at"], unique=False
        )
        batch.create_index(
            "ix_detection_requests_waiting",
            ["series_id"],
            unique=True,
            postgresql_where=sa.text("claimed_at IS NULL"),
            sqlite_where=sa.text("claimed_at IS NULL"),
        )
    op.execute(
        "INSERT INTO detection_requests (series_id, requested_at)"
        " SELECT series_id, requested_at FROM detection_requests_0014 ORDER BY requested_at"
    )
    op.drop_table("detection_requests_0014")


def downgrade() -> None:
    op.rename_table("detection_requests", "detection_requests_0015")
    with op.batch_alter_table("detection_requests_0015") as batch:
        batch.drop_index("ix_detection_requests_waiting")
        batch.drop_index("ix_detection_requests_requested_at")
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "ALTER TABLE detection_requests_0015 RENAME CONSTRAINT pk_detection_requests"
            " TO pk_detection_requests_0015"
        )
        op.execute(
            "ALTER TABLE detection_requests_0015 RENAME CONSTRAINT"
            " fk_detection_requests_series_id_series TO fk_detection_requests_0015_series"
        )
    _old_table("detection_requests")
    with op.batch_alter_table("detection_requests") as batch:
        batch.create_index(
            batch.f("ix_detection_requests_requested_at"), ["requested_at"], unique=False
        )
    op.execute(
        "INSERT INTO detection_requests (series_id, requested_at)"
        " SELECT series_id, min(requested_at) FROM detection_requests_0015 GROUP BY series_id"
    )
    op.drop_table("detection_requests_0015")
