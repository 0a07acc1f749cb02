"""What explore plots, as CSV rows: one per point."""

from __future__ import annotations

from typing import Any

from perfatlas.explore.schemas import ExploreRead


def csv_rows(data: ExploreRead) -> list[list[Any]]:
    header = [data.group or "group", data.x, "n", "repetitions", "median", "mean", "min", "max",
              "p5", "p95", "unit", "flags", "runs", "pooled"]  # fmt: skip
    rows: list[list[Any]] = [header]
    for trace in data.traces:
        for p in trace.points:
            rows.append(
                [trace.group, p.x, p.n, p.repetitions, p.median, p.mean, p.min, p.max, p.p5,
                 p.p95, data.unit, " ".join(p.flags), " ".join(str(r) for r in p.runs),
                 _pooled(p.mixes)]
            )  # fmt: skip
    return rows


def _pooled(mixes: dict[str, list[str | None]]) -> str:
    """What a point pools, as `name=a|b; name=c|d` (empty when nothing)."""
    return "; ".join(
        f"{name}={'|'.join('' if v is None else v for v in values)}"
        for name, values in mixes.items()
    )
