"""This process's Prometheus counters: requests by route, and runs and results stored (counted
when their transaction commits, so a retry, a refused batch or a rolled-back group counts
nothing). What the database knows (backlogs, jobs, notifications, the worker's heartbeat) is
read at each scrape instead (perfatlas/metrics), the same whichever process answers."""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter, Histogram
from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction

REQUEST_SECONDS = Histogram(
    "perfatlas_http_request_duration_seconds",
    "Time to answer an HTTP request, by method, route template and status class",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
RUNS_STORED = Counter("perfatlas_runs_stored", "New runs stored by this process")
RESULTS_STORED = Counter("perfatlas_results_stored", "New results stored by this process")

_KEY = "perfatlas.metrics.stored"
API_PREFIX = "/api/v1"


def count_stored(session: Session, *, runs: int, results: int) -> None:
    """In the storing transaction: counted once it commits."""
    runs_then, results_then = session.info.get(_KEY, (0, 0))
    session.info[_KEY] = (runs_then + runs, results_then + results)


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    stored = session.info.pop(_KEY, None)
    if stored is not None:
        RUNS_STORED.inc(stored[0])
        RESULTS_STORED.inc(stored[1])


@event.listens_for(Session, "after_soft_rollback")
def _rolled_back(session: Session, previous: SessionTransaction) -> None:
    session.info.pop(_KEY, None)


def status_class(status: int) -> str:
    return f"{status // 100}xx"


def observe(method: str, path: str, route: Any, status: int, seconds: float) -> None:
    # The route's template (/api/v1/runs/{run_uuid}), never the path itself: a label per
    # address asked would grow without bound. A domain router's route knows its path without
    # the prefix it was included under.
    template = getattr(route, "path", None) or "unmatched"
    if path.startswith(API_PREFIX + "/") and not template.startswith(API_PREFIX + "/"):
        template = API_PREFIX + template
    REQUEST_SECONDS.labels(method, template, status_class(status)).observe(seconds)
