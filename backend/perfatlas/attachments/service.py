"""Storing, listing and reading a run's attachments. Writes go into the caller's transaction
(the route commits); a name is stored once per run, and a retry with the same content is a
no-op."""

from __future__ import annotations

import hashlib
import uuid as uuid_mod
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session, undefer

from perfatlas.agents.models import Agent
from perfatlas.attachments.models import Attachment
from perfatlas.attachments.names import download_path, media_type_problem, name_problem
from perfatlas.attachments.schemas import AttachmentList
from perfatlas.auth.permissions import Principal
from perfatlas.auth.service import check_agent
from perfatlas.core.config import Settings
from perfatlas.core.db import commit_with_retry
from perfatlas.core.errors import Conflict, Invalid, NotFound, PayloadTooLarge
from perfatlas.core.models import utcnow
from perfatlas.runs.models import Run
from perfatlas.runs.schemas import AttachmentRead


@dataclass(frozen=True, slots=True)
class Limits:
    per_file: int
    per_run: int
    files_per_run: int


@dataclass(frozen=True, slots=True)
class Stored:
    attachment: AttachmentRead
    created: bool


def to_read(row: Attachment, run_uuid: uuid_mod.UUID) -> AttachmentRead:
    return AttachmentRead(
        name=row.name, media_type=row.media_type, size=row.size, sha256=row.sha256,
        created_at=row.created_at, url=download_path(str(run_uuid), row.name),
    )  # fmt: skip


def check_name(name: str) -> None:
    problem = name_problem(name)
    if problem:
        raise Invalid("path.name", problem)


def _too_large(message: str) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"body: {message}", extra={"errors": [{"field": "body", "message": message}]}
    )


def too_large(size: int, limit: int, *, at_least: bool = False) -> PayloadTooLarge:
    more = "more than " if at_least else ""
    return _too_large(
        f"{more}{size} bytes; an attachment holds at most {limit} bytes "
        "(PERFATLAS_ATTACHMENT_MAX_BYTES)"
    )


def put(
    session: Session,
    *,
    principal: Principal,
    run_uuid: uuid_mod.UUID,
    name: str,
    media_type: str,
    content: bytes,
    limits: Limits,
) -> Stored:
    """Stores `content` as the run's attachment `name`: created, or the same content stored
    already (a retry). Another content under that name is a Conflict; nothing is written
    when a check fails."""
    check_name(name)
    problem = media_type_problem(media_type)
    if problem:
        raise Invalid("header.content-type", problem)
    if len(content) > limits.per_file:
        raise too_large(len(content), limits.per_file)
    # The run's row is locked (PostgreSQL) until the commit: concurrent uploads to one run are
    # counted against its limits one after the other.
    found = session.execute(
        select(Run.id, Agent.name)
        .join(Agent, Agent.id == Run.agent_id)
        .where(Run.uuid == run_uuid)
        .with_for_update(of=Run)
    ).first()
    if found is None:
        raise NotFound(f"no run with uuid {run_uuid}")
    run_id, agent = found
    check_agent(principal, agent=agent, field="path.run_uuid")
    digest = hashlib.sha256(content).hexdigest()
    existing = session.scalar(
        select(Attachment).where(Attachment.run_id == run_id, Attachment.name == name)
    )
    if existing is not None:
        if existing.sha256 != digest:
            raise Conflict(
                f"run {run_uuid} has an attachment {name!r} with other content already "
                f"(sha256 {existing.sha256}, {existing.size} bytes); an attachment is "
                "written once: give this one another name"
            )
        return Stored(to_read(existing, run_uuid), created=False)
    count, total = session.execute(
        select(func.count(), func.coalesce(func.sum(Attachment.size), 0)).where(
            Attachment.run_id == run_id
        )
    ).one()
    if count >= limits.files_per_run:
        raise Invalid(
            "path.name",
            f"run {run_uuid} has {count} attachments already, the most a run may have "
            "(PERFATLAS_ATTACHMENT_RUN_MAX_FILES)",
        )
    if total + len(content) > limits.per_run:
        raise _too_large(
            f"{len(content)} bytes more would make the run's attachments "
            f"{total + len(content)} bytes; a run keeps at most {limits.per_run} bytes of "
            f"them (PERFATLAS_ATTACHMENT_RUN_MAX_BYTES), {limits.per_run - total} left"
        )
    row = Attachment(
        run_id=run_id, name=name, media_type=media_type, size=len(content), sha256=digest,
        content=content, created_at=utcnow(),
    )  # fmt: skip
    session.add(row)
    session.flush()
    return Stored(to_read(row, run_uuid), created=True)


def keep(
    session: Session,
    *,
    settings: Settings,
    principal: Principal,
    run_uuid: uuid_mod.UUID,
    name: str,
    media_type: str,
    content: bytes,
) -> Stored:
    """`put` within the settings' limits, committed (retried on a serialization failure)."""
    limits = Limits(
        per_file=settings.attachment_max_bytes,
        per_run=settings.attachment_run_max_bytes,
        files_per_run=settings.attachment_run_max_files,
    )
    return commit_with_retry(
        session,
        lambda: put(
            session, principal=principal, run_uuid=run_uuid, name=name,
            media_type=media_type, content=content, limits=limits,
        ),
    )  # fmt: skip


def _run_id(session: Session, run_uuid: uuid_mod.UUID) -> int:
    run_id = session.scalar(select(Run.id).where(Run.uuid == run_uuid))
    if run_id is None:
        raise NotFound(f"no run with uuid {run_uuid}")
    return run_id


def of_run(session: Session, *, run_id: int, run_uuid: uuid_mod.UUID) -> list[AttachmentRead]:
    """The run's attachments by name, without their content."""
    rows = session.scalars(
        select(Attachment).where(Attachment.run_id == run_id).order_by(Attachment.name)
    )
    return [to_read(row, run_uuid) for row in rows]


def list_for(session: Session, *, run_uuid: uuid_mod.UUID) -> AttachmentList:
    items = of_run(session, run_id=_run_id(session, run_uuid), run_uuid=run_uuid)
    return AttachmentList(items=items, total_bytes=sum(a.size for a in items))


def get(session: Session, *, run_uuid: uuid_mod.UUID, name: str) -> Attachment:
    """One attachment with its content."""
    check_name(name)
    row = session.scalar(
        select(Attachment)
        .where(Attachment.run_id == _run_id(session, run_uuid), Attachment.name == name)
        .options(undefer(Attachment.content))
    )
    if row is None:
        raise NotFound(f"run {run_uuid} has no attachment {name!r}")
    return row
