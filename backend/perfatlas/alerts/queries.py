"""Reading alerts and incidents for the API: lists with filters and cursors, details with the
series around the change and what differs between the runs either side of it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, TypeVar

from sqlalchemy import Select, and_, func, or_, select
from sqlalchemy.orm import Session, selectinload

from perfatlas.agents.models import Agent
from perfatlas.alerts.confirmations import confirmations
from perfatlas.alerts.detection import VOLATILE_KEYS, change_points
from perfatlas.alerts.enums import AlertStatus
from perfatlas.alerts.models import Alert, Incident
from perfatlas.alerts.schemas import (
    AlertDetail,
    AlertPage,
    AlertPoints,
    AlertRead,
    Change,
    Differences,
    IncidentDetail,
    IncidentPage,
    IncidentRead,
    RunRef,
    SeriesChangePoint,
    SeriesChangePoints,
    changes,
)
from perfatlas.analysis.detector import context_changes
from perfatlas.confirm.schemas import ConfirmationRead
from perfatlas.core.durability import DURABILITY_FIELDS
from perfatlas.core.pagination import decode_cursor, encode_cursor, parse_pairs
from perfatlas.core.trust import NOT_DETECTED
from perfatlas.runs.dimensions import json_text
from perfatlas.runs.models import Result, Run, Series
from perfatlas.runs.schemas import SeriesRef
from perfatlas.runs.service import get_series

SelectT = TypeVar("SelectT", bound="Select[*tuple[Any, ...]]")
POINTS_AROUND = 30
DURABILITY = DURABILITY_FIELDS


def _run_ref(run: Run | None) -> RunRef | None:
    if run is None:
        return None
    return RunRef(
        uuid=run.uuid, started_at=run.started_at, labels=run.labels,
        environment_id=run.environment_id,
    )  # fmt: skip


def series_ref(series: Series) -> SeriesRef:
    return SeriesRef(
        id=series.id, workload=series.workload, metric=series.metric, unit=series.unit,
        direction=series.direction, agent=series.agent.name, target=series.target,
        parameters=series.parameters, labels=series.labels,
    )  # fmt: skip


def alert_read(alert: Alert, confirmation: ConfirmationRead | None = None) -> AlertRead:
    change_run = _run_ref(alert.change_run)
    assert change_run is not None
    return AlertRead(
        id=alert.id, status=alert.status, resolution=alert.resolution,
        kind=alert.kind, series=series_ref(alert.series),
        incident_id=alert.incident_id, before=alert.before, after=alert.after,
        change_pct=alert.change_pct, confidence=alert.confidence, tentative=alert.tentative,
        points_after=alert.points_after,
        cause=changes(alert.cause),
        change_at=alert.change_at, change_run=change_run,
        previous_run=_run_ref(alert.previous_run), resolved_by_run=_run_ref(alert.resolved_by_run),
        note=alert.note, status_changed_at=alert.status_changed_at,
        status_changed_by=alert.status_changed_by, created_at=alert.created_at,
        updated_at=alert.updated_at, resolved_at=alert.resolved_at, confirmation=confirmation,
    )  # fmt: skip


def confirmation_of(session: Session, alert: Alert) -> ConfirmationRead | None:
    return confirmations(session, [alert]).get(alert.id)


def _filtered(
    session: Session,
    query: SelectT,
    *,
    workload: str | None,
    metric: str | None,
    agent: str | None,
    labels: Sequence[str],
    series_id: int | None,
    incident_id: int | None,
) -> SelectT:
    query = query.join(Series, Series.id == Alert.series_id)
    if workload:
        query = query.where(Series.workload == workload)
    if metric:
        query = query.where(Series.metric == metric)
    if agent:
        query = query.join(Agent, Agent.id == Series.agent_id).where(Agent.name == agent)
    dialect = session.get_bind().dialect.name
    for key, wanted in parse_pairs("label", labels).items():
        query = query.where(json_text(Series.labels, key, dialect).in_(wanted))
    if series_id is not None:
        query = query.where(Alert.series_id == series_id)
    if incident_id is not None:
        query = query.where(Alert.incident_id == incident_id)
    return query


def list_alerts(
    session: Session,
    *,
    statuses: Sequence[str] = (),
    workload: str | None = None,
    metric: str | None = None,
    agent: str | None = None,
    labels: Sequence[str] = (),
    series_id: int | None = None,
    incident_id: int | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> AlertPage:
    filters: dict[str, Any] = {
        "workload": workload, "metric": metric, "agent": agent, "labels": labels,
        "series_id": series_id, "incident_id": incident_id,
    }  # fmt: skip
    query = _filtered(session, select(Alert), **filters)
    if statuses:
        query = query.where(Alert.status.in_(statuses))
    if cursor:
        stamp, row_id = decode_cursor(cursor)
        query = query.where(
            or_(Alert.change_at < stamp, and_(Alert.change_at == stamp, Alert.id < row_id))
        )
    # The runs either side of each change, for a whole page in three queries (not three per
    # alert).
    runs = (
        selectinload(Alert.change_run), selectinload(Alert.previous_run),
        selectinload(Alert.resolved_by_run),
    )  # fmt: skip
    rows = list(
        session.scalars(
            query.options(*runs).order_by(Alert.change_at.desc(), Alert.id.desc()).limit(limit + 1)
        )
    )
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor(rows[-1].change_at, rows[-1].id)
    by_status = select(Alert.status, func.count()).select_from(Alert)
    counts_query = _filtered(session, by_status, **filters).group_by(Alert.status)
    counts = {status.value: 0 for status in AlertStatus}
    counts.update({status: n for status, n in session.execute(counts_query)})
    confirmed = confirmations(session, rows)
    return AlertPage(
        items=[alert_read(a, confirmed.get(a.id)) for a in rows],
        next_cursor=next_cursor,
        counts=counts,
    )


def _points(session: Session, alert: Alert) -> AlertPoints:
    columns = (Result.started_at, Result.value, Result.p5, Result.p95, Result.run_uuid)
    # The series' history: a confirmation's runs are shown in `confirmation`, not here, and
    # reference figures are no part of what the alert was detected on.
    base = select(*columns).where(
        Result.series_id == alert.series_id, Result.flags.op("&")(NOT_DETECTED) == 0
    )
    before = session.execute(
        base.where(Result.started_at < alert.change_at)
        .order_by(Result.started_at.desc())
        .limit(POINTS_AROUND)
    ).all()
    after = session.execute(
        base.where(Result.started_at >= alert.change_at)
        .order_by(Result.started_at)
        .limit(POINTS_AROUND)
    ).all()
    rows = [*reversed(before), *after]
    return AlertPoints(
        started_at=[r[0] for r in rows], value=[r[1] for r in rows], p5=[r[2] for r in rows],
        p95=[r[3] for r in rows], run_uuid=[r[4] for r in rows],
        change_index=len(before) if after else None,
    )  # fmt: skip


def _changes(before: dict[str, Any] | None, after: dict[str, Any] | None) -> dict[str, Change]:
    return changes(context_changes(before, after)) or {}


def differences(previous: Run | None, current: Run) -> Differences:
    if previous is None:
        return Differences(environment={}, parameters={}, labels={}, durability={})
    env_before = previous.environment.data if previous.environment else {}
    env_after = current.environment.data if current.environment else {}
    environment = {
        k: v for k, v in _changes(env_before, env_after).items() if k not in VOLATILE_KEYS
    }
    durability = {
        name: Change(before=getattr(previous, name), after=getattr(current, name))
        for name in DURABILITY
        if getattr(previous, name) != getattr(current, name)
    }
    return Differences(
        environment=environment, parameters=_changes(previous.parameters, current.parameters),
        labels=_changes(previous.labels, current.labels), durability=durability,
    )  # fmt: skip


def alert_detail(session: Session, alert: Alert) -> AlertDetail:
    return AlertDetail(
        **alert_read(alert, confirmation_of(session, alert)).model_dump(),
        points=_points(session, alert),
        differences=differences(alert.previous_run, alert.change_run),
    )


def _alert_counts(session: Session, incident_ids: Sequence[int]) -> dict[int, dict[str, int]]:
    counts: dict[int, dict[str, int]] = {i: {} for i in incident_ids}
    for incident_id, status, n in session.execute(
        select(Alert.incident_id, Alert.status, func.count())
        .where(Alert.incident_id.in_(incident_ids))
        .group_by(Alert.incident_id, Alert.status)
    ):
        if incident_id is not None:
            counts[incident_id][status] = n
    return counts


def incident_read(session: Session, incident: Incident, counts: dict[str, int]) -> IncidentRead:
    return IncidentRead(
        id=incident.id, title=incident.title, status=incident.status,
        agent=incident.agent.name if incident.agent else None,
        cause=changes(incident.cause),
        opened_at=incident.opened_at, resolved_at=incident.resolved_at,
        updated_at=incident.updated_at, alert_counts=counts,
    )  # fmt: skip


def list_incidents(
    session: Session,
    *,
    status: str | None = None,
    agent: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> IncidentPage:
    query = select(Incident)
    if status:
        query = query.where(Incident.status == status)
    if agent:
        # The incident's own agent, or any agent of its alerts.
        agent_series = select(Alert.incident_id).join(Series, Series.id == Alert.series_id)
        agent_series = agent_series.join(Agent, Agent.id == Series.agent_id)
        query = query.where(Incident.id.in_(agent_series.where(Agent.name == agent)))
    if cursor:
        stamp, row_id = decode_cursor(cursor)
        query = query.where(
            or_(Incident.opened_at < stamp, and_(Incident.opened_at == stamp, Incident.id < row_id))
        )
    rows = list(
        session.scalars(
            query.order_by(Incident.opened_at.desc(), Incident.id.desc()).limit(limit + 1)
        ).unique()
    )
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor(rows[-1].opened_at, rows[-1].id)
    counts = _alert_counts(session, [i.id for i in rows])
    return IncidentPage(
        items=[incident_read(session, i, counts[i.id]) for i in rows], next_cursor=next_cursor
    )


def incident_detail(session: Session, incident: Incident) -> IncidentDetail:
    counts = _alert_counts(session, [incident.id])[incident.id]
    confirmed = confirmations(session, incident.alerts)
    return IncidentDetail(
        **incident_read(session, incident, counts).model_dump(),
        alerts=[alert_read(a, confirmed.get(a.id)) for a in incident.alerts],
    )


def tentative_series(session: Session, series_ids: Sequence[int]) -> set[int]:
    """The series among these with a tentative alert still unresolved: a trust flag for readers."""
    if not series_ids:
        return set()
    return set(
        session.scalars(
            select(Alert.series_id).where(
                Alert.series_id.in_(sorted(set(series_ids))),
                Alert.tentative.is_(True),
                Alert.status.in_(("open", "acknowledged")),
            )
        )
    )


def tentative_series_of_metric(session: Session, *, workload: str, metric: str) -> set[int]:
    """The series of one metric with a tentative alert still unresolved, in one query."""
    return set(
        session.scalars(
            select(Alert.series_id)
            .join(Series, Series.id == Alert.series_id)
            .where(
                Series.workload == workload,
                Series.metric == metric,
                Alert.tentative.is_(True),
                Alert.status.in_(("open", "acknowledged")),
            )
        )
    )


def series_change_points(
    session: Session, *, series_id: int, points: int, until: dt.datetime | None
) -> SeriesChangePoints:
    """Every change the detector finds in the series' newest `points` points (or the newest
    before `until`), improvements too, with the alert each one opened."""
    series = get_series(session, series_id=series_id)
    loaded, cps = change_points(session, series, points, until)
    run_ids = [loaded[cp.index].run_id for cp in cps]
    uuids = dict(session.execute(select(Run.id, Run.uuid).where(Run.id.in_(run_ids))).all())
    alerts = dict(
        session.execute(
            select(Alert.change_run_id, Alert.id).where(
                Alert.series_id == series.id, Alert.change_run_id.in_(run_ids)
            )
        ).all()
    )
    return SeriesChangePoints(
        series_id=series.id,
        points=len(loaded),
        change_points=[
            SeriesChangePoint(
                run_uuid=uuids[run_id],
                started_at=loaded[cp.index].started_at,
                before=cp.before,
                after=cp.after,
                change_pct=cp.change_pct,
                confidence=cp.confidence,
                kind=cp.kind,
                tentative=cp.tentative,
                cause=changes(cp.cause),
                alert_id=alerts.get(run_id),
            )
            for cp, run_id in zip(cps, run_ids, strict=True)
        ],
    )
