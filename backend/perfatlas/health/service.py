"""Health (the process and its database answer) and readiness (the database, the broker and a
worker with beat all work; how old the background backlog is)."""

from __future__ import annotations

import datetime as dt
import threading

from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from perfatlas import __version__
from perfatlas.alerts.models import DetectionRequest
from perfatlas.core import outage
from perfatlas.core.config import Settings
from perfatlas.core.models import utcnow
from perfatlas.health.models import WorkerHeartbeat
from perfatlas.health.schemas import Health, Part, Ready
from perfatlas.runs.models import RollupPending, Run

HEARTBEAT = "perfatlas.heartbeat"
BROKER_TIMEOUT_SECONDS = 2.0
# The parts whose failure makes the deployment not ready; the backlogs are told, not gating.
GATING = ("database", "broker", "worker")

_broker_lock = threading.Lock()
_broker_down_since: dict[str, dt.datetime] = {}


def beat(session: Session, *, queue: str, now: dt.datetime | None = None) -> None:
    """A worker on `queue` is alive: its heartbeat now, and no longer down."""
    now = now or utcnow()
    row = session.get(WorkerHeartbeat, queue)
    if row is None:
        session.add(WorkerHeartbeat(queue=queue, beat_at=now, down_since=None, detail=""))
    else:
        row.beat_at, row.down_since, row.detail = now, None, ""
    session.commit()


def mark_worker_down(session: Session, *, queue: str, detail: str) -> None:
    """The worker of `queue` is known dead (its supervisor saw it exit) until it beats again."""
    now = utcnow()
    done = session.execute(
        update(WorkerHeartbeat)
        .where(WorkerHeartbeat.queue == queue, WorkerHeartbeat.down_since.is_(None))
        .values(down_since=now, detail=detail[:500])
    )
    if not done.rowcount and session.get(WorkerHeartbeat, queue) is None:  # type: ignore[attr-defined]
        session.add(WorkerHeartbeat(queue=queue, beat_at=now, down_since=now, detail=detail[:500]))
    session.commit()


def health(session: Session) -> Health:
    session.execute(text("SELECT 1"))
    outage.mark_up()
    return Health(status="ok", version=__version__, database=session.get_bind().dialect.name)


def database_down() -> Health:
    return Health(
        status="down", version=__version__, database="unknown", down=["database"],
        since=outage.down_since(),
    )  # fmt: skip


def broker_part(settings: Settings, now: dt.datetime) -> Part:
    url = settings.effective_broker_url
    if not url.startswith(("redis://", "rediss://")):
        # The database broker (and memory://) answers when the database does.
        return Part(name="broker", ok=True, detail=f"{url.split('://', 1)[0]}: the database")
    import redis

    try:
        client = redis.Redis.from_url(
            url, socket_timeout=BROKER_TIMEOUT_SECONDS,
            socket_connect_timeout=BROKER_TIMEOUT_SECONDS,
        )  # fmt: skip
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, OSError) as exc:
        with _broker_lock:
            since = _broker_down_since.setdefault(url, now)
        # The error names host and port; a URL's password never reaches it.
        return Part(
            name="broker", ok=False, detail=f"Redis does not answer: {type(exc).__name__}",
            since=since, age_seconds=seconds_since(now, since),
        )  # fmt: skip
    with _broker_lock:
        _broker_down_since.pop(url, None)
    return Part(name="broker", ok=True, detail="Redis answers")


def worker_part(session: Session, settings: Settings, now: dt.datetime) -> Part:
    row = session.get(WorkerHeartbeat, settings.queue)
    bound = settings.ready_heartbeat_seconds
    if row is None:
        return Part(
            name="worker", ok=False,
            detail=f"no worker with beat has run on queue {settings.queue!r} yet",
        )  # fmt: skip
    age = seconds_since(now, row.beat_at)
    if row.down_since is not None:
        return Part(
            name="worker", ok=False, detail=row.detail or "the worker process exited",
            since=row.down_since, age_seconds=age,
        )  # fmt: skip
    if age is not None and age > bound:
        return Part(
            name="worker", ok=False,
            detail=f"no heartbeat for {age:.0f} s (bound {bound:.0f} s): the worker, its beat "
            "or the broker is down or stuck",
            since=row.beat_at, age_seconds=age,
        )  # fmt: skip
    return Part(name="worker", ok=True, detail="heartbeat", since=None, age_seconds=age)


def oldest_waiting(session: Session) -> tuple[dt.datetime | None, dt.datetime | None]:
    """When the oldest run waiting for the fold was stored, and the oldest series waiting for
    its check asked for it (None: nothing waits); /ready and /metrics both read these."""
    oldest_run = session.scalar(
        select(Run.created_at).where(
            Run.id == select(func.min(RollupPending.run_id)).scalar_subquery()
        )
    )
    return oldest_run, session.scalar(select(func.min(DetectionRequest.requested_at)))


def seconds_since(now: dt.datetime, then: dt.datetime | None) -> float | None:
    return None if then is None else max(0.0, (now - then).total_seconds())


def backlog_parts(session: Session, settings: Settings, now: dt.datetime) -> list[Part]:
    bound = settings.ready_backlog_seconds
    oldest_run, oldest_check = oldest_waiting(session)
    parts = []
    for name, oldest, what in (
        ("fold_backlog", oldest_run, "a run waiting for explore's fold"),
        ("check_backlog", oldest_check, "a series waiting for its check"),
    ):
        waited = seconds_since(now, oldest)
        late = waited is not None and waited > bound
        detail = (
            "nothing waits" if waited is None
            else f"{what} has waited {waited:.0f} s" + (f" (bound {bound:.0f} s)" if late else "")
        )  # fmt: skip
        parts.append(Part(name=name, ok=not late, detail=detail, since=oldest, age_seconds=waited))
    return parts


def readiness(session: Session, settings: Settings) -> Ready:
    now = utcnow()
    session.execute(text("SELECT 1"))
    outage.mark_up()
    parts = [
        Part(name="database", ok=True, detail=f"{session.get_bind().dialect.name} answers"),
        broker_part(settings, now),
        worker_part(session, settings, now),
        *backlog_parts(session, settings, now),
    ]
    ready = all(p.ok for p in parts if p.name in GATING)
    return Ready(status="ready" if ready else "not_ready", parts=parts)


def database_not_ready(settings: Settings) -> Ready:
    now = utcnow()
    since = outage.down_since()
    return Ready(
        status="not_ready",
        parts=[
            Part(name="database", ok=False, detail="the database does not answer",
                 since=since, age_seconds=seconds_since(now, since)),
            broker_part(settings, now),
        ],
    )  # fmt: skip
