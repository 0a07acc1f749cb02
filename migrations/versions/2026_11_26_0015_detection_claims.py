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


def _set_aside(name: str, *indexes: str) -> None:
    """Rename the table to `name`, its indexes dropped and its constraints renamed (they keep
    their names through a rename, and the new table takes them)."""
    op.rename_table("detection_requests", name)
    with op.batch_alter_table(name) as batch:
        for index in indexes:
            batch.drop_index(index)
    if op.get_bind().dialect.name == "postgresql":
        for old, new in (
            ("pk_detection_requests", f"pk_{name}"),
            ("fk_detection_requests_series_id_series", f"fk_{name}_series"),
        ):
            op.execute(f"ALTER TABLE {name} RENAME CONSTRAINT {old} TO {new}")


def _make(*, claims: bool) -> None:
    """detection_requests as 0015 has it (claims) or as 0014 had it, with its indexes."""
    key = "id" if claims else "series_id"
    when = perfatlas.core.models.UTCDateTime(timezone=True)
    op.create_table(
        "detection_requests",
        *([sa.Column("id", sa.Integer(), nullable=False)] if claims else []),
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("requested_at", when, nullable=False),
        *([sa.Column("claimed_at", when, nullable=True)] if claims else []),
        sa.ForeignKeyConstraint(
            ["series_id"], ["series.id"],
            name=op.f("fk_detection_requests_series_id_series"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(key, name=op.f("pk_detection_requests")),
    )  # fmt: skip
    with op.batch_alter_table("detection_requests") as batch:
        batch.create_index(
            batch.f("ix_detection_requests_requested_at"), ["requested_at"], unique=False
        )
        if claims:
            batch.create_index(
                "ix_detection_requests_waiting",
                ["series_id"],
                unique=True,
                postgresql_where=sa.text("claimed_at IS NULL"),
                sqlite_where=sa.text("claimed_at IS NULL"),
            )


def upgrade() -> None:
    _set_aside("detection_requests_0014", "ix_detection_requests_requested_at")
    _make(claims=True)
    op.execute(
        "INSERT INTO detection_requests (series_id, requested_at)"
        " SELECT series_id, requested_at FROM detection_requests_0014 ORDER BY requested_at"
    )
    op.drop_table("detection_requests_0014")


def downgrade() -> None:
    _set_aside(
        "detection_requests_0015",
        "ix_detection_requests_waiting",
        "ix_detection_requests_requested_at",
    )
    _make(claims=False)
    op.execute(
        "INSERT INTO detection_requests (series_id, requested_at)"
        " SELECT series_id, min(requested_at) FROM detection_requests_0015 GROUP BY series_id"
    )
    op.drop_table("detection_requests_0015")
