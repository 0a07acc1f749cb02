"""A run as one file: its JSON and its attachments in a zip, with their checksums (what seed 003
published as atlasperf.git.tar.gz: the results, the raw data and the toolchain together)."""

from __future__ import annotations

import io
import uuid as uuid_mod
import zipfile

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.attachments.models import Attachment
from perfatlas.runs.models import Run


def archive(session: Session, *, run_uuid: uuid_mod.UUID, run_json: bytes) -> bytes:
    """run.json, attachments/<name> for each file, and SHA256SUMS (`sha256sum -c` reads it)."""
    rows = session.execute(
        select(Attachment.name, Attachment.sha256, Attachment.content)
        .join(Run, Run.id == Attachment.run_id)
        .where(Run.uuid == run_uuid)
        .order_by(Attachment.name)
    ).all()
    buffer = io.BytesIO()
    folder = f"run-{run_uuid}"
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{folder}/run.json", run_json)
        sums = []
        for name, sha256, content in rows:
            zf.writestr(f"{folder}/attachments/{name}", bytes(content))
            sums.append(f"{sha256}  attachments/{name}\n")
        zf.writestr(f"{folder}/SHA256SUMS", "".join(sums))
    return buffer.getvalue()
