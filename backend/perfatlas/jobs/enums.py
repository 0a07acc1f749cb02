"""Job values. StrEnums: the stored strings are the values."""

from __future__ import annotations

from enum import StrEnum


class JobStatus(StrEnum):
    """queued → leased (claimed by an agent) → running (it reported progress) → one of the
    final states. A lease that lapses puts the job back to queued while it has attempts left,
    else failed; a queued job nobody claimed by its `expires_at` is expired."""

    queued = "queued"
    leased = "leased"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"
    expired = "expired"


FINAL = frozenset({JobStatus.succeeded, JobStatus.failed, JobStatus.cancelled, JobStatus.expired})
# Statuses under a lease: the row's `lease_until` is set and the holder renews it.
HELD = frozenset({JobStatus.leased, JobStatus.running})


class JobKind(StrEnum):
    run = "run"  # a schedule's firing (or a job queued by hand)
    confirm = "confirm"  # re-running a candidate regression before it alerts


class Verdict(StrEnum):
    """A confirmation job's answer: only different opens an alert and notifies."""

    different = "different"
    same = "same"
    unknown = "unknown"
