"""Settings: every field can be set with a PERFATLAS_* environment variable."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

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

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'perfatlas.db').resolve()}"


@lru_cache
def get_settings() -> Settings:
    return Settings()
