"""What routes, the CLI, tasks and other domains call of the runs domain."""

from perfatlas.runs.ingest import Ingested, ingest
from perfatlas.runs.keys import body_hash, series_key
from perfatlas.runs.queries import (
    get_run,
    get_runs_by_id,
    get_series,
    list_runs,
    list_series,
    runs_total,
    series_header,
)
from perfatlas.runs.series import (
    OPTIONAL_POINT_COLUMNS,
    POINT_COLUMNS,
    POINTS_JSON_OPTIONS,
    SeriesPoints,
    series_points,
)

__all__ = [
    "OPTIONAL_POINT_COLUMNS",
    "POINTS_JSON_OPTIONS",
    "POINT_COLUMNS",
    "Ingested",
    "SeriesPoints",
    "body_hash",
    "get_run",
    "get_runs_by_id",
    "get_series",
    "ingest",
    "list_runs",
    "list_series",
    "runs_total",
    "series_header",
    "series_key",
    "series_points",
]
