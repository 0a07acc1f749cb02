"""Causes: which environment, label or parameter changed where the series changed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from perfatlas.analysis.changepoint import ChangePoint

# How many points either side of a change point its cause is looked for (attach_causes).
CAUSE_WINDOW = 2


def _flatten(context: Mapping[str, Any] | None, prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in (context or {}).items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def context_changes(
    before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
) -> dict[str, dict[str, Any]]:
    """Keys (nested ones dotted: `environment.kernel`) whose values differ, with both values."""
    a, b = _flatten(before), _flatten(after)
    return {
        key: {"before": a.get(key), "after": b.get(key)}
        for key in sorted(a.keys() | b.keys())
        if a.get(key) != b.get(key)
    }


def attach_causes(
    change_points: Sequence[ChangePoint],
    contexts: Sequence[Mapping[str, Any] | None],
    *,
    window: int = CAUSE_WINDOW,
) -> list[ChangePoint]:
    """The change points with `cause` set where the environment or labels changed with them.

    `contexts[i]` describes point i (environment, labels, parameters; nested dicts allowed).
    A context change at the change point's index wins; otherwise the nearest one within
    `window` points, because a noisy step can be located a point or two off. Only the
    contexts at `context_indices` are read: the others may be None.
    """
    out = []
    for cp in change_points:
        best: tuple[int, dict[str, dict[str, Any]]] | None = None
        for offset in sorted(range(-window, window + 1), key=lambda o: (abs(o), o)):
            j = cp.index + offset
            if not 0 < j < len(contexts):
                continue
            diff = context_changes(contexts[j - 1], contexts[j])
            if diff:
                best = (j, diff)
                break
        if best is None:
            out.append(cp)
        else:
            out.append(replace(cp, cause=best[1], cause_index=best[0]))
    return out


def context_indices(
    change_points: Sequence[ChangePoint], count: int, *, window: int = CAUSE_WINDOW
) -> list[int]:
    """The indices of the contexts attach_causes compares for these change points among `count`
    points, ascending: a caller need read no other (the labels and environments of a series'
    10,000 points cost more than finding its changes)."""
    wanted: set[int] = set()
    for cp in change_points:
        for j in range(cp.index - window, cp.index + window + 1):
            if 0 < j < count:
                wanted.update((j - 1, j))
    return sorted(wanted)
