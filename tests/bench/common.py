"""What the benchmark scripts share: the PostgreSQL server, free ports, percentiles."""

from __future__ import annotations

import os
import socket

from perfatlas.runs.stats import quantile

PG = os.environ.get("PERFATLAS_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432")


def admin_dsn(db: str = "postgres") -> str:
    return PG.replace("postgresql+psycopg://", "postgresql://") + "/" + db


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation, as the server's summaries and PostgreSQL's percentile_cont."""
    return quantile(sorted(values), q)
