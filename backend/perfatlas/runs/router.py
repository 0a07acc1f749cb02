"""HTTP routes of runs and series: upload, list, detail, series points."""

from __future__ import annotations

import uuid as uuid_mod
from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Depends, Query, Request, Response
from pydantic import BaseModel

from perfatlas.api.deps import (
    ReadPrincipal,
    SessionDep,
    SettingsDep,
    UploadPrincipal,
    json_body,
    json_bytes,
)
from perfatlas.auth.service import check_agent
from perfatlas.core.inputs import UTCTime
from perfatlas.core.measurement import RunBatchCreate, RunCreate
from perfatlas.flows import runs
from perfatlas.flows.group_commit import GroupCommit
from perfatlas.runs import service
from perfatlas.runs.schemas import BatchRead, RunPage, RunRead

router = APIRouter(tags=["runs"])


async def _group_commit(request: Request) -> GroupCommit:
    groups: GroupCommit = request.app.state.group_commit
    return groups


# The process's group commit of uploads (flows/group_commit.py).
GroupCommitDep = Annotated[GroupCommit, Depends(_group_commit)]


@router.post(
    "/runs",
    operation_id="create_run",
    status_code=201,
    response_model=RunRead,
    responses={200: {"model": RunRead, "description": "stored already: a retry"}},
)
def create_run(
    body: Annotated[RunCreate, json_body(RunCreate)],
    session: SessionDep,
    settings: SettingsDep,
    principal: UploadPrincipal,
    groups: GroupCommitDep,
    background: BackgroundTasks,
) -> Response:
    """Upload one run with its results; a retry with the same uuid and body returns the stored run."""
    check_agent(principal, agent=body.agent, field="body.agent")
    read, created = runs.upload_run(session, settings, background, groups, body)
    return _json(read, status_code=201 if created else 200)


def _json(model: BaseModel, status_code: int = 200) -> Response:
    """The answer of an upload as JSON, serialized in the route's worker thread: a model
    returned instead would be validated again in one more trip to a thread."""
    return Response(model.model_dump_json(), status_code, media_type="application/json")


@router.post(
    "/runs/batch",
    operation_id="create_runs_batch",
    response_model=BatchRead,
)
def create_runs_batch(
    raw: Annotated[bytearray, json_bytes(RunBatchCreate)],
    session: SessionDep,
    settings: SettingsDep,
    principal: UploadPrincipal,
    groups: GroupCommitDep,
    background: BackgroundTasks,
) -> Response:
    """Upload up to 1,000 runs at once, all or nothing; runs already stored are not duplicated."""
    return _json(
        runs.upload_batch(session, settings, background, groups, principal=principal, raw=raw)
    )


@router.get("/runs", operation_id="list_runs", response_model=RunPage)
def list_runs(
    session: SessionDep,
    _: ReadPrincipal,
    workload: str | None = None,
    agent: str | None = None,
    status: str | None = None,
    target: str | None = None,
    label: Annotated[list[str], Query(description="name:value, repeatable")] = [],  # noqa: B006
    param: Annotated[list[str], Query(description="name:value, repeatable")] = [],  # noqa: B006
    since: UTCTime | None = None,
    until: UTCTime | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: str | None = None,
) -> RunPage:
    """List runs, newest first, with filters and cursor pagination."""
    return service.runs_page(
        session, workload=workload, agent=agent, status=status, target=target, labels=label,
        params=param, since=since, until=until, limit=limit, cursor=cursor,
    )  # fmt: skip


@router.get("/runs/{run_uuid}", operation_id="get_run", response_model=RunRead)
def get_run(run_uuid: uuid_mod.UUID, session: SessionDep, _: ReadPrincipal) -> RunRead:
    """One run with its environment, every result with its samples, and its trust notes."""
    return runs.read_run(session, run_uuid=run_uuid)


_ZIP: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "run-<uuid>/run.json, run-<uuid>/attachments/<name>, run-<uuid>/SHA256SUMS",
        "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}},
    }
}


@router.get(
    "/runs/{run_uuid}/export", operation_id="export_run", response_class=Response, responses=_ZIP
)
def export_run(run_uuid: uuid_mod.UUID, session: SessionDep, _: ReadPrincipal) -> Response:
    """The run and its attachments as one zip, with the attachments' sha256 sums."""
    return Response(
        content=runs.export_run(session, run_uuid=run_uuid),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="run-{run_uuid}.zip"'},
    )
