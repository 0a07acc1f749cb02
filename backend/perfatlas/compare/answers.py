"""The compares as the API answers them, from the query as given: run uuids and metric
patterns repeated or comma-separated, the JSON (service.py) or its CSV (export.py)."""

from __future__ import annotations

import uuid as uuid_mod
from collections.abc import Sequence

from fastapi import Response
from sqlalchemy.orm import Session

from perfatlas.compare import export, service
from perfatlas.compare.schemas import CompareRead, GroupCompareRead
from perfatlas.core.errors import Invalid


def run_ids(runs: Sequence[str]) -> list[uuid_mod.UUID]:
    """Run uuids, repeated or comma-separated (Invalid naming `runs` for one that is not)."""
    ids: list[uuid_mod.UUID] = []
    for item in runs:
        for part in item.split(","):
            if not part.strip():
                continue
            try:
                ids.append(uuid_mod.UUID(part.strip()))
            except ValueError as exc:
                raise Invalid("runs", f"{part.strip()[:40]!r} is not a run uuid") from exc
    return ids


def compare_runs(
    session: Session, *, runs: Sequence[str], metric: Sequence[str], min_effect_pct: float
) -> CompareRead:
    """Runs side by side, the first the baseline."""
    return service.compare_runs(
        session, run_uuids=run_ids(runs), metrics=export.patterns(metric),
        min_effect_pct=min_effect_pct,
    )  # fmt: skip


def compare_runs_csv(
    session: Session, *, runs: Sequence[str], metric: Sequence[str], min_effect_pct: float
) -> Response:
    """The compare table as a CSV download."""
    return export.runs_csv(
        compare_runs(session, runs=runs, metric=metric, min_effect_pct=min_effect_pct)
    )


def compare_groups(
    session: Session, *, workload: str, by: str, values: Sequence[str], metric: Sequence[str],
    filters: Sequence[str], pair_ignore: Sequence[str] | None, min_effect_pct: float,
) -> GroupCompareRead:  # fmt: skip
    """Groups of runs (one per value of `by`, the first the baseline), paired series by series."""
    return service.compare_groups(
        session, workload=workload, by=by, values=values, metrics=export.patterns(metric),
        filters=filters, pair_ignore=pair_ignore, min_effect_pct=min_effect_pct,
    )  # fmt: skip


def compare_groups_csv(
    session: Session, *, workload: str, by: str, values: Sequence[str], metric: Sequence[str],
    filters: Sequence[str], pair_ignore: Sequence[str] | None, min_effect_pct: float,
) -> Response:  # fmt: skip
    """The group compare as a CSV download."""
    data = compare_groups(
        session, workload=workload, by=by, values=values, metric=metric, filters=filters,
        pair_ignore=pair_ignore, min_effect_pct=min_effect_pct,
    )  # fmt: skip
    return export.groups_csv(data)
