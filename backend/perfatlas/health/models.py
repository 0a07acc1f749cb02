"""The worker's heartbeat: one row per queue, written by a beat-sent task, so that its age says
whether beat, the broker and a worker consuming the queue all work."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from perfatlas.core.models import Base, UTCDateTime


class WorkerHeartbeat(Base):
    __tablename__ = "worker_heartbeats"

    queue: Mapped[str] = mapped_column(String(200), primary_key=True)
    beat_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    # Set by `perfatlas serve --with-worker` when its worker process died, cleared by the next
    # heartbeat: readiness says so at once instead of when the heartbeat grows old.
    down_since: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    detail: Mapped[str] = mapped_column(String(500), default="")
