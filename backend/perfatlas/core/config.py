"""Settings: every field can be set with a PERFATLAS_* environment variable."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from perfatlas.core.errors import Invalid
from perfatlas.core.natural import parse_orders

DEFAULT_DATA_DIR = Path(".data")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PERFATLAS_", extra="ignore")

    data_dir: Path = DEFAULT_DATA_DIR
    database_url: str = ""
    public_read: bool = False
    host: str = "127.0.0.1"
    port: int = 8000
    # Request bodies above this many bytes are refused with 413 before they are parsed.
    max_body_bytes: int = Field(default=32 * 1024 * 1024, gt=0)
    # Request bodies of 64 KiB and more in one API process at once, together at most this many
    # bytes (as declared); one past it waits up to upload_wait_seconds, then gets 503 with
    # Retry-After. 0: no bound. Twenty 30 MB uploads at once otherwise took the API past 2 GB.
    max_inflight_body_bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    upload_wait_seconds: float = Field(default=30.0, gt=0, le=3600)
    # /runs/batch bodies of this size and more are validated run by run from their bytes and
    # stored a chunk of runs at a time (flows/large_batch.py): the API holds the body and a
    # chunk, not every run as objects (four to five times the body), for some CPU more (a
    # second validation of each new run; +20 % for a 30 MB body, nearly double for a body of
    # many small results, so typical batches stay under it).
    large_batch_bytes: int = Field(default=8 * 1024 * 1024, gt=0)
    # Files kept with a run (the command's script, raw latencies, tool output): each at most
    # attachment_max_bytes, together at most attachment_run_max_bytes, at most
    # attachment_run_max_files of them.
    attachment_max_bytes: int = Field(default=1024 * 1024, gt=0)
    attachment_run_max_bytes: int = Field(default=4 * 1024 * 1024, gt=0)
    attachment_run_max_files: int = Field(default=32, gt=0, le=1000)
    # Labels that name a version of the thing under test: a change in them is a point in a
    # series' history (and a possible cause of a change), not a different series.
    series_ignore_labels: list[str] = [
        "version",
        "fs_version",
        "kernel",
        "commit",
        "build",
        "release",
    ]
    log_level: str = "info"
    # `perfatlas serve --first-run` (what `make up` runs): once per database, the quick studies
    # on this machine through a local agent's daemon. PERFATLAS_FIRST_RUN=0 turns it off.
    first_run: bool = True
    # Explore computes a plot of at most this many results exactly from their records; a larger
    # one from per-series digests, its medians and percentiles within 0.5 % (exact=true asks
    # for exact figures whatever the size; docs/explore.md, "Explore's numbers").
    explore_exact_results: int = Field(default=50_000, ge=0)
    # Megabytes of explore answers each API process keeps for the next reader of the same plot
    # while the database is unchanged (PostgreSQL; explore/answers.py); 0: none kept.
    explore_cache_mb: int = Field(default=16, ge=0, le=4096)
    # The order of dimensions' values where it is not their natural one (2.1.9 < 2.1.10, words
    # such as trunk last): `dim:a,b,*;dim2:*,trunk`, as explore's `order` (request's first).
    value_order: str = ""
    # Seconds an idle HTTP connection is kept open (longer than any client's idle pool).
    keepalive_seconds: int = Field(default=75, ge=1, le=3600)

    # Background work (Celery). Empty: a broker that needs no server, kept in the database
    # (SQLite under data_dir, or the PostgreSQL database itself); production sets redis://.
    broker_url: str = ""
    # The Celery queue this server's tasks go to (separate deployments on one Redis, tests).
    queue: str = "perfatlas"
    # Notifications go to a queue of their own (default: the queue's name + ".notify"), which
    # every worker also consumes unless told otherwise, so a backlog of detection cannot hold
    # them back; a deployment may run a worker on it alone (`perfatlas worker --only notify`).
    notify_queue: str = ""
    # `perfatlas worker` lowers its processes' CPU priority to this nice value (0: leaves it):
    # when the machine is saturated, uploads and readers go first and the background work
    # (checks, folds) takes what they leave; the checks of a burst then cover more uploads each.
    worker_nice: int = Field(default=10, ge=0, le=19)
    # /ready says the worker is down when its heartbeat (a task beat sends every 10 s) is older
    # than this; the Overview shows a banner when the oldest run waiting for the fold or series
    # waiting for a check waits longer than ready_backlog_seconds.
    ready_heartbeat_seconds: float = Field(default=60.0, gt=0)
    ready_backlog_seconds: float = Field(default=300.0, gt=0)
    # Re-check the series of every upload for change points (coalesced per series).
    detect_on_ingest: bool = True
    # Uploads wake the worker (a check of the waiting series, a fold into explore's rollups) at
    # most twice per this many seconds and per process: one wake-up drains what is waiting, so
    # a burst of uploads does not queue one task per upload. 0 queues one per upload.
    wakeup_coalesce_seconds: float = Field(default=1.0, ge=0, le=60)
    # Points of history the on-ingest check looks at (the nightly pass looks at more).
    detect_window: int = Field(default=200, ge=20)
    nightly_window: int = Field(default=1000, ge=20)
    # Hour (UTC) of the nightly full detection pass.
    nightly_hour: int = Field(default=3, ge=0, le=23)
    # Default alert rule: changes at least this large and this confident open an alert.
    alert_min_change_pct: float = Field(default=5.0, ge=0)
    alert_min_confidence: float = Field(default=0.99, gt=0, lt=1)
    # Notifications: wait this long after an incident opens so that the alerts of one cause
    # go out together; retry a failed delivery this many times with exponential backoff.
    notify_delay_seconds: float = Field(default=30.0, ge=0)
    notify_max_attempts: int = Field(default=8, ge=1)
    notify_backoff_seconds: float = Field(default=30.0, gt=0)
    # A delivery not confirmed within this many seconds (a worker killed mid-send) is retried.
    notify_lease_seconds: float = Field(default=120.0, gt=0)
    # How often the worker looks for notifications that are due (retries, killed sends).
    notify_sweep_seconds: float = Field(default=30.0, gt=0)
    # The address of this server's UI, for links in notifications.
    public_url: str = ""
    # Email notifications go through this SMTP server.
    smtp_host: str = "localhost"
    smtp_port: int = 25
    smtp_from: str = "perfatlas@localhost"
    smtp_user: str = ""
    smtp_password: SecretStr = SecretStr("")
    smtp_starttls: bool = False
    smtp_timeout_seconds: float = 10.0

    @field_validator("database_url")
    @classmethod
    def _known_scheme(cls, value: str) -> str:
        if value and not value.startswith(("sqlite", "postgresql")):
            raise ValueError(
                "PERFATLAS_DATABASE_URL must be a sqlite:/// or postgresql+psycopg:// URL"
            )
        if value.startswith("postgresql://") or value.startswith("postgres://"):
            # Plain postgresql:// would pick psycopg2, which is not installed.
            value = "postgresql+psycopg://" + value.split("://", 1)[1]
        return value

    @field_validator("broker_url")
    @classmethod
    def _known_broker(cls, value: str) -> str:
        if value and not value.startswith(("redis://", "rediss://", "sqla+", "memory://")):
            raise ValueError("PERFATLAS_BROKER_URL must be a redis:// or sqla+<database> URL")
        return value

    @field_validator("value_order")
    @classmethod
    def _value_order(cls, value: str) -> str:
        try:
            parse_orders([d for d in value.split(";") if d.strip()])
        except Invalid as exc:
            raise ValueError(f"PERFATLAS_VALUE_ORDER: {exc}") from exc
        return value

    @property
    def effective_notify_queue(self) -> str:
        return self.notify_queue or f"{self.queue}.notify"

    @property
    def effective_broker_url(self) -> str:
        if self.broker_url:
            return self.broker_url
        if self.effective_database_url.startswith("sqlite"):
            return f"sqla+sqlite:///{(self.data_dir / 'broker.db').resolve()}"
        return "sqla+" + self.effective_database_url

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'perfatlas.db').resolve()}"


@lru_cache
def get_settings() -> Settings:
    return Settings()
