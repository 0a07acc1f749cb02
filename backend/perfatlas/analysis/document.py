"""The detect command's JSON document: validation with messages that name the series and point."""

from __future__ import annotations

from typing import Any

from perfatlas.analysis.detector import attach_causes, detect


class InputError(ValueError):
    """The document is not what `perfatlas detect` reads; the message says where."""


def _series_name(entry: dict[str, Any], position: int) -> str:
    sid = entry.get("id")
    return f"series {sid!r}" if isinstance(sid, str | int) else f"series[{position}]"


def detect_document(document: Any, *, min_confidence: float = 0.99) -> dict[str, Any]:
    """`{"series": [{"id", "direction", "points", "contexts"?}]}` -> change points per series."""
    if not 0.0 < min_confidence < 1.0:
        raise InputError("--min-confidence must be between 0 and 1")
    if not isinstance(document, dict) or not isinstance(document.get("series"), list):
        raise InputError('expected an object {"series": [...]}')
    out = []
    seen: set[Any] = set()
    for position, entry in enumerate(document["series"]):
        if not isinstance(entry, dict):
            raise InputError(f"series[{position}]: expected an object")
        name = _series_name(entry, position)
        sid = entry.get("id")
        if not isinstance(sid, str | int) or isinstance(sid, bool):
            raise InputError(f"{name}: id must be a string or an integer")
        if sid in seen:
            raise InputError(f"{name}: id appears twice")
        seen.add(sid)
        direction = entry.get("direction")
        if direction not in ("higher", "lower"):
            raise InputError(
                f"{name}: direction must be 'higher' or 'lower' (which way is better), "
                f"not {direction!r}"
            )
        points = entry.get("points")
        if not isinstance(points, list):
            raise InputError(f"{name}: points must be a list (each a number or a list of numbers)")
        contexts = entry.get("contexts")
        if contexts is not None and (
            not isinstance(contexts, list)
            or len(contexts) != len(points)
            or not all(c is None or isinstance(c, dict) for c in contexts)
        ):
            raise InputError(f"{name}: contexts must be a list of objects, one per point")
        try:
            found = detect(points, direction, min_confidence=min_confidence)
        except ValueError as exc:
            raise InputError(f"{name}: {exc}") from None
        if contexts is not None:
            found = attach_causes(found, contexts)
        out.append({"id": sid, "change_points": [cp.to_dict() for cp in found]})
    return {"series": out}
