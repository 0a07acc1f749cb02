"""What the detector reports: one change point of a series."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

Direction = Literal["higher", "lower"]
Kind = Literal["regression", "improvement"]


@dataclass(frozen=True)
class ChangePoint:
    """One change: `index` is the first point after it; levels are in the series' unit."""

    index: int
    before: float
    after: float
    change_pct: float | None
    confidence: float
    kind: Kind
    tentative: bool
    points_after: int
    cause: dict[str, dict[str, Any]] | None = None
    cause_index: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "before": _round_sig(self.before),
            "after": _round_sig(self.after),
            "change_pct": None if self.change_pct is None else round(self.change_pct, 2),
            "confidence": round(self.confidence, 4),
            "kind": self.kind,
            "tentative": self.tentative,
            "points_after": self.points_after,
        }
        if self.cause is not None:
            out["cause"] = self.cause
            out["cause_index"] = self.cause_index
        return out


def _round_sig(value: float, digits: int = 6) -> float:
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))
