"""HTTP routes of alerts, incidents, alert rules and a series' change points."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from perfatlas.alerts import answers, queries, rules
from perfatlas.alerts.schemas import (
    AlertDetail,
    AlertPage,
    AlertRead,
    AlertStatus,
    IncidentDetail,
    IncidentPage,
    IncidentStatus,
    RuleCreate,
    RuleList,
    RuleRead,
    SeriesChangePoints,
    StatusUpdate,
)
from perfatlas.api.deps import (
    AdminPrincipal,
    ReadPrincipal,
    SessionDep,
    SettingsDep,
    TriagePrincipal,
    json_body,
)
from perfatlas.core.inputs import UTCTime

router = APIRouter(tags=["alerts"])
Labels = Annotated[list[str], Query(description="label filters name:value (repeatable)")]


@router.get("/alerts", operation_id="list_alerts", response_model=AlertPage)
def list_alerts(
    session: SessionDep,
    _: ReadPrincipal,
    status: Annotated[list[AlertStatus], Query(description="any of these (repeatable)")] = [],  # noqa: B006
    workload: str | None = None,
    metric: str | None = None,
    agent: Annotated[str | None, Query(description="the agent (host) of the series")] = None,
    label: Labels = [],  # noqa: B006
    series_id: int | None = None,
    incident_id: int | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: str | None = None,
) -> AlertPage:
    """Alerts, newest change first, with the count per status under the same filters."""
    return queries.list_alerts(
        session, statuses=status, workload=workload, metric=metric, agent=agent, labels=label,
        series_id=series_id, incident_id=incident_id, limit=limit, cursor=cursor,
    )  # fmt: skip


@router.get("/alerts/{alert_id}", operation_id="get_alert", response_model=AlertDetail)
def get_alert(alert_id: int, session: SessionDep, _: ReadPrincipal) -> AlertDetail:
    """One alert with the series around its change and what differs between the runs either
    side of it (environment, parameters, labels, durability)."""
    return answers.alert_detail(session, alert_id=alert_id)


@router.post(
    "/alerts/{alert_id}/status",
    operation_id="set_alert_status",
    response_model=AlertRead,
)
def set_alert_status(
    alert_id: int,
    body: Annotated[StatusUpdate, json_body(StatusUpdate)],
    session: SessionDep,
    principal: TriagePrincipal,
) -> AlertRead:
    """Acknowledge, mark expected (with a note saying why), reopen or resolve an alert."""
    return answers.triage_alert(
        session, alert_id=alert_id, status=body.status, note=body.note, actor=principal.name
    )


@router.get("/incidents", operation_id="list_incidents", response_model=IncidentPage)
def list_incidents(
    session: SessionDep,
    _: ReadPrincipal,
    status: IncidentStatus | None = None,
    agent: str | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: str | None = None,
) -> IncidentPage:
    """Incidents (alerts grouped by cause), newest first."""
    return queries.list_incidents(session, status=status, agent=agent, limit=limit, cursor=cursor)


@router.get("/incidents/{incident_id}", operation_id="get_incident", response_model=IncidentDetail)
def get_incident(incident_id: int, session: SessionDep, _: ReadPrincipal) -> IncidentDetail:
    return answers.incident_detail(session, incident_id=incident_id)


@router.post(
    "/incidents/{incident_id}/status",
    operation_id="set_incident_status",
    response_model=IncidentDetail,
)
def set_incident_status(
    incident_id: int,
    body: Annotated[StatusUpdate, json_body(StatusUpdate)],
    session: SessionDep,
    principal: TriagePrincipal,
) -> IncidentDetail:
    """Triage every alert of an incident at once (one notification for all of them)."""
    return answers.triage_incident(
        session, incident_id=incident_id, status=body.status, note=body.note, actor=principal.name
    )


# ---- rules ------------------------------------------------------------------------------


@router.get("/alert-rules", operation_id="list_alert_rules", response_model=RuleList)
def list_rules(session: SessionDep, settings: SettingsDep, _: ReadPrincipal) -> RuleList:
    """The rules, and the default thresholds that apply where none matches."""
    return rules.list_rules(session, settings=settings)


@router.post(
    "/alert-rules",
    operation_id="create_alert_rule",
    status_code=201,
    response_model=RuleRead,
)
def create_rule(
    body: Annotated[RuleCreate, json_body(RuleCreate)], session: SessionDep, _: AdminPrincipal
) -> RuleRead:
    """Thresholds (or mute) for the series it matches; the most specific rule wins."""
    return rules.create_rule(session, body=body)


@router.put(
    "/alert-rules/{rule_id}",
    operation_id="update_alert_rule",
    response_model=RuleRead,
)
def update_rule(
    rule_id: int,
    body: Annotated[RuleCreate, json_body(RuleCreate)],
    session: SessionDep,
    _: AdminPrincipal,
) -> RuleRead:
    return rules.update_rule(session, rule_id=rule_id, body=body)


@router.delete("/alert-rules/{rule_id}", operation_id="delete_alert_rule", status_code=204)
def delete_rule(rule_id: int, session: SessionDep, _: AdminPrincipal) -> Response:
    rules.delete_rule(session, rule_id=rule_id)
    return Response(status_code=204)


# ---- change points of one series ---------------------------------------------------------


@router.get(
    "/series/{series_id}/change-points",
    operation_id="series_change_points",
    response_model=SeriesChangePoints,
    tags=["runs"],
)
def series_change_points(
    series_id: int,
    session: SessionDep,
    _: ReadPrincipal,
    points: Annotated[int, Query(ge=10, le=10_000, description="newest points to look at")] = 1000,
    until: Annotated[
        UTCTime | None,
        Query(description="look at the newest points that started before this time instead"),
    ] = None,
) -> SeriesChangePoints:
    """Every change the detector finds in the series' newest points (or the newest before
    `until`: a window further back), improvements too, with the alert each one opened; for
    marking changes on a plot."""
    return queries.series_change_points(session, series_id=series_id, points=points, until=until)
