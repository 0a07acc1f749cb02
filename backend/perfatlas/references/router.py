"""POST /references: a published table becomes reference runs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter

from perfatlas.api.deps import SessionDep, SettingsDep, UploadPrincipal, body_schema, json_body
from perfatlas.auth.service import check_agent
from perfatlas.core.db import commit_with_retry
from perfatlas.references.schemas import ReferenceCreate
from perfatlas.references.service import store_reference
from perfatlas.runs.schemas import BatchItem, BatchRead

router = APIRouter(tags=["references"])


@router.post(
    "/references",
    operation_id="create_reference",
    response_model=BatchRead,
    openapi_extra=body_schema(ReferenceCreate),
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
    outcomes = commit_with_retry(
        session,
        lambda: store_reference(session, body, ignore_labels=settings.series_ignore_labels),
    )
    created = sum(1 for o in outcomes if o.created)
    return BatchRead(
        created=created,
        existing=len(outcomes) - created,
        runs=[BatchItem(uuid=o.uuid, created=o.created) for o in outcomes],
    )
