"""trust flags and agent on results; memory-backed media and flushes on runs

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 20:40:00
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies of runs/trust.py's rules as they were when this migration was written.
_SHORT, _BUSY, _FEW = 1, 2, 4


def _busy(meta: dict[str, Any], cores: int | None) -> bool:
    reps = meta.get("reps")
    for rep in reps if isinstance(reps, list) else []:
        if not isinstance(rep, dict) or rep.get("warmup"):
            continue
        for side in ("before", "after"):
            snap = rep.get(side)
            if not isinstance(snap, dict):
                continue
            memory = snap.get("pressure_memory_some_avg10")
            if isinstance(memory, int | float) and memory >= 10.0:
                return True
            load = snap.get("loadavg_1m")
            if side == "before" and isinstance(load, int | float) and cores and load > 1.5 * cores:
                return True
    return False


def upgrade() -> None:
    op.add_column("runs", sa.Column("flush_to_device", sa.Boolean(), nullable=True))
    op.add_column("runs", sa.Column("memory_backed", sa.Boolean(), nullable=True))
    op.add_column("results", sa.Column("agent_id", sa.Integer(), nullable=True))
    op.add_column(
        "results", sa.Column("flags", sa.SmallInteger(), server_default="0", nullable=False)
    )
    bind = op.get_bind()
    bind.execute(
        sa.text(
            "UPDATE results SET agent_id = (SELECT runs.agent_id FROM runs "
            "WHERE runs.id = results.run_id)"
        )
    )
    bind.execute(
        sa.text("UPDATE runs SET write_cache = 'write back' WHERE write_cache = 'enabled'")
    )
    bind.execute(
        sa.text("UPDATE runs SET write_cache = 'write through' WHERE write_cache = 'disabled'")
    )
    bind.execute(
        sa.text(
            "UPDATE runs SET memory_backed = true, flush_to_device = false WHERE environment_id IN "
            "(SELECT id FROM environments WHERE fs_type IN ('tmpfs', 'ramfs'))"
        )
    )
    bind.execute(sa.text("UPDATE results SET flags = :few WHERE n < 3"), {"few": _FEW})
    runs = sa.table(
        "runs", sa.column("id"), sa.column("meta", sa.JSON()), sa.column("environment_id")
    )
    envs = sa.table("environments", sa.column("id"), sa.column("cores"))
    query = sa.select(runs.c.id, runs.c.meta, envs.c.cores).select_from(
        runs.outerjoin(envs, envs.c.id == runs.c.environment_id)
    )
    # meta is free-form JSON: only lists mean what the agent writes there (as in runs/trust.py).
    # The runs are read in pages by id and the flags written after each page, so that neither
    # every run's meta nor an open cursor is held while updating.
    last = 0
    while True:
        page = bind.execute(query.where(runs.c.id > last).order_by(runs.c.id).limit(1000)).all()
        if not page:
            break
        last = page[-1][0]
        for run_id, meta, cores in page:
            meta = meta if isinstance(meta, dict) else {}
            bits = _BUSY if _busy(meta, cores) else 0
            phases = meta.get("short_phases")
            short = (
                [p for p in phases if isinstance(p, str) and p] if isinstance(phases, list) else []
            )
            if bits:
                bind.execute(
                    sa.text("UPDATE results SET flags = flags | :bits WHERE run_id = :id"),
                    {"bits": bits, "id": run_id},
                )
            for phase in short:
                bind.execute(
                    sa.text(
                        "UPDATE results SET flags = flags | :short WHERE run_id = :id "
                        "AND (metric = :phase OR substr(metric, 1, :length) = :prefix)"
                    ),
                    {
                        "short": _SHORT,
                        "id": run_id,
                        "phase": phase,
                        "prefix": phase + ".",
                        "length": len(phase) + 1,
                    },
                )
    with op.batch_alter_table("results") as batch:
        batch.alter_column("agent_id", existing_type=sa.Integer(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("flags")
        batch.drop_column("agent_id")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("memory_backed")
        batch.drop_column("flush_to_device")
    op.get_bind().execute(
        sa.text("UPDATE runs SET write_cache = 'enabled' WHERE write_cache = 'write back'")
    )
    op.get_bind().execute(
        sa.text("UPDATE runs SET write_cache = 'disabled' WHERE write_cache = 'write through'")
    )
