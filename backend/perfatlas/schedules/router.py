"""HTTP routes of schedules. Writes need the admin permission: a schedule runs any command its
spec gives on the test machines."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from perfatlas.api.deps import (
    AdminPrincipal,
    ReadPrincipal,
    SessionDep,
    json_body,
)
from perfatlas.schedules import service
from perfatlas.schedules.schemas import (
    FiringPage,
    ScheduleCreate,
    ScheduleList,
    SchedulePreview,
    SchedulePreviewIn,
    ScheduleRead,
    ScheduleUpdate,
)

router = APIRouter(tags=["schedules"])


@router.get("/schedules", operation_id="list_schedules", response_model=ScheduleList)
def list_schedules(session: SessionDep, _: ReadPrincipal) -> ScheduleList:
    """Every schedule, by name, with the agents it picks now and its last firing."""
    return ScheduleList(items=service.list_schedules(session))


@router.post(
    "/schedules",
    operation_id="create_schedule",
    status_code=201,
    response_model=ScheduleRead,
)
def create_schedule(
    _: AdminPrincipal,
    body: Annotated[ScheduleCreate, json_body(ScheduleCreate)],
    session: SessionDep,
) -> ScheduleRead:
    """Schedule a workload spec on the agents the selector picks. `when` "now" fires at once
    (the jobs exist when this returns); a selector matching no agent is allowed (see
    `matching_agents`)."""
    return service.create_schedule(session, data=body)


@router.post(
    "/schedules/preview",
    operation_id="preview_schedule",
    response_model=SchedulePreview,
)
def preview_schedule(
    _: ReadPrincipal,
    body: Annotated[SchedulePreviewIn, json_body(SchedulePreviewIn)],
    session: SessionDep,
) -> SchedulePreview:
    """What a schedule would do: runs per agent, the agents it picks, its next five firings."""
    return service.preview(session, data=body)


@router.get("/schedules/{schedule_id}", operation_id="get_schedule", response_model=ScheduleRead)
def get_schedule(schedule_id: int, session: SessionDep, _: ReadPrincipal) -> ScheduleRead:
    return service.read_schedule(session, schedule_id=schedule_id)


@router.patch(
    "/schedules/{schedule_id}",
    operation_id="update_schedule",
    response_model=ScheduleRead,
)
def update_schedule(
    _: AdminPrincipal,
    schedule_id: int,
    body: Annotated[ScheduleUpdate, json_body(ScheduleUpdate)],
    session: SessionDep,
) -> ScheduleRead:
    """Change any of name, spec, agents, when, timezone, paused; a new when or timezone
    recomputes next_fire_at."""
    return service.update_schedule(session, schedule_id=schedule_id, data=body)


@router.delete("/schedules/{schedule_id}", operation_id="delete_schedule", status_code=204)
def delete_schedule(schedule_id: int, session: SessionDep, _: AdminPrincipal) -> Response:
    """Delete a schedule: its queued jobs are cancelled, its job history is kept."""
    service.delete_schedule(session, schedule_id=schedule_id)
    return Response(status_code=204)


@router.post(
    "/schedules/{schedule_id}/pause", operation_id="pause_schedule", response_model=ScheduleRead
)
def pause_schedule(schedule_id: int, session: SessionDep, _: AdminPrincipal) -> ScheduleRead:
    """No firing until resumed (jobs already queued stay queued)."""
    return service.pause_schedule(session, schedule_id=schedule_id, paused=True)


@router.post(
    "/schedules/{schedule_id}/resume", operation_id="resume_schedule", response_model=ScheduleRead
)
def resume_schedule(schedule_id: int, session: SessionDep, _: AdminPrincipal) -> ScheduleRead:
    """Fire again: a cron from its next time on (the firings missed while paused are not made);
    a one-off not yet made fires when due."""
    return service.pause_schedule(session, schedule_id=schedule_id, paused=False)


@router.get(
    "/schedules/{schedule_id}/firings",
    operation_id="list_schedule_firings",
    response_model=FiringPage,
)
def list_firings(
    schedule_id: int,
    session: SessionDep,
    _: ReadPrincipal,
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> FiringPage:
    """The schedule's firings, newest first, each with its jobs (agent, status, percent)."""
    return service.firings(session, schedule_id=schedule_id, cursor=cursor, limit=limit)
