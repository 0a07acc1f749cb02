"""run_counts and catalog_values: what the agents list and the catalog count, kept by ingest

The agents list counted every run at each read (grouped by agent) and the catalog read every
run's parameters and labels, so both grew with the runs stored. Ingest now keeps the runs of
each agent and workload, and each parameter's and label's value seen with a workload
(runs/tallies.py). Here they are computed from the runs stored before, with the runs table
locked against inserts while they are (PostgreSQL): stop the API, or run this migration from
the new code's `perfatlas migrate`, so that no upload by the old code is left uncounted.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-29 03:00:00
"""

from collections.abc import Sequence

import orjson
import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CHUNK = 1000


def upgrade() -> None:
    counts = op.create_table(
        "run_counts",
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("workload", sa.String(length=64), nullable=False),
        sa.Column("runs", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("agent_id", "workload", name=op.f("pk_run_counts")),
    )
    values = op.create_table(
        "catalog_values",
        sa.Column("workload", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint(
            "workload", "kind", "name", "value", name=op.f("pk_catalog_values")
        ),
    )
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        # Uploads wait until this transaction commits, and are counted by the new code.
        op.execute(sa.text("LOCK TABLE runs IN SHARE MODE"))
    runs = sa.table(
        "runs", sa.column("agent_id", sa.Integer()), sa.column("workload", sa.String()),
        sa.column("parameters", sa.JSON()), sa.column("labels", sa.JSON()),
    )  # fmt: skip
    r = runs.c
    made = [
        {"agent_id": agent_id, "workload": workload, "runs": n}
        for agent_id, workload, n in bind.execute(
            sa.select(r.agent_id, r.workload, sa.func.count()).group_by(r.agent_id, r.workload)
        )
    ]
    for start in range(0, len(made), _CHUNK):
        bind.execute(counts.insert(), made[start : start + _CHUNK])
    # Each value as its canonical JSON (runs/tallies.py: orjson, keys sorted).
    seen: set[tuple[str, str, str, str]] = set()
    for workload, parameters, labels in bind.execute(
        sa.select(r.workload, r.parameters, r.labels).distinct()
    ):
        for kind, document in (("parameter", parameters), ("label", labels)):
            for name, value in (document or {}).items():
                text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
                seen.add((workload, kind, name, text))
    rows = [{"workload": w, "kind": k, "name": n, "value": v} for w, k, n, v in sorted(seen)]
    for start in range(0, len(rows), _CHUNK):
        bind.execute(values.insert(), rows[start : start + _CHUNK])


def downgrade() -> None:
    op.drop_table("catalog_values")
    op.drop_table("run_counts")
