"""Explore's rollups: a run's variant and per-(series, variant) packs of result records, filled
by rollups/fold.py from the runs waiting in runs.models.RollupPending."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column

from perfatlas.core.models import Base, JSONType


class RunVariant(Base):
    """What a run has that its series does not fix and that explore filters or groups by: the
    environment, the status, the full labels (the series leaves version labels out), the
    durability and cache facts. Runs of one series that share all of these share a variant."""

    __tablename__ = "run_variants"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # sha256 of the canonical JSON of every field below (rollups/fold.py variant_key).
    hash: Mapped[str] = mapped_column(String(64), unique=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id"))
    environment_id: Mapped[int | None] = mapped_column(ForeignKey("environments.id"))
    status: Mapped[str] = mapped_column(String(16))
    target: Mapped[str] = mapped_column(String(1024))
    labels: Mapped[dict[str, str]] = mapped_column(JSONType)
    fsync_policy: Mapped[str | None] = mapped_column(String(16))
    o_direct: Mapped[bool | None] = mapped_column(Boolean)
    sync_mount: Mapped[bool | None] = mapped_column(Boolean)
    write_cache: Mapped[str | None] = mapped_column(String(16))
    flush_to_device: Mapped[bool | None] = mapped_column(Boolean)
    memory_backed: Mapped[bool | None] = mapped_column(Boolean)
    cold_method: Mapped[str | None] = mapped_column(String(32))


class ExploreRollup(Base):
    """The folded results of one series and one variant: `records` holds `count` fixed-size
    records (core/records.py RECORD), appended to the head chunk (the highest) until it holds
    CHUNK_RECORDS, then a new chunk is opened, so that a fold never rewrites a large value (rows stay
    under PostgreSQL's TOAST threshold; the table leaves room in its pages for updates in place)."""

    __tablename__ = "explore_rollups"
    # Explore reads one metric's rows: one index range, however the series' ids interleave.
    __table_args__ = (Index("ix_explore_rollups_workload_metric", "workload", "metric"),)

    series_id: Mapped[int] = mapped_column(
        ForeignKey("series.id", ondelete="CASCADE"), primary_key=True
    )
    variant_id: Mapped[int] = mapped_column(ForeignKey("run_variants.id"), primary_key=True)
    chunk: Mapped[int] = mapped_column(Integer, primary_key=True)
    # The series' own (copied, as results copy them).
    workload: Mapped[str] = mapped_column(String(64))
    metric: Mapped[str] = mapped_column(String(128))
    count: Mapped[int] = mapped_column(Integer)
    records: Mapped[bytes] = mapped_column(LargeBinary)


class ChunkBounds(Base):
    """The earliest and latest start of a full chunk of explore_rollups (microseconds since
    the epoch, UTC), written once, by the fold that fills the chunk: a series' newest points
    are read from the chunks that can hold them (series/rolled.py), found by this index
    without reading the others. A head chunk that is not full has no row (its pair's digest
    says where it is): a row would change with every append, and an append to a head stays an
    update in place only while no indexed column of explore_rollups changes."""

    __tablename__ = "explore_chunk_bounds"
    __table_args__ = (Index("ix_explore_chunk_bounds_series_id_last", "series_id", "last_started"),)

    series_id: Mapped[int] = mapped_column(
        ForeignKey("series.id", ondelete="CASCADE"), primary_key=True
    )
    variant_id: Mapped[int] = mapped_column(ForeignKey("run_variants.id"), primary_key=True)
    chunk: Mapped[int] = mapped_column(Integer, primary_key=True)
    count: Mapped[int] = mapped_column(Integer)
    first_started: Mapped[int] = mapped_column(BigInteger)
    last_started: Mapped[int] = mapped_column(BigInteger)


class ExploreDigest(Base):
    """What explore needs of one series' and one variant's folded results in a size that does not
    grow with them (rollups/digests.py): exact counts, sums, extremes, flags and newest runs,
    and a quantile sketch (core/sketch.py) each of the results' values, p5 and p95. Kept by
    the fold in the transaction that appends the same records to `explore_rollups`."""

    __tablename__ = "explore_digests"
    __table_args__ = (Index("ix_explore_digests_workload_metric", "workload", "metric"),)

    series_id: Mapped[int] = mapped_column(
        ForeignKey("series.id", ondelete="CASCADE"), primary_key=True
    )
    variant_id: Mapped[int] = mapped_column(ForeignKey("run_variants.id"), primary_key=True)
    workload: Mapped[str] = mapped_column(String(64))
    metric: Mapped[str] = mapped_column(String(128))
    count: Mapped[int] = mapped_column(Integer)
    repetitions: Mapped[int] = mapped_column(BigInteger)
    # The sum of each result's mean times its repetitions (math.fsum per fold batch).
    mean_sum: Mapped[float] = mapped_column(Float)
    min: Mapped[float] = mapped_column(Float)
    max: Mapped[float] = mapped_column(Float)
    flags: Mapped[int] = mapped_column(Integer)
    # The newest runs (digests.NEWEST records, newest first, at most records.RUNS_PER_POINT).
    newest: Mapped[bytes] = mapped_column(LargeBinary)
    value_sketch: Mapped[bytes] = mapped_column(LargeBinary)
    p5_sketch: Mapped[bytes] = mapped_column(LargeBinary)
    p95_sketch: Mapped[bytes] = mapped_column(LargeBinary)
    # The pair's head chunk in explore_rollups and how many records it holds: the next fold
    # appends there (rollups/fold.py), without looking for it.
    head_chunk: Mapped[int] = mapped_column(Integer)
    head_count: Mapped[int] = mapped_column(Integer)


def _columns() -> tuple[str, ...]:
    return tuple(c.name for c in RunVariant.__table__.columns if c.name not in ("id", "hash"))


# The run fields a variant holds, in its hash's order.
VARIANT_FIELDS: tuple[str, ...] = _columns()
