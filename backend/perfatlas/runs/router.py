"""HTTP routes of runs and series: upload, list, detail, series points."""

from __future__ import annotations

import datetime as dt
import uuid as uuid_mod
from collections.abc import Collection
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, BackgroundTasks, Depends, Query, Request, Response
from pydantic import BaseModel

from perfatlas.alerts.queries import tentative_series
from perfatlas.alerts.service import detect_after_ingest
from perfatlas.api.deps import (
    ReadPrincipal,
    SessionDep,
    SettingsDep,
    UploadPrincipal,
    body_bytes,
    body_invalid,
    body_schema,
    json_body,
    validated_json,
)
from perfatlas.attachments import export as attachments_export
from perfatlas.attachments import service as attachments
from perfatlas.attachments.schemas import AttachmentRead
from perfatlas.auth.service import check_agent, check_runs_agents
from perfatlas.core import trust
from perfatlas.core.inputs import UTCTime
from perfatlas.runs import large_batch, service
from perfatlas.runs.group_commit import GroupCommit
from perfatlas.runs.models import Run, Series
from perfatlas.runs.schemas import (
    BatchItem,
    BatchRead,
    EnvironmentRead,
    ResultRead,
    RunBatchCreate,
    RunCreate,
    RunPage,
    RunRead,
    RunSummary,
    SeriesRef,
    TrustNote,
)

router = APIRouter(tags=["runs"])
# The series list's orders (runs/series_list.py SORTS).
SeriesSort = Literal["id", "newest", "alerts", "points", "name"]


async def _group_commit(request: Request) -> GroupCommit:
    groups: GroupCommit = request.app.state.group_commit
    return groups


# The process's group commit of uploads (runs/group_commit.py).
GroupCommitDep = Annotated[GroupCommit, Depends(_group_commit)]


def to_summary(run: Run) -> RunSummary:
    return RunSummary(
        uuid=run.uuid, workload=run.workload, agent=run.agent.name, target=run.target,
        parameters=run.parameters, labels=run.labels, started_at=run.started_at,
        finished_at=run.finished_at, status=run.status, fsync_policy=run.fsync_policy,
        o_direct=run.o_direct, sync_mount=run.sync_mount, write_cache=run.write_cache,
        flush_to_device=run.flush_to_device, memory_backed=run.memory_backed,
        cold_method=run.cold_method, environment_id=run.environment_id, job_id=run.job_id,
        reference=run.reference,
    )  # fmt: skip


def to_read(
    run: Run, tentative: Collection[str] = (), files: list[AttachmentRead] | None = None
) -> RunRead:
    return RunRead(
        **to_summary(run).model_dump(),
        environment=EnvironmentRead.model_validate(run.environment) if run.environment else None,
        meta=run.meta,
        results=[ResultRead.model_validate(r) for r in run.results],
        trust=[
            TrustNote(flag=flag, reason=reason, metrics=metrics)
            for flag, reason, metrics in trust.notes(
                [(r.metric, r.flags) for r in run.results], tentative
            )
        ],
        attachments=files or [],
    )


