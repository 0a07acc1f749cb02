"""bench_confirm.py's arithmetic: the intervals between the moments of a case, their values and
medians over the repeats, the notifications that name an alert, and the checks that must hold
for the figures to mean what they say."""

from __future__ import annotations

import statistics
from typing import Any

# Run as a script's helper: its folder is on sys.path.
from common import Receiver


def notified(alert_id: int) -> float | None:
    """When the first notification naming this alert arrived."""
    for at, payload in list(Receiver.received):
        if any(item.get("id") == alert_id for item in payload.get("alerts") or []):
            return at
    return None


def events(alert_id: int) -> list[str]:
    """The events of the notifications that named this alert, in the order they arrived."""
    return [str(payload.get("event")) for _, payload in list(Receiver.received)
            if any(item.get("id") == alert_id for item in payload.get("alerts") or [])]  # fmt: skip


def since(a: float | None, b: float | None) -> float | None:
    return round(b - a, 3) if a is not None and b is not None else None


def intervals(t: dict[str, float | None]) -> dict[str, float | None]:
    pairs = [("t0", "t1"), ("t1", "t2"), ("t2", "t3"), ("t0", "t3"), ("t3", "t4"), ("t0", "t4")]
    return {f"{a}_{b}": since(t.get(a), t.get(b)) for a, b in pairs if b in t}


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Each interval's values (in repeat order) and median; the rounds likewise."""
    out: dict[str, Any] = {}
    for key in records[0]["intervals_s"] if records else []:
        values = [r["intervals_s"].get(key) for r in records]
        known = [v for v in values if v is not None]
        out[key] = {"values": values, "median": round(statistics.median(known), 3) if known
                    else None, "min": min(known, default=None), "max": max(known, default=None)}  # fmt: skip
    if records:
        rounds = [r["rounds"] for r in records]
        out["rounds"] = {"values": rounds, "median": statistics.median(rounds)}
    return out


def checks(regression: list[dict[str, Any]], one_off: list[dict[str, Any]], errors: list[str],
           repeats: int) -> dict[str, bool]:  # fmt: skip
    """What must hold for the figures to mean what they say."""
    return {
        "no_errors": not errors,
        "every_case_ran": len(regression) == repeats and len(one_off) == repeats,
        "regression_confirmed_different": all(
            r["verdict"] == "different"
            and r["status"] == "open"
            and r["mode"] == "baseline"
            and r["incident_id"] is not None
            for r in regression
        ),
        "regression_about_20_pct_slower": all(
            r["change_pct"] is not None and -23 < r["change_pct"] < -17 for r in regression
        ),
        "regression_notified_once": all(
            events(r["alert_id"]) == ["incident.opened"] for r in regression
        ),
        "one_off_not_confirmed": all(
            r["verdict"] == "same"
            and r["resolution"] == "not_confirmed"
            and r["incident_id"] is None
            and r["marker_left"] == "0"
            for r in one_off
        ),
        "one_off_never_notified": not any(events(r["alert_id"]) for r in one_off),
        "confirm_jobs_succeeded": all(
            r["confirm_job"]["status"] == "succeeded" for r in [*regression, *one_off]
        ),
    }


def median(summary: dict[str, Any], key: str) -> Any:
    return (summary.get(key) or {}).get("median")
