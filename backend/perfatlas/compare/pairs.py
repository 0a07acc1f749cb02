"""One metric of a group compare: its pairs of series, each group's side of them, and the
cells that sum them up (every pair pooled, and per subset when the pairs disagree)."""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from perfatlas.compare import common, split
from perfatlas.compare.schemas import (
    GroupCell,
    GroupMetric,
    GroupPair,
    GroupSplit,
    PairCell,
    SplitSubset,
)
from perfatlas.core.durability import DURABILITY_FIELDS
from perfatlas.core.significance import Change, agreement, compare_samples, median


@dataclass
class Side:
    """One group's runs of one pair: every sample, and the durability facts they ran with."""

    samples: list[float] = field(default_factory=list)
    runs: set[int] = field(default_factory=set)
    masks: set[int] = field(default_factory=set)
    series: set[int] = field(default_factory=set)
    fact_rows: set[tuple[Any, ...]] = field(default_factory=set)  # DURABILITY_FIELDS' values

    @property
    def kinds(self) -> set[str]:
        """What its runs' fsyncs reached (common.durability_kind)."""
        mb, ftd = (
            DURABILITY_FIELDS.index("memory_backed"),
            DURABILITY_FIELDS.index("flush_to_device"),
        )
        return {common.durability_kind(f[mb], f[ftd]) for f in self.fact_rows}

    @property
    def facts(self) -> dict[str, set[Any]]:
        return facts_of(self.fact_rows)


def facts_of(rows: set[tuple[Any, ...]]) -> dict[str, set[Any]]:
    """Each durability fact's values over rows of DURABILITY_FIELDS' values."""
    return {f: {row[i] for row in rows} for i, f in enumerate(DURABILITY_FIELDS)}


@dataclass
class Pair:
    key: dict[str, Any]
    sides: dict[int, Side]
    changes: dict[int, Change] = field(default_factory=dict)  # group index > 0 -> change


def _pair_cell(side: Side, tentative: set[int], change: Change | None) -> PairCell:
    return PairCell(
        value=median(side.samples) if side.samples else None,
        n=len(side.samples),
        runs=len(side.runs),
        flags=common.flags_of(side.masks, tentative=bool(side.series & tentative)),
        change=common.change_read(change) if change else None,
    )


def _judge(pairs: list[Pair], groups: int, direction: str, min_effect_pct: float) -> None:
    for pair in pairs:
        base = pair.sides.get(0)
        for g in range(1, groups):
            side = pair.sides.get(g)
            if base is None or side is None:
                continue
            change = compare_samples(
                base.samples, side.samples, direction=direction, min_effect_pct=min_effect_pct
            )
            gap = common.durability_gap(base.kinds, side.kinds)
            if gap:
                change = dataclasses.replace(change, verdict="not_comparable", reason=gap)
            pair.changes[g] = change


def cells(
    pairs: Sequence[Pair], groups: int, tentative: set[int], direction: str
) -> list[GroupCell]:
    """Each group's cell over these pairs: the median of their medians, and for the groups
    after the baseline what the per-pair changes say together (core/significance.py)."""
    out = []
    for g in range(groups):
        present = [p.sides[g] for p in pairs if g in p.sides]
        changes = [p.changes[g] for p in pairs if g in p.changes]
        summary = agreement(changes, direction=direction) if g > 0 else None
        masks = {m for side in present for m in side.masks}
        out.append(
            GroupCell(
                value=median([median(s.samples) for s in present]) if present else None,
                series=len(present),
                runs=len({r for s in present for r in s.runs}),
                samples=sum(len(s.samples) for s in present),
                flags=common.flags_of(masks, tentative=any(s.series & tentative for s in present)),
                change_pct=summary.change_pct if summary else None,
                pairs=summary.pairs if summary else 0,
                tested=summary.tested if summary else 0,
                agree=summary.agree if summary else 0,
                better=summary.better if summary else 0,
                worse=summary.worse if summary else 0,
                lowest_pct=summary.lowest_pct if summary else None,
                highest_pct=summary.highest_pct if summary else None,
                verdict=summary.verdict if summary else None,
                not_comparable=summary.not_comparable if summary else 0,
                reason=summary.reason if summary else None,
            )
        )
    return out


def metric(
    name: str,
    unit: str,
    direction: str,
    found: Sequence[tuple[dict[str, Any], dict[int, Side]]],
    groups: int,
    tentative: set[int],
    min_effect_pct: float,
) -> GroupMetric:
    # Pairs in the order of their keys, whatever order their runs were stored in.
    pairs = [
        Pair(key, sides)
        for key, sides in sorted(found, key=lambda p: json.dumps(p[0], sort_keys=True))
    ]
    _judge(pairs, groups, direction, min_effect_pct)
    out_pairs = [
        GroupPair(
            key=p.key,
            cells=[
                _pair_cell(p.sides[g], tentative, p.changes.get(g)) if g in p.sides else None
                for g in range(groups)
            ],
        )
        for p in pairs
    ]
    attrs = [split.attributes(p.key, [s.facts for s in p.sides.values()]) for p in pairs]
    verdicts = [[p.changes[g].verdict if g in p.changes else None for g in range(1, groups)]
                for p in pairs]  # fmt: skip
    chosen = split.choose(attrs, verdicts)
    subsets = None
    if chosen is not None:
        members: dict[str, list[Pair]] = defaultdict(list)
        for p, a in zip(pairs, attrs, strict=True):
            members[a.get(chosen, split.ABSENT)].append(p)
        subsets = GroupSplit(
            dimension=chosen,
            subsets=[
                SplitSubset(value=v, cells=cells(members[v], groups, tentative, direction))
                for v in split.ordered(members)
            ],
        )
    return GroupMetric(
        metric=name, unit=unit, direction=direction,
        cells=cells(pairs, groups, tentative, direction), pairs=out_pairs,
        varying=split.varying(attrs), split=subsets,
    )  # fmt: skip


def flat_key(key: dict[str, Any]) -> dict[str, str]:
    """A pairing key as pair_ignore names its fields: agent, target, param.NAME, label.NAME."""
    out = {k: str(v) for k, v in key.items() if not isinstance(v, dict)}
    for name, value in key.get("parameters", {}).items():
        out[f"param.{name}"] = json.dumps(value) if not isinstance(value, str) else value
    for name, value in key.get("labels", {}).items():
        out[f"label.{name}"] = str(value)
    return out


def pair_hint(base: Sequence[dict[str, str]], other: Sequence[dict[str, str]]) -> set[str]:
    """The fewest key fields whose leaving out pairs some series of one group with one of the
    other: over every two series, the fields in which they differ, the smallest set."""
    best: tuple[int, list[str]] | None = None
    for a in base[:300]:
        for b in other[:300]:
            differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
            if best is None or (len(differ), differ) < best:
                best = (len(differ), differ)
    return set(best[1]) if best else set()
