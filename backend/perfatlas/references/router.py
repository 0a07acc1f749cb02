"""POST /references: a published table becomes reference runs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter

from perfatlas.api.deps import SessionDep, SettingsDep, UploadPrincipal, json_body
from perfatlas.auth.service import check_agent
from perfatlas.references import service
from perfatlas.references.schemas import ReferenceCreate
from perfatlas.runs.schemas import BatchRead

router = APIRouter(tags=["references"])


@router.post(
    "/references",
    operation_id="create_reference",
    response_model=BatchRead,
)
def create_reference(
    body: Annotated[ReferenceCreate, json_body(ReferenceCreate)],
    session: SessionDep,
    settings: SettingsDep,
    principal: UploadPrincipal,
) -> BatchRead:
    """Store a published table (its source URL, what the numbers are, a value per metric and
    column) as reference runs, one per column: marked `reference` wherever they are shown,
    never used by detection or as an alert's baseline. Posting the same table again is a
    retry; the same column with other values is a conflict."""
    for index, column in enumerate(body.columns):
        check_agent(principal, agent=column.agent or body.agent, field=f"body.columns[{index}]")
    return service.create_reference(session, body, ignore_labels=settings.series_ignore_labels)
