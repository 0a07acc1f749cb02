"""The compares as CSV: the same numbers as the JSON, one table each."""

from __future__ import annotations

from typing import Any

from fastapi import Response

from perfatlas.compare.common import metric_patterns
from perfatlas.compare.schemas import (
    ChangeRead,
    CompareRead,
    GroupCell,
    GroupCompareRead,
    PairCell,
)
from perfatlas.core.csv import csv_response
from perfatlas.core.units import humanize

patterns = metric_patterns


def _change(change: ChangeRead | None) -> list[Any]:
    if change is None:
        return ["", "", "", ""]
    return [change.change_pct, change.ci_low_pct, change.ci_high_pct, change.verdict]


def _reason(change: ChangeRead | None) -> list[Any]:
    return [(change.reason or "") if change else ""]


def runs_csv(data: CompareRead) -> Response:
    """Metrics as rows (phase order); each run's value, n and flags, then each run's change
    against the first with its interval and verdict."""
    names = [str(r.uuid) for r in data.runs]
    header = ["metric", "unit", "direction", *names]
    header += [f"n {n}" for n in names] + [f"flags {n}" for n in names]
    for n in names[1:]:
        header += [f"diff_pct {n}", f"ci_low_pct {n}", f"ci_high_pct {n}", f"verdict {n}",
                   f"reason {n}"]  # fmt: skip
    rows: list[list[Any]] = [header]
    for m in data.metrics:
        row: list[Any] = [m.metric, m.unit, m.direction, *m.values, *m.n]
        row += [" ".join(f) for f in m.flags]
        for change in m.changes[1:]:
            row += [*_change(change), *_reason(change)]
        rows.append(row)
    rows.append([])
    rows.append(["min_effect_pct", data.min_effect_pct, "confidence", data.confidence])
    if data.warning:
        rows.append(["warning", data.warning])
    return csv_response(rows, "compare.csv")


def _valued(dimension: str, value: Any) -> str:
    """dimension=value as stored, a size or duration also as people write it:
    param.segsize=131072 (128 KiB)."""
    human = humanize(dimension, value)
    return f"{dimension}={value}" + (f" ({human})" if human is not None else "")


def _pair_key(key: dict[str, Any]) -> str:
    parts = [f"{k}={v}" for k, v in key.items() if not isinstance(v, dict)]
    for k, v in key.items():
        if isinstance(v, dict):
            parts += [_valued(f"{k[:5]}.{name}", value) for name, value in sorted(v.items())]
    return " ".join(parts)


def _summary(c: GroupCell, *, first: bool) -> list[Any]:
    row: list[Any] = [c.value, c.samples, c.runs, " ".join(c.flags)]
    if not first:
        row += [c.change_pct, c.lowest_pct, c.highest_pct, c.verdict, c.agree, c.pairs,
                c.tested, c.not_comparable, c.reason or "", "", ""]  # fmt: skip
    return row


def groups_csv(data: GroupCompareRead) -> Response:
    """One row per metric (series: `all`, every pair pooled), one per subset when the pairs
    disagree (series: `fsync=file`, the split's dimension and value), then one per metric and
    pair of series. For each group: value, samples, runs, flags; for the groups after the
    first, the change against it (`all` and a subset: the median of the per-series changes,
    the lowest and highest of them, the verdict, how many pairs agree, were tested and are
    not comparable and why; a pair: its change, 95 % interval and verdict)."""
    groups = [f"{data.by}={v}" for v in data.values]
    header = ["metric", "unit", "direction", "series"]
    for i, g in enumerate(groups):
        header += [f"value {g}", f"samples {g}", f"runs {g}", f"flags {g}"]
        if i:
            header += [f"change_pct {g}", f"low_pct {g}", f"high_pct {g}", f"verdict {g}",
                       f"agree {g}", f"pairs {g}", f"tested {g}", f"not_comparable {g}",
                       f"reason {g}", f"ci_low_pct {g}", f"ci_high_pct {g}"]  # fmt: skip
    rows: list[list[Any]] = [header]
    for m in data.metrics:
        row: list[Any] = [m.metric, m.unit, m.direction, "all"]
        for i, c in enumerate(m.cells):
            row += _summary(c, first=not i)
        rows.append(row)
        if m.split is None:
            continue
        for subset in m.split.subsets:
            row = [m.metric, m.unit, m.direction, _valued(m.split.dimension, subset.value)]
            for i, c in enumerate(subset.cells):
                row += _summary(c, first=not i)
            rows.append(row)
    for m in data.metrics:
        for pair in m.pairs:
            row = [m.metric, m.unit, m.direction, _pair_key(pair.key)]
            for i, cell in enumerate(pair.cells):
                row += _pair_cell(cell)
                if i:
                    change = cell.change if cell else None
                    # agree, pairs, tested and not_comparable are the summaries'
                    row += [*_change(change), "", "", "", "", *_reason(change)]
                    row += [change.ci_low_pct, change.ci_high_pct] if change else ["", ""]
            rows.append(row)
    rows.append([])
    rows.append(["min_effect_pct", data.min_effect_pct, "confidence", data.confidence,
                 "pair_ignore", " ".join(data.pair_ignore)])  # fmt: skip
    if data.warning:
        rows.append(["warning", data.warning])
    return csv_response(rows, f"{data.workload}-by-{data.by}.csv")


def _pair_cell(cell: PairCell | None) -> list[Any]:
    if cell is None:
        return ["", "", "", ""]
    return [cell.value, cell.n, cell.runs, " ".join(cell.flags)]
