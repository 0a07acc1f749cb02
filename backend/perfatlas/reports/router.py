"""Report routes. Reading needs the read permission; writing is for people's tokens (upload or
admin: the triage permission), not agents'."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from perfatlas.api.deps import (
    ReadPrincipal,
    SessionDep,
    SettingsDep,
    TriagePrincipal,
    json_body,
)
from perfatlas.reports import export, service
from perfatlas.reports.blocks import PageSettings
from perfatlas.reports.schemas import (
    SLUG_PATTERN,
    BlockData,
    ReportCreate,
    ReportData,
    ReportList,
    ReportRead,
    ReportUpdate,
)

router = APIRouter(tags=["reports"])
# Reports are written by people: upload and admin tokens hold triage, agents do not.
WritePrincipal = TriagePrincipal
Slug = Annotated[str, Path(pattern=SLUG_PATTERN)]
Index = Annotated[int, Path(ge=0, le=1000)]


@router.get("/reports", operation_id="list_reports", response_model=ReportList)
def list_reports(session: SessionDep, _: ReadPrincipal) -> ReportList:
    """Every report, the most recently changed first."""
    return ReportList(items=service.list_reports(session))


@router.post(
    "/reports", operation_id="create_report", status_code=201, response_model=ReportRead,
)  # fmt: skip
def create_report(
    _: WritePrincipal, body: Annotated[ReportCreate, json_body(ReportCreate)], session: SessionDep
) -> ReportRead:
    """A new report; each block's query is checked as its page's route checks it."""
    return service.create_report(session, data=body)


@router.get("/reports/{slug}", operation_id="get_report", response_model=ReportRead)
def get_report(slug: Slug, session: SessionDep, _: ReadPrincipal) -> ReportRead:
    return service.read_report(session, slug=slug)


@router.patch(
    "/reports/{slug}", operation_id="update_report", response_model=ReportRead,
)  # fmt: skip
def update_report(
    slug: Slug,
    _: WritePrincipal,
    body: Annotated[ReportUpdate, json_body(ReportUpdate)],
    session: SessionDep,
) -> ReportRead:
    """Change the title, notes, blocks (the whole list, in order) or pin of a report."""
    return service.update_report(session, slug=slug, data=body)


@router.delete("/reports/{slug}", operation_id="delete_report", status_code=204)
def delete_report(slug: Slug, session: SessionDep, _: WritePrincipal) -> Response:
    service.delete_report(session, slug=slug)
    return Response(status_code=204)


@router.get("/reports/{slug}/data", operation_id="get_report_data", response_model=ReportData)
def get_report_data(
    slug: Slug, session: SessionDep, settings: SettingsDep, _: ReadPrincipal
) -> ReportData:
    """The report with every block's data, as its page's route answers the same query; a
    pinned report reads only runs started before its date."""
    return service.report_data(session, slug=slug, pages=PageSettings.of(settings))


@router.get(
    "/reports/{slug}/blocks/{index}.json", operation_id="get_report_block",
    response_model=BlockData,
)  # fmt: skip
def get_report_block(
    slug: Slug, index: Index, session: SessionDep, settings: SettingsDep, _: ReadPrincipal
) -> BlockData:
    """One block's data."""
    return service.one_block(session, slug=slug, index=index, pages=PageSettings.of(settings))[1]


@router.get(
    "/reports/{slug}/blocks/{index}.csv", operation_id="get_report_block_csv",
    response_class=Response,
)  # fmt: skip
def get_report_block_csv(
    slug: Slug, index: Index, session: SessionDep, settings: SettingsDep, _: ReadPrincipal
) -> Response:
    """One block's data as its page's CSV download."""
    return export.block_csv(session, slug=slug, index=index, pages=PageSettings.of(settings))
