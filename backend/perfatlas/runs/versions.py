"""The version labels of a series' points, as spans: the points from index `at` on share the
version labels `labels`, until the next span. A series leaves its version labels out of its
key (keys.series_key), so they change along it; a change is a span's start. Spans rather
than a column: versions change a few times in 10,000 points, and the page marks each change.

Read from the points' variants (rollups/models.py RunVariant, a few per series) where the
points came from explore's rollups, and from their runs otherwise (a pending run, a time
range, SQLite)."""

from __future__ import annotations

import uuid as uuid_mod
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.engine import Connection

from perfatlas.runs.models import Environment, Run

# The field that asks for the spans (`fields=versions`); not a column.
VERSIONS = "versions"
_RUNS_AT_ONCE = 5000  # under SQLite's bound on a statement's parameters

_VARIANTS_SQL = """
SELECT v.id, v.labels, e.kernel FROM run_variants v
LEFT JOIN environments e ON e.id = v.environment_id WHERE v.id = ANY(%(ids)s)
"""


def version_labels(
    labels: dict[str, Any] | None, kernel: str | None, names: Collection[str]
) -> dict[str, str]:
    """The labels of a run that name a version (`names`, which the series key leaves out, or a
    name ending in _version), and its environment's kernel unless a label names one."""
    chosen = {k: str(v) for k, v in (labels or {}).items() if k in names or k.endswith("_version")}
    if kernel and "kernel" not in chosen:
        chosen["kernel"] = kernel
    return dict(sorted(chosen.items()))


def spans(per_point: Iterable[dict[str, str]]) -> list[dict[str, Any]]:
    spans_: list[dict[str, Any]] = []
    for i, labels in enumerate(per_point):
        if not spans_ or spans_[-1]["labels"] != labels:
            spans_.append({"at": i, "labels": labels})
    return spans_


def _coded_spans(codes: np.ndarray[Any, Any], labels_of: dict[int, dict[str, str]]) -> list[Any]:
    """Spans from one code per point (a variant, or a run's position), looked up only at the
    points where the code changes: a few lookups for 10,000 points of a few variants."""
    if not len(codes):
        return []
    starts = [int(i) for i in np.flatnonzero(codes[1:] != codes[:-1]) + 1]
    spans_: list[dict[str, Any]] = []
    for at in [0, *starts]:
        labels = labels_of[int(codes[at])]
        if not spans_ or spans_[-1]["labels"] != labels:
            spans_.append({"at": at, "labels": labels})
    return spans_


def _runs_labels(
    connection: Connection, runs: Sequence[uuid_mod.UUID], names: Collection[str]
) -> dict[uuid_mod.UUID, dict[str, str]]:
    found: dict[uuid_mod.UUID, dict[str, str]] = {}
    unique = list(dict.fromkeys(runs))
    query = select(Run.uuid, Run.labels, Environment.kernel).outerjoin(
        Environment, Environment.id == Run.environment_id
    )
    for start in range(0, len(unique), _RUNS_AT_ONCE):
        some = unique[start : start + _RUNS_AT_ONCE]
        for run_uuid, labels, kernel in connection.execute(query.where(Run.uuid.in_(some))):
            found[run_uuid] = version_labels(labels, kernel, names)
    return found


def as_uuids(column: Any) -> list[uuid_mod.UUID]:
    """A "run" column as uuids: (n, 16) bytes on PostgreSQL, uuids on SQLite."""
    if isinstance(column, np.ndarray):
        return [uuid_mod.UUID(bytes=bytes(row)) for row in column]
    return [r if isinstance(r, uuid_mod.UUID) else uuid_mod.UUID(str(r)) for r in column]


def from_runs(
    connection: Connection, runs: Sequence[uuid_mod.UUID], names: Collection[str]
) -> list[dict[str, Any]]:
    labels_of = _runs_labels(connection, runs, names)
    return spans(labels_of.get(run, {}) for run in runs)


def from_variants(
    connection: Connection,
    variants: np.ndarray[Any, Any],
    run_column: Any,
    names: Collection[str],
) -> list[dict[str, Any]]:
    """Spans from each point's variant (0 for a pending run's point, whose run is read)."""
    ids = [int(v) for v in np.unique(variants) if v]
    labels_of: dict[int, dict[str, str]] = {}
    if ids:
        raw = connection.connection.driver_connection
        rows = raw.execute(_VARIANTS_SQL, {"ids": ids})  # type: ignore[union-attr]
        for variant_id, labels, kernel in rows:
            labels_of[variant_id] = version_labels(labels, kernel, names)
    codes = variants.astype(np.int64)
    pending = [int(i) for i in np.flatnonzero(codes == 0)]
    if pending:
        # A pending run's point gets a code of its own below zero, one per distinct labels.
        runs = as_uuids(run_column[pending] if isinstance(run_column, np.ndarray) else
                        [run_column[i] for i in pending])  # fmt: skip
        by_run = _runs_labels(connection, runs, names)
        codes_of: dict[tuple[tuple[str, str], ...], int] = {}
        for i, run in zip(pending, runs, strict=True):
            labels = by_run.get(run, {})
            code = codes_of.setdefault(tuple(labels.items()), -1 - len(codes_of))
            labels_of[code] = labels
            codes[i] = code
    return _coded_spans(codes, labels_of)
