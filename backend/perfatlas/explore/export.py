"""What explore plots, as CSV rows: one per point."""

from __future__ import annotations

from typing import Any

from perfatlas.core.units import humanize, unit_of
from perfatlas.explore.schemas import ExploreRead


def csv_rows(data: ExploreRead) -> list[list[Any]]:
    # A size or duration (segsize) keeps its stored number in its column (as before: nothing is
    # lost, scripts keep working) and gets one more beside it as people write it (128 KiB).
    x_human = unit_of(data.x) is not None
    group_human = unit_of(data.group) is not None
    group_name = data.group or "group"
    header = [group_name, *([f"{group_name} (readable)"] if group_human else []),
              data.x, *([f"{data.x} (readable)"] if x_human else []), "n", "repetitions",
              "median", "mean", "min", "max", "p5", "p95", "unit", "flags", "runs", "pooled"]  # fmt: skip
    rows: list[list[Any]] = [header]
    for trace in data.traces:
        group = [humanize(data.group, trace.group)] if group_human else []
        for p in trace.points:
            x = [humanize(data.x, p.x)] if x_human else []
            rows.append(
                [trace.group, *group, p.x, *x, p.n, p.repetitions, p.median, p.mean, p.min, p.max,
                 p.p5, p.p95, data.unit, " ".join(p.flags), " ".join(str(r) for r in p.runs),
                 _pooled(p.mixes)]
            )  # fmt: skip
    return rows


def _pooled(mixes: dict[str, list[str | None]]) -> str:
    """What a point pools, as `name=a|b; name=c|d` (empty when nothing)."""
    return "; ".join(
        f"{name}={'|'.join('' if v is None else v for v in values)}"
        for name, values in mixes.items()
    )
