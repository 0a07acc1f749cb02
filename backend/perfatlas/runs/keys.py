"""A run's keys: its body's hash (a retry or a conflict) and its series' keys and digests, each
of its results' series named by the canonical text of its dimensions."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from perfatlas.core.canonical import canonical_json, content_hash
from perfatlas.core.measurement import RunCreate
from perfatlas.runs.heads import RunHead

# Fields added to uploads after runs were first stored: left out of a body's hash while they are
# unset, so that a retry of a run stored before they existed is still a retry, not a conflict.
_LATER_FIELDS = ("flush_to_device", "memory_backed")


def body_hash(run: RunCreate) -> str:
    unset = {name for name in _LATER_FIELDS if getattr(run, name) is None}
    return content_hash(run.model_dump(mode="json", exclude=unset))


def series_key(
    run: RunCreate | RunHead, *, metric: str, unit: str, ignore_labels: Iterable[str]
) -> dict[str, Any]:
    ignored = set(ignore_labels)
    labels = {
        k: v for k, v in run.labels.items() if k not in ignored and not k.endswith("_version")
    }
    return {
        "workload": run.workload,
        "metric": metric,
        "unit": unit,
        "agent": run.agent,
        "target": run.target,
        "parameters": run.parameters,
        "labels": labels,
    }


def series_parts(dims: Mapping[str, Any]) -> tuple[bytes, bytes, bytes]:
    """A run's part of its series keys' canonical text (`series_key` with no metric and unit),
    serialized once for all of its results: the text before the metric, between the metric
    and the unit, and after the unit (the keys in sorted order: agent, labels, metric,
    parameters, target, unit, workload)."""
    head = canonical_json({"agent": dims["agent"], "labels": dims["labels"]})[:-1]
    middle = canonical_json({"parameters": dims["parameters"], "target": dims["target"]})[1:-1]
    tail = b',"workload":' + orjson.dumps(dims["workload"]) + b"}"
    return head + b',"metric":', b"," + middle + b',"unit":', tail


def series_digest(parts: tuple[bytes, bytes, bytes], metric: str, unit: str) -> str:
    """`content_hash({**dims, "metric": metric, "unit": unit})` from `series_parts(dims)`:
    a hash per result, not a serialization of its whole key."""
    head, middle, tail = parts
    text = b"".join((head, orjson.dumps(metric), middle, orjson.dumps(unit), tail))
    return hashlib.sha256(text).hexdigest()
