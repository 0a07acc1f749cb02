"""Which dimension a metric's headline is split by when its pairs disagree.

A median over pairs that disagree hides the answer: two fsync=file series 19 % worse and two
fsync=none series unchanged read "-8.7 %, 2 of 4 agree, within noise". The pairs differ in
their keys (parameters, labels, agent, target) and in the durability facts their runs had; the
dimension whose values best separate the verdicts is the one the headline is given by, each
subset with its own values and verdict."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from perfatlas.core.durability import DURABILITY_FIELDS

ABSENT = "–"  # a pair whose key lacks the dimension
MAX_SUBSETS = 12
# The verdicts a split separates: the untested ones (few, missing) say nothing either way.
JUDGED = frozenset({"better", "worse", "noise", "not_comparable"})
# On equal separation the name a reader set beats a fact, a fact a label, a label the machine.
_RANK = {"param": 0, "fact": 1, "label": 2, "agent": 3, "target": 4}


def _shown(value: Any) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def attributes(key: Mapping[str, Any], facts: Iterable[Mapping[str, set[Any]]]) -> dict[str, str]:
    """A pair's values of each dimension it could be split by: its key's fields (parameters and
    labels by their bare name, prefixed when a parameter and a label share it) and each
    durability fact of its runs (values joined when the runs differ)."""
    params: dict[str, Any] = key.get("parameters", {})
    labels: dict[str, Any] = key.get("labels", {})
    out: dict[str, str] = {}
    for f in ("agent", "target"):
        if f in key:
            out[f] = _shown(key[f])
    for name, value in params.items():
        out[f"param.{name}" if name in labels else name] = _shown(value)
    for name, value in labels.items():
        out[f"label.{name}" if name in params else name] = _shown(value)
    seen: dict[str, set[str]] = defaultdict(set)
    for side in facts:
        for f in DURABILITY_FIELDS:
            seen[f] |= {_shown(v) for v in side.get(f, set())}
    for f in DURABILITY_FIELDS:
        if seen[f] and f not in out:
            out[f] = "/".join(sorted(seen[f]))
    return out


def varying(attrs: Sequence[Mapping[str, str]]) -> list[str]:
    """The dimensions whose values differ between the pairs."""
    names = sorted({n for a in attrs for n in a})
    return [n for n in names if len({a.get(n, ABSENT) for a in attrs}) > 1]


def _kind(name: str) -> int:
    if name in ("agent", "target"):
        return _RANK[name]
    if name in DURABILITY_FIELDS:
        return _RANK["fact"]
    return _RANK["label" if name.startswith("label.") else "param"]


def _purity(groups: Iterable[list[list[str | None]]], columns: int) -> int:
    """Pairs whose verdict is their subset's most common one, over every compared group."""
    total = 0
    for members in groups:
        for g in range(columns):
            judged = Counter(v[g] for v in members if v[g] in JUDGED)
            total += max(judged.values(), default=0)
    return total


def disagree(verdicts: Sequence[Sequence[str | None]]) -> bool:
    columns = len(verdicts[0]) if verdicts else 0
    return any(len({v[g] for v in verdicts if v[g] in JUDGED}) > 1 for g in range(columns))


def choose(
    attrs: Sequence[Mapping[str, str]], verdicts: Sequence[Sequence[str | None]]
) -> str | None:
    """The dimension to split by, or None when the pairs agree or nothing separates them. Each
    candidate is scored by how many pairs share their subset's verdict, less half a pair per
    extra subset, so a dimension with a value per pair does not win by cutting into ones."""
    if len(verdicts) < 2 or not disagree(verdicts):
        return None
    columns = len(verdicts[0])
    best: tuple[float, int, int, str] | None = None
    for name in varying(attrs):
        members: dict[str, list[list[str | None]]] = defaultdict(list)
        for a, v in zip(attrs, verdicts, strict=True):
            members[a.get(name, ABSENT)].append(list(v))
        if len(members) > MAX_SUBSETS:
            continue
        score = _purity(members.values(), columns) - 0.5 * (len(members) - 1)
        rank = (-score, len(members), _kind(name), name)
        if best is None or rank < best:
            best = rank
    whole = _purity([[list(v) for v in verdicts]], columns)
    if best is None or -best[0] <= whole:
        return None  # no split separates the verdicts better than none
    return best[3]


def _natural(text: str) -> list[tuple[int, int | str]]:
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", text) if p]


def ordered(values: Iterable[str]) -> list[str]:
    """Subset values in natural order (2.1.9 before 2.1.10), an absent value last."""
    return sorted(values, key=lambda v: (v == ABSENT, _natural(v)))
