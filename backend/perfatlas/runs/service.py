"""What routes, the CLI, tasks and other domains call of the runs domain."""

from perfatlas.runs.answers import runs_page
from perfatlas.runs.ingest import Ingested, ingest
from perfatlas.runs.keys import body_hash, series_key
from perfatlas.runs.queries import (
    get_run,
    get_runs_by_id,
    get_series,
    list_runs,
    runs_total,
)

__all__ = [
    "Ingested",
    "body_hash",
    "get_run",
    "get_runs_by_id",
    "get_series",
    "ingest",
    "list_runs",
    "runs_page",
    "runs_total",
    "series_key",
]
