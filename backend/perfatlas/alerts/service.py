"""From series to alerts: run the detector over the newest points of a series, and open,
update, withdraw or resolve its alerts; group new alerts into incidents by cause; triage.

Everything here is re-derivable from the results, so a check run twice (a task delivered
again, the nightly pass after the on-ingest one) changes nothing the second time."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import exists, func, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from perfatlas.alerts import notify
from perfatlas.alerts.models import Alert, AlertRule, Incident, Notification
from perfatlas.analysis.detector import ChangePoint, attach_causes, detect, detect_many
from perfatlas.core.canonical import canonical_json
from perfatlas.core.config import Settings
from perfatlas.core.errors import Invalid, NotFound
from perfatlas.core.models import utcnow
from perfatlas.runs.models import Environment, Result, Run, Series

# A task that hits one of these (two checks racing on one series, a dropped connection) is
# retried; the second attempt sees what the first one committed.
RETRYABLE = (IntegrityError, OperationalError)
# An existing alert matches a change point found up to this many points away (a tentative
# change may be located a point or two differently once more points arrive).
MATCH_DISTANCE = 2
# Alerts with no cause group by agent when their changes are this close in time.
AGENT_GROUP_WINDOW = dt.timedelta(hours=6)
# Alerts with one cause group while the incident is this recent (the same new kernel rolled
# out over a few days is still one change).
CAUSE_GROUP_WINDOW = dt.timedelta(days=7)
# Environment keys that are measurements, not configuration (older agents sent them).
VOLATILE_KEYS = ("statvfs.f_bfree", "statvfs.f_bavail", "statvfs.f_ffree", "statvfs.f_favail")
SERIES_CHUNK = 200
UNRESOLVED = ("open", "acknowledged", "expected")


@dataclass
class Report:
    series: int = 0
    opened: int = 0
    updated: int = 0
    resolved: int = 0
    withdrawn: int = 0
    # Seconds until each new notification falls due (the task schedules a sweep for them).
    notifications: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {
            "series": self.series, "opened": self.opened, "updated": self.updated,
            "resolved": self.resolved, "withdrawn": self.withdrawn,
        }  # fmt: skip


@dataclass(frozen=True)
class Thresholds:
    min_change_pct: float
    min_confidence: float
    mute: bool
    rule_id: int | None


@dataclass
class _Point:
    run_id: int
    started_at: dt.datetime
    samples: list[float]
    environment_id: int | None
    labels: dict[str, str]


# ---- rules ------------------------------------------------------------------------------


def _specificity(rule: AlertRule) -> int:
    matchers = (rule.workload, rule.metric, rule.agent, rule.label_key, rule.label_value)
    return (100 if rule.series_id is not None else 0) + sum(m is not None for m in matchers)


def rule_matches(rule: AlertRule, series: Series, agent: str) -> bool:
    if rule.series_id is not None and rule.series_id != series.id:
        return False
    if rule.workload is not None and rule.workload != series.workload:
        return False
    if rule.metric is not None and rule.metric != series.metric:
        return False
    if rule.agent is not None and rule.agent != agent:
        return False
    if rule.label_key is not None:
        value = series.labels.get(rule.label_key)
        if value is None or (rule.label_value is not None and value != rule.label_value):
            return False
    return True


def thresholds_for(
    series: Series, agent: str, rules: Sequence[AlertRule], settings: Settings
) -> Thresholds:
    """The most specific matching rule (ties: the newest) over the defaults in settings; a
    matching rule that mutes wins whatever its specificity."""
    matching = [r for r in rules if rule_matches(r, series, agent)]
    if not matching:
        return Thresholds(settings.alert_min_change_pct, settings.alert_min_confidence, False, None)
    muting = [r for r in matching if r.mute]
    rule = max(muting or matching, key=lambda r: (_specificity(r), r.id))
    return Thresholds(
        min_change_pct=(
            rule.min_change_pct
            if rule.min_change_pct is not None
            else settings.alert_min_change_pct
        ),
        min_confidence=(
            rule.min_confidence
            if rule.min_confidence is not None
            else settings.alert_min_confidence
        ),
        mute=rule.mute,
        rule_id=rule.id,
    )


def alertable(cp: ChangePoint, limits: Thresholds) -> bool:
    if limits.mute or cp.kind != "regression" or cp.confidence < limits.min_confidence:
        return False
    return cp.change_pct is not None and abs(cp.change_pct) >= limits.min_change_pct


# ---- loading series ---------------------------------------------------------------------


def _load_points(session: Session, series_id: int, window: int) -> list[_Point]:
    rows = session.execute(
        select(
            Result.run_id, Result.started_at, Result.value, Result.samples,
            Result.environment_id, Run.labels,
        )
        .join(Run, Run.id == Result.run_id)
        .where(Result.series_id == series_id)
        .order_by(Result.started_at.desc(), Result.run_id.desc())
        .limit(window)
    ).all()  # fmt: skip
    points = [
        _Point(run_id, started_at, list(samples) or [value], env_id, dict(labels or {}))
        for run_id, started_at, value, samples, env_id, labels in rows
    ]
    points.reverse()
    return points


def _environments(session: Session, ids: Iterable[int | None]) -> dict[int, dict[str, Any]]:
    wanted = sorted({i for i in ids if i is not None})
    if not wanted:
        return {}
    out = {}
    for env_id, data in session.execute(
        select(Environment.id, Environment.data).where(Environment.id.in_(wanted))
    ):
        clean = dict(data or {})
        statvfs = clean.get("statvfs")
        if isinstance(statvfs, dict):
            clean["statvfs"] = {
                k: v for k, v in statvfs.items() if f"statvfs.{k}" not in VOLATILE_KEYS
            }
        out[env_id] = clean
    return out


def _contexts(points: Sequence[_Point], envs: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "environment": envs.get(p.environment_id, {}) if p.environment_id else {},
            "labels": p.labels,
        }
        for p in points
    ]


def change_points(
    session: Session, series: Series, window: int
) -> tuple[list[_Point], list[ChangePoint]]:
    """The newest `window` points of one series and the changes in them, causes attached
    (improvements too, at the detector's default confidence)."""
    points = _load_points(session, series.id, window)
    cps = detect([p.samples for p in points], series.direction)  # type: ignore[arg-type]
    envs = _environments(session, (p.environment_id for p in points))
    return points, attach_causes(cps, _contexts(points, envs))


# ---- checking series --------------------------------------------------------------------


def series_for_runs(session: Session, run_uuids: Sequence[str]) -> list[int]:
    import uuid as uuid_mod

    uuids = []
    for value in run_uuids:
        try:
            uuids.append(uuid_mod.UUID(str(value)))
        except ValueError:
            continue
    if not uuids:
        return []
    run_ids = select(Run.id).where(Run.uuid.in_(uuids))
    return sorted(
        session.scalars(select(Result.series_id).where(Result.run_id.in_(run_ids)).distinct())
    )


def check_runs(session: Session, run_uuids: Sequence[str], *, settings: Settings) -> Report:
    """The on-ingest check: the series of these runs, over their newest detect_window points."""
    return check_series(
        session, series_for_runs(session, run_uuids), settings=settings,
        window=settings.detect_window,
    )  # fmt: skip


def check_all(session: Session, *, settings: Settings, window: int) -> Report:
    """The nightly pass over every series."""
    ids = list(session.scalars(select(Series.id).order_by(Series.id)))
    return check_series(session, ids, settings=settings, window=window)


def check_series(
    session: Session, series_ids: Sequence[int], *, settings: Settings, window: int
) -> Report:
    report = Report()
    rules = list(session.scalars(select(AlertRule)))
    floor = min([settings.alert_min_confidence, *(r.min_confidence or 1.0 for r in rules)])
    for start in range(0, len(series_ids), SERIES_CHUNK):
        chunk = series_ids[start : start + SERIES_CHUNK]
        loaded = []
        for series in session.scalars(select(Series).where(Series.id.in_(chunk))):
            points = _load_points(session, series.id, window)
            loaded.append((series, points))
        found = detect_many(
            [([p.samples for p in points], series.direction) for series, points in loaded],  # type: ignore[misc]
            min_confidence=floor,
        )
        envs = _environments(session, (p.environment_id for _, pts in loaded for p in pts))
        for (series, points), cps in zip(loaded, found, strict=True):
            cps = attach_causes(cps, _contexts(points, envs))
            limits = thresholds_for(series, series.agent.name, rules, settings)
            _reconcile(session, series, points, cps, limits, settings, report)
            report.series += 1
        session.commit()
    return report


def _reconcile(
    session: Session,
    series: Series,
    points: Sequence[_Point],
    cps: Sequence[ChangePoint],
    limits: Thresholds,
    settings: Settings,
    report: Report,
) -> None:
    if not points:
        return
    index_of = {p.run_id: i for i, p in enumerate(points)}
    existing = [
        a
        for a in session.scalars(
            select(Alert)
            .where(Alert.series_id == series.id, Alert.change_run_id.in_(index_of))
            # A person's triage of one of these waits for this check, and the other way round.
            .with_for_update(of=Alert)
        )
    ]
    matched: set[int] = set()
    touched_incidents: set[int] = set()
    for cp in cps:
        candidates = [
            a
            for a in existing
            if a.id not in matched
            and a.kind == cp.kind
            and abs(index_of[a.change_run_id] - cp.index) <= MATCH_DISTANCE
        ]
        alert = min(
            candidates, key=lambda a: abs(index_of[a.change_run_id] - cp.index), default=None
        )
        if alert is not None:
            matched.add(alert.id)
            taken = {a.change_run_id for a in existing if a.id != alert.id}
            if _update(alert, cp, points, index_of, taken):
                report.updated += 1
            if alert.status != "resolved" and alert.tentative and not alertable(cp, limits):
                # More points made the tentative change smaller or less certain than the rule.
                _resolve(alert, "withdrawn", run_id=None)
                report.withdrawn += 1
                if alert.incident_id is not None:
                    touched_incidents.add(alert.incident_id)
            elif (
                alert.resolution == "withdrawn"
                or (alert.resolution == "stepped_back" and _step_back(alert, cps, index_of) is None)
            ) and alertable(cp, limits):
                # The change is back (a withdrawn tentative one), or what looked like a step
                # back was not one after all.
                _set_status(alert, "open", by="detector")
                alert.resolution = None
                if alert.incident_id is not None:
                    touched_incidents.add(alert.incident_id)
                    _reopen_incident(session, alert.incident_id, settings, report)
                report.opened += 1
        elif alertable(cp, limits):
            alert = _create(session, series, cp, points)
            existing.append(alert)
            matched.add(alert.id)
            _assign_incident(session, alert, series, settings, report)
            report.opened += 1
    for alert in existing:
        if alert.status == "resolved":
            continue
        if alert.id not in matched and alert.tentative:
            _resolve(alert, "withdrawn", run_id=None)
            report.withdrawn += 1
        else:
            back = _step_back(alert, cps, index_of)
            if back is not None:
                _resolve(alert, "stepped_back", run_id=points[back.index].run_id)
                report.resolved += 1
        if alert.status == "resolved" and alert.incident_id is not None:
            touched_incidents.add(alert.incident_id)
    session.flush()
    for incident_id in touched_incidents:
        _settle_incident(session, incident_id, settings, report)


def _levels(cp: ChangePoint) -> dict[str, Any]:
    return {
        "before": cp.before, "after": cp.after, "change_pct": cp.change_pct,
        "confidence": cp.confidence, "tentative": cp.tentative, "points_after": cp.points_after,
    }  # fmt: skip


def _update(
    alert: Alert,
    cp: ChangePoint,
    points: Sequence[_Point],
    index_of: dict[int, int],
    taken: set[int],
) -> bool:
    changed = False
    values = _levels(cp)
    moved = index_of[alert.change_run_id] != cp.index
    if alert.tentative and moved and points[cp.index].run_id not in taken:
        values.update(_location(cp, points))
    elif not alert.tentative:
        # A confirmed change's levels stay as they were confirmed.
        values = {
            "confidence": max(alert.confidence, cp.confidence),
            "points_after": cp.points_after,
        }
    if cp.cause and not alert.cause:
        values["cause"] = cp.cause
    for key, value in values.items():
        if getattr(alert, key) != value:
            setattr(alert, key, value)
            changed = True
    return changed


def _location(cp: ChangePoint, points: Sequence[_Point]) -> dict[str, Any]:
    return {
        "change_run_id": points[cp.index].run_id,
        "previous_run_id": points[cp.index - 1].run_id if cp.index > 0 else None,
        "change_at": points[cp.index].started_at,
    }


def _create(session: Session, series: Series, cp: ChangePoint, points: Sequence[_Point]) -> Alert:
    now = utcnow()
    alert = Alert(
        series_id=series.id, kind=cp.kind, cause=cp.cause, status="open", version=1,
        created_at=now, updated_at=now, status_changed_at=now, status_changed_by="detector",
        **_location(cp, points), **_levels(cp),
    )  # fmt: skip
    session.add(alert)
    session.flush()
    return alert


def _step_back(
    alert: Alert, cps: Sequence[ChangePoint], index_of: dict[int, int]
) -> ChangePoint | None:
    """A later, confirmed change the other way that brings the level closer to where it was
    than to where the alert's change took it (a tentative bounce resolves nothing)."""
    start = index_of[alert.change_run_id]
    for cp in cps:
        back = abs(cp.after - alert.before) < abs(cp.after - alert.after)
        if cp.index > start and cp.kind != alert.kind and back and not cp.tentative:
            return cp
    return None


def _set_status(alert: Alert, status: str, *, by: str) -> None:
    alert.status = status
    alert.version += 1
    alert.status_changed_at = utcnow()
    alert.status_changed_by = by
    if status != "resolved":
        alert.resolution = None
        alert.resolved_at = None
        alert.resolved_by_run_id = None


def _resolve(alert: Alert, resolution: str, *, run_id: int | None, by: str = "detector") -> None:
    _set_status(alert, "resolved", by=by)
    alert.resolution = resolution
    alert.resolved_at = utcnow()
    alert.resolved_by_run_id = run_id


# ---- incidents --------------------------------------------------------------------------


def _cause_title(cause: dict[str, Any]) -> str:
    parts = []
    for key, change in list(cause.items())[:3]:
        name = key.removeprefix("environment.").removeprefix("labels.")
        parts.append(f"{name} {change.get('before')} → {change.get('after')}")
    more = f" (+{len(cause) - 3} more)" if len(cause) > 3 else ""
    return ", ".join(parts) + more


def _assign_incident(
    session: Session, alert: Alert, series: Series, settings: Settings, report: Report
) -> None:
    """Put a new alert into the incident of its cause (or, with no cause, of its agent and
    time), opening one if there is none; an incident's first notification waits
    notify_delay_seconds so that the alerts of one cause go out together."""
    if alert.cause:
        key = "cause:" + hashlib.sha256(canonical_json(alert.cause)).hexdigest()[:40]
        window = CAUSE_GROUP_WINDOW
        title = _cause_title(alert.cause)
        agent_id: int | None = None
    else:
        key = f"agent:{series.agent_id}"
        window = AGENT_GROUP_WINDOW
        title = f"changes on {series.agent.name} around {alert.change_at:%Y-%m-%d %H:%M} UTC"
        agent_id = series.agent_id
    if session.get_bind().dialect.name == "postgresql":
        # Two workers checking series of one cause at once must find one incident, not open
        # two: the lookup and the insert are serialised per key until this check commits.
        session.execute(select(func.pg_advisory_xact_lock(func.hashtext(key))))
    incident = session.scalars(
        select(Incident)
        .where(Incident.key == key)
        .where(Incident.opened_at >= alert.change_at - window)
        .where(Incident.opened_at <= alert.change_at + window)
        .order_by(Incident.id.desc())
        .limit(1)
    ).first()
    if incident is None:
        # opened_at is the change's time, so later alerts of the same change find it.
        incident = Incident(
            key=key, agent_id=agent_id, title=title, cause=alert.cause, status="open",
            version=1, opened_at=alert.change_at,
        )  # fmt: skip
        session.add(incident)
        session.flush()
        alert.incident_id = incident.id
        _notify_incident(session, incident, "incident.opened", settings, report)
        return
    alert.incident_id = incident.id
    if incident.agent_id is not None and incident.agent_id != series.agent_id:
        incident.agent_id = None
    if incident.status == "resolved":
        _reopen_incident(session, incident.id, settings, report)
    elif not _pending(session, incident.id):
        # Already notified: one more notification, for the alerts that joined since.
        incident.version += 1
        _notify_incident(session, incident, "incident.updated", settings, report)


def _pending(session: Session, incident_id: int) -> bool:
    return bool(
        session.scalar(
            select(
                exists().where(
                    Notification.incident_id == incident_id,
                    Notification.status == "pending",
                    # Not yet claimed: its payload is built at the first claim and then fixed.
                    Notification.payload.is_(None),
                )
            )
        )
    )


def _notify_incident(
    session: Session, incident: Incident, event: str, settings: Settings, report: Report
) -> None:
    delay = settings.notify_delay_seconds if event in ("incident.opened", "incident.updated") else 0
    # Never before a notification of this incident that is still waiting to go out: receivers
    # must read "opened" before "resolved".
    waiting = session.scalar(
        select(func.max(Notification.due_at)).where(
            Notification.incident_id == incident.id, Notification.status == "pending"
        )
    )
    if waiting is not None:
        delay = max(delay, (waiting - utcnow()).total_seconds())
    added = notify.record(
        session, event=event, key=f"incident:{incident.id}:v{incident.version}",
        incident_id=incident.id, delay=delay,
    )  # fmt: skip
    if added:
        report.notifications.append(delay)


def _reopen_incident(
    session: Session, incident_id: int, settings: Settings, report: Report
) -> None:
    incident = session.get(Incident, incident_id)
    if incident is None or incident.status == "open":
        return
    incident.status = "open"
    incident.resolved_at = None
    incident.version += 1
    _notify_incident(session, incident, "incident.reopened", settings, report)


def _unresolved(session: Session, incident_id: int) -> int:
    return (
        session.scalar(
            select(func.count())
            .select_from(Alert)
            .where(Alert.incident_id == incident_id, Alert.status != "resolved")
        )
        or 0
    )


def _settle_incident(
    session: Session, incident_id: int, settings: Settings, report: Report
) -> None:
    """An incident is resolved when every alert in it is."""
    incident = session.get(Incident, incident_id)
    if incident is None or incident.status == "resolved":
        return
    if _unresolved(session, incident_id):
        return
    incident.status = "resolved"
    incident.resolved_at = utcnow()
    incident.version += 1
    unannounced = session.scalars(
        select(Notification).where(
            Notification.incident_id == incident_id,
            Notification.event == "incident.opened",
            Notification.status == "pending",
            Notification.payload.is_(None),
        )
    ).all()
    if unannounced:
        # Withdrawn before anyone was told: neither "opened" nor "resolved" goes out.
        for row in session.scalars(
            select(Notification).where(
                Notification.incident_id == incident_id,
                Notification.status == "pending",
                Notification.payload.is_(None),
            )
        ):
            session.delete(row)
        return
    _notify_incident(session, incident, "incident.resolved", settings, report)


# ---- triage -----------------------------------------------------------------------------

_EVENT = {"open": "reopened", "acknowledged": "acknowledged", "expected": "expected",
          "resolved": "resolved"}  # fmt: skip


def get_alert(session: Session, alert_id: int, *, lock: bool = False) -> Alert:
    alert = session.get(Alert, alert_id, with_for_update={"of": Alert} if lock else None)
    if alert is None:
        raise NotFound(f"no alert with id {alert_id}")
    return alert


def get_incident(session: Session, incident_id: int, *, lock: bool = False) -> Incident:
    incident = session.get(
        Incident, incident_id, with_for_update={"of": Incident} if lock else None
    )
    if incident is None:
        raise NotFound(f"no incident with id {incident_id}")
    return incident


def _apply(alert: Alert, status: str, note: str | None, actor: str) -> bool:
    if alert.status == status and (note is None or note == alert.note):
        return False
    if status == "expected" and not (note or alert.note):
        raise Invalid("body.note", "say why the change is expected (a note is required)")
    if note is not None:
        alert.note = note
    if alert.status != status:
        if status == "resolved":
            _resolve(alert, "manual", run_id=None, by=actor)
        else:
            _set_status(alert, status, by=actor)
    return True


def set_alert_status(
    session: Session, alert_id: int, *, status: str, note: str | None, actor: str
) -> Alert:
    """A person's triage of one alert: one notification per change, none for a repeat."""
    alert = get_alert(session, alert_id, lock=True)
    before = alert.status
    if _apply(alert, status, note, actor):
        if before != alert.status:
            notify.record(
                session, event=f"alert.{_EVENT[status]}", key=f"alert:{alert.id}:v{alert.version}",
                alert_id=alert.id,
            )  # fmt: skip
        session.flush()
        if alert.incident_id is not None:
            _sync_incident_silently(session, alert.incident_id)
        session.commit()
    return alert


def set_incident_status(
    session: Session, incident_id: int, *, status: str, note: str | None, actor: str
) -> Incident:
    """Triage of every alert of an incident at once: one notification for all of them."""
    incident = get_incident(session, incident_id, lock=True)
    changed = noted = False
    for alert in incident.alerts:
        if status != "open" and alert.status == "resolved":
            continue  # acknowledging an incident leaves its resolved alerts resolved
        before = alert.status
        noted = _apply(alert, status, note, actor) or noted
        changed = changed or alert.status != before
    if noted and not changed:  # only the note changed: saved, nobody notified again
        session.commit()
    if changed:
        incident.version += 1
        notify.record(
            session, event=f"incident.{_EVENT[status]}",
            key=f"incident:{incident.id}:v{incident.version}", incident_id=incident.id,
        )  # fmt: skip
        session.flush()
        _sync_incident_silently(session, incident.id)
        session.commit()
    return incident


def _sync_incident_silently(session: Session, incident_id: int) -> None:
    """A person's action already sent its notification: the incident's status follows its
    alerts without another one."""
    incident = session.get(Incident, incident_id)
    if incident is None:
        return
    unresolved = _unresolved(session, incident_id)
    if unresolved and incident.status == "resolved":
        incident.status, incident.resolved_at = "open", None
    elif not unresolved and incident.status == "open":
        incident.status, incident.resolved_at = "resolved", utcnow()