@router.post(
    "/runs",
    operation_id="create_run",
    status_code=201,
    response_model=RunRead,
    responses={200: {"model": RunRead, "description": "stored already: a retry"}},
    openapi_extra=body_schema(RunCreate),
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

    (outcome,), requested = groups.store(session, settings, [body])
    if outcome.created:
        background.add_task(detect_after_ingest, settings, 1, requested)
    run = service.get_run(session, run_uuid=outcome.uuid)
    files = [] if outcome.created else attachments.of_run(session, run_id=run.id, run_uuid=run.uuid)
    read = to_read(run, files=files)
    session.close()  # here, not in the event loop: the read's transaction ends in a round trip
    return _json(read, status_code=201 if outcome.created else 200)


def _json(model: BaseModel, status_code: int = 200) -> Response:
    """The answer of an upload as JSON, serialized in the route's worker thread: a model
    returned instead would be validated again in one more trip to a thread."""
    return Response(model.model_dump_json(), status_code, media_type="application/json")


@router.post(
    "/runs/batch",
    operation_id="create_runs_batch",
    response_model=BatchRead,
    openapi_extra=body_schema(RunBatchCreate),
)
def create_runs_batch(
    raw: Annotated[bytearray, Depends(body_bytes)],
    session: SessionDep,
    settings: SettingsDep,
    principal: UploadPrincipal,
    groups: GroupCommitDep,
    background: BackgroundTasks,
) -> Response:
    """Upload up to 1,000 runs at once, all or nothing; runs already stored are not duplicated."""
    # A large body is stored from its bytes a chunk of runs at a time (runs/large_batch.py), a
    # small one validated whole and stored with the uploads beside it (runs/group_commit.py).
    try:
        large = large_batch.prepare(raw, large=settings.large_batch_bytes)
    except large_batch.BatchInvalid as exc:
        raise body_invalid(exc.errors) from None
    if large is not None:
        check_runs_agents(principal, large.agents)
        outcomes, requested = large_batch.store(session, settings, large)
    else:
        runs = validated_json(RunBatchCreate, raw).runs
        check_runs_agents(principal, [run.agent for run in runs])
        outcomes, requested = groups.store(session, settings, runs)
        del runs
    del large
    created = sum(1 for o in outcomes if o.created)
    background.add_task(detect_after_ingest, settings, created, requested)
    return _json(
        BatchRead(
            created=created,
            existing=len(outcomes) - created,
            runs=[BatchItem(uuid=o.uuid, created=o.created) for o in outcomes],
        )
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
    runs, next_cursor = service.list_runs(
        session, workload=workload, agent=agent, status=status, target=target, labels=label,
        params=param, since=since, until=until, limit=limit, cursor=cursor,
    )  # fmt: skip
    counted = not (status or target or label or param or since or until)
    total = service.runs_total(session, workload=workload, agent=agent) if counted else None
    return RunPage(items=[to_summary(r) for r in runs], next_cursor=next_cursor, total=total)


@router.get("/runs/{run_uuid}", operation_id="get_run", response_model=RunRead)
def get_run(run_uuid: uuid_mod.UUID, session: SessionDep, _: ReadPrincipal) -> RunRead:
    """One run with its environment, every result with its samples, and its trust notes."""
    run = service.get_run(session, run_uuid=run_uuid)
    tentative = tentative_series(session, [r.series_id for r in run.results])
    files = attachments.of_run(session, run_id=run.id, run_uuid=run.uuid)
    return to_read(run, [r.metric for r in run.results if r.series_id in tentative], files)


_ZIP: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "run-<uuid>/run.json, run-<uuid>/attachments/<name>, run-<uuid>/SHA256SUMS",
        "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}},
    }
}


@router.get(
    "/runs/{run_uuid}/export", operation_id="export_run", response_class=Response, responses=_ZIP
)
def export_run(run_uuid: uuid_mod.UUID, session: SessionDep, principal: ReadPrincipal) -> Response:
    """The run and its attachments as one zip, with the attachments' sha256 sums."""
    read = get_run(run_uuid, session, principal)
    content = attachments_export.archive(
        session, run_uuid=run_uuid, run_json=read.model_dump_json(indent=1).encode()
    )
    return Response(
        content=content,
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="run-{run_uuid}.zip"'},
    )


class SeriesRead(SeriesRef):
    points: int
    last_at: dt.datetime | None


class SeriesListed(SeriesRead):
    open_alerts: int  # its alerts with status open
    # Every point is a reference run's (published figures, runs.reference).
    reference: bool


class SeriesPage(BaseModel):
    items: list[SeriesListed]
    # An id for sort=id (the default); an opaque string for the other orders.
    next_cursor: int | str | None
    total: int  # series matching the filters, on every page


class VersionSpan(BaseModel):
    """The points from index `at` on (until the next span's) have these version labels: the
    labels the series key leaves out (version, fs_version, kernel...) and the environment's
    kernel."""

    at: int
    labels: dict[str, str]


