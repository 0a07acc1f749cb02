"""Files kept with a run: the command's script, raw per-operation latencies, tool output."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    BigInteger,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from perfatlas.core.models import Base, UTCDateTime, utcnow

BigId = BigInteger().with_variant(Integer(), "sqlite")


class Attachment(Base):
    __tablename__ = "attachments"
    # One name per run; the unique index also serves "a run's attachments" (run_id first).
    __table_args__ = (UniqueConstraint("run_id", "name"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    media_type: Mapped[str] = mapped_column(String(127))
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    # Bounded (PERFATLAS_ATTACHMENT_MAX_BYTES): kept in the database, so that a run and its
    # files are backed up, exported and deleted together. Loaded only when downloaded.
    content: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
