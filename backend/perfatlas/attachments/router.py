"""HTTP routes of a run's attachments: upload one (idempotent), list them, download one."""

from __future__ import annotations

import uuid as uuid_mod
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from starlette.convertors import PathConvertor, register_url_convertor

from perfatlas.api.deps import ReadPrincipal, SessionDep, SettingsDep, UploadPrincipal
from perfatlas.attachments import download, service
from perfatlas.attachments.names import DEFAULT_MEDIA_TYPE
from perfatlas.attachments.schemas import AttachmentList
from perfatlas.core.config import Settings
from perfatlas.runs.schemas import AttachmentRead

router = APIRouter(tags=["attachments"])


async def bounded_body(request: Request) -> bytes:
    """The request body, refused (413, naming `body`) as soon as it passes the per-file limit:
    an oversized upload is never read whole."""
    settings: Settings = request.app.state.settings
    limit = settings.attachment_max_bytes
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise service.too_large(int(declared), limit)
    chunks: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise service.too_large(received, limit, at_least=True)
        chunks.append(chunk)
    return b"".join(chunks)


Body = Annotated[bytes, Depends(bounded_body)]


class _AnyName(PathConvertor):
    """Any text, line breaks and slashes too, so that a bad name is refused with a message
    naming it (path.name) rather than matching no route."""

    regex = "(?s:.*)"


register_url_convertor("attachment_name", _AnyName())
_PATH = "/runs/{run_uuid}/attachments/{name:attachment_name}"


def _headers(row: AttachmentRead) -> dict[str, str]:
    return {"ETag": f'"{row.sha256}"'}


@router.put(
    _PATH,
    operation_id="put_attachment",
    status_code=201,
    response_model=AttachmentRead,
    responses={200: {"model": AttachmentRead, "description": "stored already with this content"}},
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "the file's bytes; Content-Type is stored as its media type",
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            },
        }
    },
)
def put_attachment(
    run_uuid: uuid_mod.UUID,
    name: str,
    request: Request,
    content: Body,
    session: SessionDep,
    settings: SettingsDep,
    principal: UploadPrincipal,
    response: Response,
) -> AttachmentRead:
    """Keep a file with a run; the same content again is a no-op (200), other content under the
    same name a conflict (409)."""
    stored = service.keep(
        session, settings=settings, principal=principal, run_uuid=run_uuid, name=name,
        media_type=request.headers.get("content-type") or DEFAULT_MEDIA_TYPE, content=content,
    )  # fmt: skip
    response.status_code = 201 if stored.created else 200
    response.headers.update(_headers(stored.attachment))
    return stored.attachment


@router.get(
    "/runs/{run_uuid}/attachments", operation_id="list_attachments", response_model=AttachmentList
)
def list_attachments(
    run_uuid: uuid_mod.UUID, session: SessionDep, _: ReadPrincipal
) -> AttachmentList:
    """A run's attachments: name, media type, size, sha256 and download path."""
    return service.list_for(session, run_uuid=run_uuid)


_DOWNLOAD: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "the file, with its own media type",
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
    },
    304: {"description": "If-None-Match named its sha256: unchanged"},
}


@router.get(_PATH, operation_id="get_attachment", response_class=Response, responses=_DOWNLOAD)
def get_attachment(
    run_uuid: uuid_mod.UUID, name: str, request: Request, session: SessionDep, _: ReadPrincipal
) -> Response:
    """Download one attachment (sha256 as its ETag)."""
    return download.download(
        session, run_uuid=run_uuid, name=name,
        if_none_match=request.headers.get("if-none-match", ""),
    )  # fmt: skip
