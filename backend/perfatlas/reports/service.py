"""Reports: list, read, create, update, delete, import by slug, and every block's data.

A block is checked when it is written by asking for its data, so a report stores only queries
its pages would answer (an unknown dimension is a 422 naming blocks[i].field)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import exists, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from perfatlas.core.errors import Conflict, Invalid, NotFound
from perfatlas.core.models import utcnow
from perfatlas.reports.blocks import PageSettings, block_data, live_data
from perfatlas.reports.models import Report
from perfatlas.reports.schemas import (
    Block,
    BlockData,
    CompareBlock,
    ReportCreate,
    ReportData,
    ReportRead,
    ReportSummary,
    ReportUpdate,
)
from perfatlas.runs import dimensions as dims
from perfatlas.runs.models import Result, Run

_BLOCKS: TypeAdapter[list[Block]] = TypeAdapter(list[Block])


def _aware(moment: dt.datetime | None) -> dt.datetime | None:
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def blocks_of(report: Report) -> list[Block]:
    return _BLOCKS.validate_python(report.blocks)


def to_read(report: Report) -> ReportRead:
    return ReportRead(
        slug=report.slug, title=report.title, notes=report.notes, blocks=blocks_of(report),
        pinned_at=report.pinned_at, created_at=report.created_at, updated_at=report.updated_at,
    )  # fmt: skip


def list_reports(session: Session) -> list[ReportSummary]:
    reports = session.scalars(select(Report).order_by(Report.updated_at.desc(), Report.id.desc()))
    return [
        ReportSummary(
            slug=r.slug,
            title=r.title,
            blocks=len(r.blocks),
            pinned_at=r.pinned_at,
            created_at=r.created_at,
            updated_at=r.updated_at,
        )
        for r in reports
    ]


def get_report(session: Session, *, slug: str) -> Report:
    report = session.scalar(select(Report).where(Report.slug == slug))
    if report is None:
        raise NotFound(f"no report {slug!r}")
    return report


STUDY_LABEL = "study"  # the label `perfatlas-agent study` puts on every run of a study


def _before_any_run(session: Session, block: Block) -> bool:
    """A block with nothing to be checked against yet: a group compare of a workload that has no
    runs, or a block of a study (a `study:NAME` filter) none of whose runs are stored yet."""
    workload = getattr(block, "workload", None)
    if not workload:
        return False
    if isinstance(block, CompareBlock):
        if block.runs is not None or not (block.by and block.values):
            return False  # refused for what is missing, as ever
        if not session.scalar(select(exists().where(Result.workload == workload))):
            return True
    studies = [f.partition(":")[2] for f in getattr(block, "filter", [])
               if f.partition(":")[0] in (STUDY_LABEL, f"label.{STUDY_LABEL}")]  # fmt: skip
    if not studies:
        return False
    dialect = session.get_bind().dialect.name
    study = dims.label(STUDY_LABEL, dialect).expr
    ran = exists().where(Run.workload == workload, study.in_(studies))
    return not session.scalar(select(ran))


def check_blocks(session: Session, blocks: Sequence[Block], pinned_at: dt.datetime | None) -> None:
    """Every block asked of its page's service: a refusal is a 422 naming blocks[i].field.
    A block with nothing to be checked against yet (`_before_any_run`) would be refused for want
    of results, not for a wrong name: it is kept, so that a study's default report can be
    imported before the study's first runs (beside other runs of its workloads), and shows why
    it is empty until then."""
    for index, block in enumerate(blocks):
        if _before_any_run(session, block):
            continue
        block_data(session, block, index=index, pinned_at=pinned_at)


def _dump(blocks: Sequence[Block]) -> list[dict[str, Any]]:
    return [b.model_dump(mode="json", exclude_none=True) for b in blocks]


def create_report(session: Session, *, data: ReportCreate) -> ReportRead:
    """A new report, as the API answers it."""
    return to_read(_create(session, data=data))


def read_report(session: Session, *, slug: str) -> ReportRead:
    return to_read(get_report(session, slug=slug))


def update_report(session: Session, *, slug: str, data: ReportUpdate) -> ReportRead:
    """The report changed, as the API answers it."""
    return to_read(_update(session, slug=slug, data=data))


def _create(session: Session, *, data: ReportCreate) -> Report:
    if session.scalar(select(Report.id).where(Report.slug == data.slug)) is not None:
        raise Conflict(f"a report {data.slug!r} exists already")
    pinned = _aware(data.pinned_at)
    check_blocks(session, data.blocks, pinned)
    now = utcnow()
    report = Report(
        slug=data.slug, title=data.title, notes=data.notes, blocks=_dump(data.blocks),
        pinned_at=pinned, created_at=now, updated_at=now,
    )  # fmt: skip
    session.add(report)
    _commit(session, data.slug)
    return report


def _update(session: Session, *, slug: str, data: ReportUpdate) -> Report:
    report = get_report(session, slug=slug)
    given = data.model_fields_set
    pinned = _aware(data.pinned_at) if "pinned_at" in given else report.pinned_at
    blocks = data.blocks if data.blocks is not None else blocks_of(report)
    if data.blocks is not None or "pinned_at" in given:
        check_blocks(session, blocks, pinned)
    if "title" in given:
        if data.title is None:
            raise Invalid("title", "a report needs a title")
        report.title = data.title
    if "notes" in given:
        report.notes = data.notes or ""
    report.blocks = _dump(blocks)
    report.pinned_at = pinned
    report.updated_at = utcnow()
    _commit(session, slug)
    return report


def import_report(session: Session, *, data: ReportCreate) -> tuple[Report, bool]:
    """Create the report, or replace the one of the same slug (title, notes, blocks, pin):
    importing one file twice leaves one report. Returns it and whether it was created."""
    existing = session.scalar(select(Report).where(Report.slug == data.slug))
    if existing is None:
        return _create(session, data=data), True
    update = ReportUpdate(
        title=data.title, notes=data.notes, blocks=data.blocks, pinned_at=data.pinned_at
    )
    return _update(session, slug=data.slug, data=update), False


def delete_report(session: Session, *, slug: str) -> None:
    session.delete(get_report(session, slug=slug))
    session.commit()


def _commit(session: Session, slug: str) -> None:
    try:
        session.commit()
    except IntegrityError as exc:
        session.rollback()
        raise Conflict(f"a report {slug!r} exists already") from exc


def report_data(session: Session, *, slug: str, pages: PageSettings = PageSettings()) -> ReportData:
    """Every block's data, read with the server's settings as its page's route reads them."""
    report = get_report(session, slug=slug)
    blocks = blocks_of(report)
    return ReportData(
        report=to_read(report),
        blocks=[
            live_data(session, b, index=i, pinned_at=report.pinned_at, pages=pages)
            for i, b in enumerate(blocks)
        ],
    )


def one_block(
    session: Session, *, slug: str, index: int, pages: PageSettings = PageSettings()
) -> tuple[Block, BlockData]:
    report = get_report(session, slug=slug)
    blocks = blocks_of(report)
    if not 0 <= index < len(blocks):
        raise NotFound(f"report {slug!r} has {len(blocks)} blocks: no block {index}")
    block = blocks[index]
    return block, block_data(session, block, index=index, pinned_at=report.pinned_at, pages=pages)
