"""Environments, runs, results and series, their tallies, and the runs waiting for the fold."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    Uuid,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from perfatlas.agents.models import Agent
from perfatlas.core.models import Base, BigId, JSONType, UTCDateTime, utcnow


class Environment(Base):
    __tablename__ = "environments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hash: Mapped[str] = mapped_column(String(64), unique=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSONType)
    hostname: Mapped[str | None] = mapped_column(String(255))
    kernel: Mapped[str | None] = mapped_column(String(255))
    os: Mapped[str | None] = mapped_column(String(255))
    cpu_model: Mapped[str | None] = mapped_column(String(255))
    cores: Mapped[int | None] = mapped_column(Integer)
    ram_bytes: Mapped[int | None] = mapped_column(BigInteger)
    fs_type: Mapped[str | None] = mapped_column(String(64))
    device: Mapped[str | None] = mapped_column(String(255))
    device_model: Mapped[str | None] = mapped_column(String(255))
    rotational: Mapped[bool | None] = mapped_column(Boolean)
    mount_options: Mapped[str | None] = mapped_column(String(1024))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class Run(Base):
    __tablename__ = "runs"
    __table_args__ = (
        Index("ix_runs_started_at_id", "started_at", "id"),
        Index("ix_runs_workload_started_at", "workload", "started_at"),
        Index("ix_runs_agent_id_started_at", "agent_id", "started_at"),
        Index("ix_runs_job_id", "job_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    uuid: Mapped[uuid_mod.UUID] = mapped_column(Uuid, unique=True)
    # sha256 of the canonical request body: the same uuid with another body is a conflict.
    body_hash: Mapped[str] = mapped_column(String(64))
    # No foreign keys, as on results (below): a run is written once, by runs/ingest.py alone,
    # in the transaction that reads or inserts its agent and environment, and neither is ever
    # deleted. The database's two checks per row were a seventh of PostgreSQL's time per
    # upload. tests/backend/runs/test_concurrency.py checks that every run's agent and environment
    # exist and are the ones its body named.
    agent_id: Mapped[int] = mapped_column(Integer)
    environment_id: Mapped[int | None] = mapped_column(Integer)
    workload: Mapped[str] = mapped_column(String(64))
    target: Mapped[str] = mapped_column(String(1024))
    parameters: Mapped[dict[str, Any]] = mapped_column(JSONType)
    labels: Mapped[dict[str, str]] = mapped_column(JSONType)
    started_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    status: Mapped[str] = mapped_column(String(16))
    job_id: Mapped[int | None] = mapped_column(BigInteger)
    # A confirmation job's run (its job_id names a confirm job): kept out of the series'
    # history (detection, explore, series points); results carry the CONFIRMING trust bit.
    confirming: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Published figures entered by hand (references/): its results carry the REFERENCE trust
    # bit; detection and alert baselines leave it out, every reader shows it marked.
    reference: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Durability and cache facts: runs that differ here are not comparable (seed 004).
    fsync_policy: Mapped[str | None] = mapped_column(String(16))
    o_direct: Mapped[bool | None] = mapped_column(Boolean)
    sync_mount: Mapped[bool | None] = mapped_column(Boolean)
    # The kernel's write-cache mode ("write back" / "write through"), whether a flush reaches
    # stable storage, and whether the target is memory (tmpfs): see core/durability.py.
    write_cache: Mapped[str | None] = mapped_column(String(16))
    flush_to_device: Mapped[bool | None] = mapped_column(Boolean)
    memory_backed: Mapped[bool | None] = mapped_column(Boolean)
    cold_method: Mapped[str | None] = mapped_column(String(32))
    meta: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    agent: Mapped[Agent] = relationship(
        lazy="joined", primaryjoin="Agent.id == foreign(Run.agent_id)"
    )
    environment: Mapped[Environment | None] = relationship(
        lazy="joined", primaryjoin="Environment.id == foreign(Run.environment_id)"
    )
    results: Mapped[list[Result]] = relationship(
        back_populates="run",
        primaryjoin="Run.id == foreign(Result.run_id)",
        order_by="Result.metric",
        passive_deletes=True,
    )


class RunCount(Base):
    """How many runs each agent stored of each workload: the agents list's and the catalog's
    counts, kept by ingest (runs/tallies.py) rather than counted over every run at each read.
    No foreign key, as `runs`: ingest alone writes it, in the transaction of the runs it
    counts, and neither runs nor agents are ever deleted."""

    __tablename__ = "run_counts"

    agent_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workload: Mapped[str] = mapped_column(String(64), primary_key=True)
    runs: Mapped[int] = mapped_column(BigInteger)


class CatalogValue(Base):
    """Each parameter's and label's value seen with a workload's runs, once: what the catalog
    lists, kept by ingest (runs/tallies.py). `value` is the value's canonical JSON, so that
    1, 1.0, true and "1" stay four values, as the runs hold them."""

    __tablename__ = "catalog_values"

    workload: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)  # parameter | label
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text, primary_key=True)


class RunValueDay(Base):
    """The days (UTC) on which a value of a run's labels, parameters, status or target was seen
    with a workload, once: kept by ingest so that a runs list filtered on a rare or an old value
    walks only the days that hold it (runs/value_days.py). `value` is the value as the runs
    list's filter compares it (`->>`), cut to its first 200 characters (a longer value's days
    are those of every value sharing them); `name` is empty for status and target. Written and
    read on PostgreSQL only: on SQLite the list walks the runs."""

    __tablename__ = "run_value_days"

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text, primary_key=True)
    workload: Mapped[str] = mapped_column(String(64), primary_key=True)
    day: Mapped[dt.date] = mapped_column(Date, primary_key=True)


class Series(Base):
    """One metric's history for one fixed set of dimensions, time and version aside."""

    __tablename__ = "series"
    __table_args__ = (Index("ix_series_workload_metric", "workload", "metric"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    workload: Mapped[str] = mapped_column(String(64))
    metric: Mapped[str] = mapped_column(String(128))
    unit: Mapped[str] = mapped_column(String(16))
    direction: Mapped[str] = mapped_column(String(8))
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id"))
    target: Mapped[str] = mapped_column(String(1024))
    parameters: Mapped[dict[str, Any]] = mapped_column(JSONType)
    labels: Mapped[dict[str, str]] = mapped_column(JSONType)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    agent: Mapped[Agent] = relationship(lazy="joined")


EXPLORE_COLUMNS = [
    "value", "run_id", "run_uuid", "started_at", "agent_id", "environment_id", "series_id",
    "flags", "n", "mean", "min", "max", "p5", "p95",
]  # fmt: skip


class Result(Base):
    __tablename__ = "results"
    __table_args__ = (
        Index("ix_results_run_id_metric", "run_id", "metric", unique=True),
        # Covers explore: one metric of one workload is read from the index alone, without
        # visiting the table's pages (22,500 scattered pages per query at 1M results): every
        # figure of a point (explore/aggregate.py) and the ids its dimensions join on.
        Index(
            "ix_results_workload_metric",
            "workload",
            "metric",
            postgresql_include=EXPLORE_COLUMNS,
        ),
        # Covers a series' points, so reading 10,000 of them touches only this index.
        Index(
            "ix_results_series_id_started_at",
            "series_id",
            "started_at",
            postgresql_include=[
                "flags",
                "value",
                "n",
                "min",
                "max",
                "p5",
                "p95",
                "run_uuid",
                "environment_id",
            ],
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    # No foreign keys, like agent_id and environment_id below: a result is written once, by
    # runs/ingest.py alone, in the transaction that inserts its run and reads or inserts its
    # series, and neither runs nor series are ever deleted. The database's checks cost a
    # fifth of the machine's CPU per stored result (two lookups per row, and a lock on the
    # series row that concurrent uploads to one series share), for rows that cannot miss.
    # tests/backend/runs/test_concurrency.py checks that every result's run and series exist.
    run_id: Mapped[int] = mapped_column(BigId)
    series_id: Mapped[int] = mapped_column(Integer)
    # Copied from the run so that explore and series reads need one index, not a join first.
    workload: Mapped[str] = mapped_column(String(64))
    started_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    run_uuid: Mapped[uuid_mod.UUID] = mapped_column(Uuid)
    environment_id: Mapped[int | None] = mapped_column(Integer)
    agent_id: Mapped[int] = mapped_column(Integer)
    # Trust flags (core/trust.py): short phase, busy machine, too few repetitions.
    flags: Mapped[int] = mapped_column(SmallInteger, default=0, server_default="0")
    metric: Mapped[str] = mapped_column(String(128))
    unit: Mapped[str] = mapped_column(String(16))
    direction: Mapped[str] = mapped_column(String(8))
    value: Mapped[float] = mapped_column(Float)
    samples: Mapped[list[float]] = mapped_column(JSONType)
    n: Mapped[int] = mapped_column(Integer)
    mean: Mapped[float] = mapped_column(Float)
    stdev: Mapped[float] = mapped_column(Float)
    min: Mapped[float] = mapped_column(Float)
    max: Mapped[float] = mapped_column(Float)
    p5: Mapped[float] = mapped_column(Float)
    p50: Mapped[float] = mapped_column(Float)
    p95: Mapped[float] = mapped_column(Float)
    p99: Mapped[float] = mapped_column(Float)

    run: Mapped[Run] = relationship(
        back_populates="results", primaryjoin="Run.id == foreign(Result.run_id)"
    )


class RollupPending(Base):
    """A stored run whose results are not folded yet: written by ingest in the run's own
    transaction, deleted by the fold in the transaction that folds it. Explore reads a pending
    run's results from the results table, so its answer never depends on the fold's lag."""

    __tablename__ = "rollup_pending"

    # No foreign key: ingest writes these rows by COPY beside the runs, and a check per row
    # would cost the upload; the fold drops a pending run that is gone.
    run_id: Mapped[int] = mapped_column(BigId, primary_key=True)
