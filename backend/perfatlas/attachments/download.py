"""One attachment as the API serves it: its bytes with their own media type, its sha256 as the
ETag, and never sniffed or run from the API's origin."""

from __future__ import annotations

import uuid as uuid_mod

from fastapi import Response
from sqlalchemy.orm import Session

from perfatlas.attachments import service
from perfatlas.attachments.names import content_disposition


def download(
    session: Session, *, run_uuid: uuid_mod.UUID, name: str, if_none_match: str
) -> Response:
    """The attachment, or 304 when `if_none_match` (the If-None-Match header) names its ETag."""
    row = service.get(session, run_uuid=run_uuid, name=name)
    etag = f'"{row.sha256}"'
    headers = {
        "ETag": etag,
        "Content-Disposition": content_disposition(row.name),
        # Stored bytes of any type, served from the API's origin: never sniffed, never run.
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox",
        "Cache-Control": "private, max-age=0, must-revalidate",
    }
    if etag in [tag.strip() for tag in if_none_match.split(",")]:
        return Response(status_code=304, headers=headers)
    return Response(content=row.content, headers={**headers, "Content-Type": row.media_type})
