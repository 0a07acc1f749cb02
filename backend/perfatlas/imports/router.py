"""Importers over HTTP: fio JSON and bonnie++ CSV or text become runs, through the same ingest."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Query, Request
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from perfatlas.api.deps import SessionDep, SettingsDep, UploadPrincipal
from perfatlas.auth.permissions import Principal
from perfatlas.core.errors import Invalid
from perfatlas.core.inputs import RunTime
from perfatlas.flows import imports
from perfatlas.imports.schemas import ImportDurability, ImportRead
from perfatlas.imports.service import Tool

router = APIRouter(tags=["imports"])

LABEL_DOC = "name=value (or name:value), repeatable; a form field 'labels' may hold several, comma-separated"


def _labels(items: list[str], field: str) -> dict[str, str]:
    labels: dict[str, str] = {}
    for item in items:
        for part in item.split(","):
            part = part.strip()
            if not part:
                continue
            key, sep, value = part.partition("=") if "=" in part else part.partition(":")
            if not sep or not key.strip():
                raise Invalid(field, f"{part!r} is not of the form name=value")
            labels[key.strip()] = value.strip()
    return labels


async def _import(
    request: Request,
    *,
    tool: Tool,
    session: SessionDep,
    settings: SettingsDep,
    background: BackgroundTasks,
    agent: str | None,
    target: str | None,
    label: list[str],
    started_at: dt.datetime | None,
    principal: Principal,
    durability: ImportDurability,
) -> ImportRead:
    labels = _labels(label, "label")
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        form = await request.form()
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise Invalid("file", "send the tool's output as the form field 'file'")
        data = await upload.read()
        agent = agent or _text(form.get("agent"))
        target = target or _text(form.get("target"))
        labels.update(_labels([_text(v) or "" for v in form.getlist("labels")], "labels"))
    else:
        data = await request.body()
    if not data.strip():
        raise Invalid(
            "body", "the upload is empty: send the tool's output as the body or as 'file'"
        )

    def store() -> ImportRead:
        return imports.import_output(
            session, settings, background, tool=tool, data=data, agent=agent, target=target,
            labels=labels, started_at=started_at, principal=principal, durability=durability,
        )  # fmt: skip

    return await run_in_threadpool(store)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


AgentQuery = Annotated[str | None, Query(description="the machine the file came from")]
TargetQuery = Annotated[str | None, Query(description="the directory or device tested")]
LabelQuery = Annotated[list[str], Query(description=LABEL_DOC)]
STARTED_DOC = (
    "when the run started, if the file does not say (bonnie++ never does: without it, runs "
    "get the time of their first import)"
)
BODY_DOC = {
    "requestBody": {
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "text/csv": {"schema": {"type": "string"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "agent": {"type": "string"},
                        "target": {"type": "string"},
                        "labels": {"type": "string"},
                    },
                    "required": ["file"],
                }
            },
        }
    }
}


@router.post(
    "/import/fio", operation_id="import_fio", response_model=ImportRead, openapi_extra=BODY_DOC
)
async def import_fio(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    principal: UploadPrincipal,
    background: BackgroundTasks,
    durability: Annotated[ImportDurability, Query()],
    agent: AgentQuery = None,
    target: TargetQuery = None,
    label: LabelQuery = [],  # noqa: B006
    started_at: Annotated[RunTime | None, Query(description=STARTED_DOC)] = None,
) -> ImportRead:
    """Import fio output (--output-format=json or json+): one run per job."""
    return await _import(
        request, tool="fio", session=session, settings=settings, background=background,
        agent=agent,
        target=target, label=label, started_at=started_at, principal=principal,
        durability=durability,
    )  # fmt: skip


@router.post(
    "/import/bonnie",
    operation_id="import_bonnie",
    response_model=ImportRead,
    openapi_extra=BODY_DOC,
)
async def import_bonnie(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    principal: UploadPrincipal,
    background: BackgroundTasks,
    durability: Annotated[ImportDurability, Query()],
    agent: AgentQuery = None,
    target: TargetQuery = None,
    label: LabelQuery = [],  # noqa: B006
    started_at: Annotated[RunTime | None, Query(description=STARTED_DOC)] = None,
) -> ImportRead:
    """Import bonnie++ CSV lines (one run per line) or, in a file without them, Bonnie 1.x text
    tables (one run per row); '+++++' fields are left out as not measured."""
    return await _import(
        request, tool="bonnie", session=session, settings=settings,
        background=background, agent=agent,
        target=target, label=label, started_at=started_at, principal=principal,
        durability=durability,
    )  # fmt: skip