class SeriesPoints(BaseModel):
    series: SeriesRead
    # Whether the series has points older than the first returned, in the range asked for: the
    # next older window is `until` = the first `t` (plus a microsecond, so that points sharing
    # that time are not skipped).
    older: bool = False
    t: list[dt.datetime]
    value: list[float]
    # Every column unless `fields` names the ones wanted.
    run: list[uuid_mod.UUID] | None = None
    n: list[int] | None = None
    min: list[float] | None = None
    max: list[float] | None = None
    p5: list[float] | None = None
    p95: list[float] | None = None
    environment_id: list[int | None] | None = None
    samples: list[list[float]] | None = None
    # Asked for by name (`fields=versions`): the spans of the points' version labels.
    versions: list[VersionSpan] | None = None


def _series_read(series: Series, points: int, last_at: dt.datetime | None) -> SeriesRead:
    return SeriesRead(
        id=series.id, workload=series.workload, metric=series.metric, unit=series.unit,
        direction=series.direction, agent=series.agent.name, target=series.target,
        parameters=series.parameters, labels=series.labels, points=points, last_at=last_at,
    )  # fmt: skip


@router.get("/series", operation_id="list_series", response_model=SeriesPage)
def list_series(
    session: SessionDep,
    _: ReadPrincipal,
    workload: str | None = None,
    metric: str | None = None,
    agent: str | None = None,
    sort: Annotated[
        SeriesSort,
        Query(
            description="id (the order they first appeared), newest (newest point first), "
            "alerts (most open alerts first), points (most first), name (workload, metric, "
            "agent, target); reference-only series last but by name"
        ),
    ] = "id",
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(description="next_cursor of the page before")] = None,
) -> SeriesPage:
    """List series (one metric's history for one set of dimensions) with their point counts."""
    rows, next_cursor, total = service.list_series(
        session, workload=workload, metric=metric, agent=agent, limit=limit, cursor=cursor,
        sort=sort,
    )  # fmt: skip
    items = [
        SeriesListed(
            **_series_read(s, points, last_at).model_dump(),
            open_alerts=alerts,
            reference=reference,
        )
        for s, points, last_at, alerts, reference in rows
    ]
    return SeriesPage(items=items, next_cursor=next_cursor, total=total)


@router.get(
    "/series/{series_id}/points", operation_id="get_series_points", response_model=SeriesPoints
)
def get_series_points(
    series_id: int,
    session: SessionDep,
    settings: SettingsDep,
    _: ReadPrincipal,
    since: UTCTime | None = None,
    until: UTCTime | None = None,
    limit: Annotated[int, Query(ge=1, le=100_000)] = 10_000,
    samples: bool = False,
    fields: Annotated[
        list[str] | None,
        Query(
            description="the columns wanted besides t and value, comma-separated or repeated "
            f"({', '.join(service.OPTIONAL_POINT_COLUMNS)}); every one but versions when left out"
        ),
    ] = None,
) -> Response:
    """A series' newest points (oldest first), as columns ready to plot."""
    series = service.series_header(session, series_id=series_id)
    wanted = None if fields is None else [f.strip() for v in fields for f in v.split(",") if f]
    points = service.series_points(
        session, series_id=series_id, since=since, until=until, limit=limit,
        with_samples=samples, fields=wanted, version_names=settings.series_ignore_labels,
    )  # fmt: skip
    # The read is over: ended here, in this thread, the session's closing needs no trip to
    # another; with a COMMIT, as api.deps.get_session ends a read, so that its statements stay
    # prepared.
    session.commit()
    header = SeriesRead(**series._asdict(), points=points.total, last_at=points.last_at).model_dump(
        mode="json"
    )
    # orjson rather than the response model: validating 10,000 points through Pydantic would
    # cost more than reading them.
    return Response(
        content=orjson.dumps(
            {"series": header, "older": points.older, **points.columns},
            option=service.POINTS_JSON_OPTIONS,
        ),
        media_type="application/json",
    )
