"""Runs side by side: every metric, its change against the first run judged on the samples,
the trust flags of each value, and what differs between the runs (durability first)."""

from __future__ import annotations

import dataclasses
import uuid as uuid_mod
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from perfatlas.alerts.queries import tentative_series
from perfatlas.compare import common
from perfatlas.compare.groups import compare_groups
from perfatlas.compare.schemas import ChangeRead, CompareMetric, CompareRead, CompareRun
from perfatlas.core.durability import DURABILITY_FIELDS
from perfatlas.core.errors import Invalid
from perfatlas.core.significance import CONFIDENCE, compare_samples
from perfatlas.runs.models import Result, Run
from perfatlas.runs.service import get_run

__all__ = ["compare_groups", "compare_runs"]
MAX_RUNS = 20


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        flat: dict[str, Any] = {}
        for key, value in data.items():
            flat.update(_flatten(value, f"{prefix}{key}."))
        return flat
    return {prefix.rstrip("."): data}


def _run_read(run: Run) -> CompareRun:
    return CompareRun(
        uuid=run.uuid, workload=run.workload, agent=run.agent.name, target=run.target,
        started_at=run.started_at, status=run.status, parameters=run.parameters,
        labels=run.labels, fsync_policy=run.fsync_policy, o_direct=run.o_direct,
        sync_mount=run.sync_mount, write_cache=run.write_cache,
        flush_to_device=run.flush_to_device, memory_backed=run.memory_backed,
        cold_method=run.cold_method, environment_id=run.environment_id,
    )  # fmt: skip


def _metric_row(
    name: str,
    cells: dict[int, Result],
    runs: int,
    tentative: set[int],
    min_effect_pct: float,
    kinds: Sequence[str],
) -> CompareMetric:
    first = next(iter(cells.values()))
    values = [cells[i].value if i in cells else None for i in range(runs)]
    base = cells.get(0)
    diffs: list[float | None] = []
    better: list[bool | None] = []
    changes: list[ChangeRead | None] = []
    for i, value in enumerate(values):
        b0 = values[0]
        if b0 is None or value is None or b0 == 0:
            diffs.append(None)
            better.append(None)
        else:
            diff = (value - b0) / abs(b0) * 100.0
            diffs.append(diff)
            # Not comparable (durability): no way is better.
            gap = common.durability_gap({kinds[0]}, {kinds[i]})
            better.append(None if diff == 0 or gap else (diff > 0) == (first.direction == "higher"))
        if i == 0 or base is None or i not in cells:
            changes.append(None)
            continue
        change = compare_samples(
            base.samples, cells[i].samples, direction=first.direction,
            min_effect_pct=min_effect_pct,
        )  # fmt: skip
        gap = common.durability_gap({kinds[0]}, {kinds[i]})
        if gap:
            change = dataclasses.replace(change, verdict="not_comparable", reason=gap)
        changes.append(common.change_read(change))
    return CompareMetric(
        metric=name,
        unit=first.unit,
        direction=first.direction,
        values=values,
        spread=[[cells[i].min, cells[i].max] if i in cells else None for i in range(runs)],
        n=[cells[i].n if i in cells else None for i in range(runs)],
        diff_pct=diffs,
        better=better,
        changes=changes,
        flags=[
            common.flags_of([cells[i].flags], tentative=cells[i].series_id in tentative)
            if i in cells
            else []
            for i in range(runs)
        ],
    )


def compare_runs(
    session: Session,
    *,
    run_uuids: Sequence[uuid_mod.UUID],
    metrics: Sequence[str] = (),
    min_effect_pct: float,
) -> CompareRead:
    if not 2 <= len(run_uuids) <= MAX_RUNS:
        raise Invalid("runs", f"compare takes from 2 to {MAX_RUNS} runs")
    runs = [get_run(session, run_uuid=u) for u in run_uuids]
    by_metric: dict[str, dict[int, Result]] = defaultdict(dict)
    for index, run in enumerate(runs):
        for result in run.results:
            by_metric[result.metric][index] = result
    chosen = common.select_metrics(by_metric, metrics, where="these runs")
    order = [
        m
        for m in common.phase_order([(r.metric, r.id) for r in run.results] for run in runs)
        if m in chosen
    ]
    tentative = tentative_series(
        session, [r.series_id for m in order for r in by_metric[m].values()]
    )
    kinds = [common.durability_kind(run.memory_backed, run.flush_to_device) for run in runs]
    rows = [
        _metric_row(m, by_metric[m], len(runs), tentative, min_effect_pct, kinds) for m in order
    ]
    durability = common.differences(
        [{f: getattr(run, f) for f in DURABILITY_FIELDS} for run in runs]
    )
    return CompareRead(
        runs=[_run_read(run) for run in runs],
        metrics=rows,
        min_effect_pct=min_effect_pct,
        confidence=CONFIDENCE,
        durability_differs=bool(durability),
        warning=common.durability_warning(durability, what="runs"),
        durability=durability,
        parameters=common.differences([run.parameters for run in runs]),
        labels=common.differences([run.labels for run in runs]),
        environment=common.differences(
            [_flatten(run.environment.data) if run.environment else {} for run in runs]
        ),
        reasons=common.reasons(),
    )
