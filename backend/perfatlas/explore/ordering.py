"""The order of explore's answer: points along x and traces (the legend) in natural order
(core/natural.py: 2.1.9 < 2.1.10 < 2.2.0-rc1 < 2.2.0, words such as trunk last), or in the
order given for the dimension (`order=version:*,trunk`, PERFATLAS_VALUE_ORDER for a server's
defaults). Applied last, to whatever the points were computed from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from perfatlas.core.natural import natural_sorted, order_for, ordered, parse_orders
from perfatlas.explore.schemas import ExplorePoint, ExploreRead, ExploreTrace
from perfatlas.runs.dimensions import TIME

METRIC_GROUP = "metric"


def orders(request: Sequence[str], defaults: str = "") -> dict[str, list[str]]:
    """The request's `order` items over the server's defaults (`dim:a,b;dim2:*,c`), by dimension.
    A default that does not parse is the setting's fault, not the request's: named as such."""
    merged = parse_orders(
        [d for d in defaults.split(";") if d.strip()], field="PERFATLAS_VALUE_ORDER"
    )
    merged.update(parse_orders(request))
    return merged


def _numeric_x(point: ExplorePoint) -> tuple[bool, float]:
    return (point.x is None, float(point.x) if isinstance(point.x, int | float) else 0.0)


def arrange(answer: ExploreRead, given: Mapping[str, list[str]]) -> ExploreRead:
    """The answer's traces and points in order (in place; returned for convenience)."""
    x_order = order_for(given, answer.x)
    for trace in answer.traces:
        if answer.x == TIME:
            points = trace.points  # in time order already
        elif answer.x_numeric:
            points = sorted(trace.points, key=_numeric_x)  # positions on a numeric axis
        else:
            points = ordered(trace.points, x_order, key=lambda p: p.x)
        # In place: whatever else a trace carries stays with it.
        trace.points = points
    if answer.group != METRIC_GROUP:  # group=metric: the metrics in the order asked
        # By the whole name first (a split's values in natural order within a group), then by
        # the group's own value, stably: agent-a · fsync=file, agent-a · fsync=none, agent-b ...
        traces = natural_sorted(answer.traces, _group)
        answer.traces = ordered(traces, order_for(given, answer.group), key=_group_value)
    return answer


def _group(trace: ExploreTrace) -> str | None:
    return trace.group


def _group_value(trace: ExploreTrace) -> str | None:
    return trace.group_value if trace.split else trace.group
