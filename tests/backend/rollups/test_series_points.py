"""A series' newest points, read from explore's rollups and the pending runs' results on
PostgreSQL (runs/series_rolled.py) and from the results on SQLite, against the plain computation
over the uploaded bodies: histories folded out of time order into many small chunks, several
variants and environments (one run with none) per series, a tie in time, a retried upload, and
the newest runs pending, half folded or folded."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import numpy as np
import orjson
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.core.records import unpack
from perfatlas.rollups import fold
from perfatlas.rollups.models import ChunkBounds, ExploreRollup
from perfatlas.runs.models import Environment, Result
from perfatlas.series import service as series_service
from perfatlas.series.points import POINT_COLUMNS, POINTS_JSON_OPTIONS
from tests.backend.rollups.history import METRIC, bodies
from tests.backend.rollups.states import FOLD_STATES, fold_to
from tests.backend.rollups.test_fold import IGNORE, fold_some, ingest
from tests.factories import BASE_TIME, result, run_body


def _history() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Three uploads: the middle of the history, then its start (appended to the middle's heads:
    chunks that span both), then its newest runs (in time order: chunks of close starts, from
    which a few points are read without the rest). Kernels alternate (two environments per
    agent), one run has no environment, and two runs of one series start at the same time."""
    middle = bodies(60, seed=11, start=100)
    start = bodies(60, seed=12, start=0)
    newest = bodies(120, seed=13, start=200)
    for i, body in enumerate(middle + start + newest):
        body["environment"]["kernel"] = ("6.1.0", "6.8.0")[i % 3 == 0]
    start[7]["environment"] = {}

    def of_first_series(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        key = (middle[0]["agent"], middle[0]["parameters"]["threads"])
        return [b for b in runs if (b["agent"], b["parameters"]["threads"]) == key]

    # A tie: a run of the start, uploaded after the middle's, starts with one of the middle's;
    # ordered by uuid, it comes first, and by its uuid's low half, last.
    tied, later = of_first_series(middle)[1], of_first_series(start)[2]
    later["started_at"], later["finished_at"] = tied["started_at"], tied["finished_at"]
    tied["uuid"] = "20000000-0000-4000-8000-000000000000"
    later["uuid"] = "10000000-0000-4000-8000-ffffffffffff"
    return middle, start, newest


def _expected(runs: list[dict[str, Any]], limit: int) -> dict[str, list[Any]]:
    """The newest `limit` runs (ties by uuid), oldest first, each from its samples."""
    ordered = sorted(runs, key=lambda b: (dt.datetime.fromisoformat(b["started_at"]), b["uuid"]))
    columns: dict[str, list[Any]] = {c: [] for c in POINT_COLUMNS if c != "environment_id"}
    for body in ordered[-limit:]:
        (res,) = [r for r in body["results"] if r["metric"] == METRIC]
        samples = np.array(res["samples"])
        started = dt.datetime.fromisoformat(body["started_at"]).astimezone(dt.UTC)
        columns["t"].append(started.replace(tzinfo=None).isoformat() + "+00:00")
        columns["run"].append(body["uuid"])
        columns["value"].append(float(np.median(samples)))
        columns["n"].append(len(samples))
        columns["min"].append(float(samples.min()))
        columns["max"].append(float(samples.max()))
        columns["p5"].append(float(np.percentile(samples, 5)))
        columns["p95"].append(float(np.percentile(samples, 95)))
    return columns


def _points(session: Session, series_id: int, limit: int, fields: Any = None) -> Any:
    got = series_service.series_points(session, series_id=series_id, limit=limit, fields=fields)
    return orjson.loads(orjson.dumps(got.columns, option=POINTS_JSON_OPTIONS)), got


def _version_spans(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The oracle of the points' version spans: each run's version label and kernel (its
    environment's; none without one), a span wherever they differ from the point before."""
    spans: list[dict[str, Any]] = []
    for i, body in enumerate(runs):
        labels = {"version": body["labels"]["version"]}
        if body["environment"].get("kernel"):
            labels["kernel"] = body["environment"]["kernel"]
        if not spans or spans[-1]["labels"] != labels:
            spans.append({"at": i, "labels": labels})
    return spans


def _check_versions(session: Session, series_id: int, by_uuid: dict[str, Any], limit: int,
                    got: dict[str, Any], what: str) -> None:  # fmt: skip
    """The points' version spans, asked for alone, from the rollups and from a time range."""
    want = _version_spans([by_uuid[u] for u in got["run"]])
    assert len(want) > 1 or limit < 17, what  # the data changes version along the series
    since = BASE_TIME - dt.timedelta(days=1)
    for ranged in (None, since):
        answer = series_service.series_points(
            session, series_id=series_id, limit=limit, since=ranged, fields=("versions",),
            version_names=IGNORE,
        )  # fmt: skip
        assert set(answer.columns) == {"t", "value", "versions"}, what
        assert answer.columns["versions"] == want, f"{what}, since {ranged}"


def _check_series(session: Session, series_id: int, runs: list[dict[str, Any]],
                  kernel_of: dict[int | None, str | None], what: str) -> None:  # fmt: skip
    by_uuid = {b["uuid"]: b for b in runs}
    newest = max(dt.datetime.fromisoformat(b["started_at"]) for b in runs)
    for limit in (1, 3, 17, 33, len(runs) - 1, len(runs), len(runs) + 1, 10_000):
        got, whole = _points(session, series_id, limit)
        want = _expected(runs, limit)
        where = f"{what}, series {series_id}, limit {limit}"
        assert whole.total == len(runs) and whole.last_at == newest, where
        assert whole.older == (len(runs) > limit), where
        assert got["t"] == want["t"], where
        assert got["run"] == want["run"], where
        for name in ("value", "n", "min", "max", "p5", "p95"):
            assert got[name] == pytest.approx(want[name], rel=1e-12), f"{where}: {name}"
        # Each point's environment is its run's (None for the run without one).
        kernels = [kernel_of[e] for e in got["environment_id"]]
        assert kernels == [by_uuid[u]["environment"].get("kernel") for u in got["run"]], where
        _check_versions(session, series_id, by_uuid, limit, got, where)
    # The series list says the same of the whole series, from its digests and pending runs.
    (listed,) = [
        (n, last)
        for series, n, last, *_ in series_service.list_series(session, limit=500)[0]
        if series.id == series_id
    ]
    assert listed == (len(runs), newest), what
    # A time range is read from the results (on PostgreSQL too), in the same order.
    ranged = series_service.series_points(
        session, series_id=series_id, limit=10_000, since=BASE_TIME - dt.timedelta(days=1)
    )
    everything, _ = _points(session, series_id, 10_000)
    assert orjson.loads(orjson.dumps(ranged.columns, option=POINTS_JSON_OPTIONS)) == everything
    assert not ranged.older
    # Older windows, each ending a microsecond after the first point of the one before, as the
    # series page steps back: together they hold every point, oldest first, and only the
    # oldest says it has none older.
    step, until, walked = 7, None, []
    while True:
        window = series_service.series_points(
            session, series_id=series_id, limit=step, until=until,
            since=BASE_TIME - dt.timedelta(days=1) if until is None else None,
        )  # fmt: skip
        got = orjson.loads(orjson.dumps(window.columns, option=POINTS_JSON_OPTIONS))
        assert window.total == len(runs), what
        fresh = [r for r in got["run"] if r not in walked]
        assert fresh, what  # every window steps back
        walked = fresh + walked
        if not window.older:
            break
        first = dt.datetime.fromisoformat(got["t"][0])
        until = first + dt.timedelta(microseconds=1)
    assert walked == everything["run"], what
    narrow, _ = _points(session, series_id, 25, fields=("run", "p95"))
    assert set(narrow) == {"t", "value", "run", "p95"}
    full, _ = _points(session, series_id, 25)
    assert all(narrow[c] == full[c] for c in narrow), what


@pytest.mark.parametrize("reading_chunk", [4, 8])
@pytest.mark.parametrize("state", FOLD_STATES)
def test_newest_points_come_from_chunks_folded_out_of_order_and_pending_runs(
    db: sessionmaker[Session], state: str, reading_chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`reading_chunk`: the chunk size when the points are read; 8, as if the size had changed
    since the chunks of 4 were filled (the full chunks with the latest starts then hold fewer
    records than asked for)."""
    monkeypatch.setattr(fold, "CHUNK_RECORDS", 4)
    middle, start, newest = _history()
    assert ingest(db, middle) == 60
    fold_some(db, 25, 1000)
    assert ingest(db, start) == 60
    fold_some(db, 1000)
    # A retry of runs already folded stores nothing and changes no point.
    assert ingest(db, middle[:10] + newest) == 120
    with db() as session:
        fold_to(session, state, 120)
        monkeypatch.setattr(fold, "CHUNK_RECORDS", reading_chunk)
        runs = middle + start + newest
        series_of = dict(session.execute(
            select(Result.run_uuid, Result.series_id).where(Result.metric == METRIC)
        ).all())  # fmt: skip
        kernel_of: dict[int | None, str | None] = {
            e.id: e.kernel for e in session.scalars(select(Environment))
        }
        kernel_of[None] = None
        groups: dict[int, list[dict[str, Any]]] = {}
        for body in runs:
            groups.setdefault(series_of[uuid.UUID(body["uuid"])], []).append(body)
        # The series are the agents and thread counts; versions and kernels are variants.
        assert len(groups) == 4
        for members in groups.values():
            assert len({(b["agent"], b["parameters"]["threads"]) for b in members}) == 1
        for series_id, members in groups.items():
            _check_series(session, series_id, members, kernel_of, state)
        # The start of the history was appended to the heads of its middle, so that full
        # chunks overlap in time: each full chunk's bounds are its records'.
        full = {(s, v, c): records for s, v, c, records in session.execute(
            select(ExploreRollup.series_id, ExploreRollup.variant_id, ExploreRollup.chunk,
                   ExploreRollup.records).where(ExploreRollup.count == 4)
        )}  # fmt: skip
        bounds = session.scalars(select(ChunkBounds)).all()
        assert len(bounds) == len(full) > 20  # (the chunks of 4 records)
        for b in bounds:
            started = unpack(full[(b.series_id, b.variant_id, b.chunk)])["started"]
            assert (b.first_started, b.last_started) == (started.min(), started.max())
        overlapping = [
            (a, b) for a in bounds for b in bounds
            if (a.series_id, a.variant_id) == (b.series_id, b.variant_id) and a.chunk < b.chunk
            and a.last_started > b.first_started
        ]  # fmt: skip
        assert overlapping
        empty = series_service.series_points(session, series_id=999_999, limit=10)
        assert empty.total == 0 and empty.last_at is None and len(empty.columns["t"]) == 0


def test_a_full_chunk_whose_latest_start_is_the_floor_is_read(
    db: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two full chunks of one series, one per version: the one with the latest starts (10 to
    13 minutes) alone holds the 4 points asked for, so the floor is its earliest start (10);
    the other's latest start is that same minute (5, 6, 7, 10), and its run at 10 is newer than
    the first's, by uuid. The heads hold older runs."""
    monkeypatch.setattr(fold, "CHUNK_RECORDS", 4)

    def runs(version: str, minutes: list[int], uuids: list[str]) -> list[dict[str, Any]]:
        return [
            run_body(uuid=u, started_at=(BASE_TIME + dt.timedelta(minutes=m)).isoformat(),
                     labels={"version": version, "mode": "connected"},
                     results=[result(METRIC, [100.0 + m])])
            for m, u in zip(minutes, uuids, strict=True)
        ]  # fmt: skip

    def uuids(*digits: str) -> list[str]:
        return [f"{d}0000000-0000-4000-8000-000000000000" for d in digits]

    first = runs("1.0", [10, 11, 12, 13], uuids("1", "2", "3", "4"))
    second = runs("2.0", [5, 6, 7, 10], uuids("5", "6", "7", "8"))
    heads = runs("1.0", [1], uuids("9")) + runs("2.0", [2], uuids("a"))
    assert ingest(db, first + second) == 8
    fold_some(db, 1000)
    assert ingest(db, heads) == 2
    fold_some(db, 1000)
    with db() as session:
        (series_id,) = set(session.scalars(select(Result.series_id)))
        got, whole = _points(session, series_id, 4)
    assert whole.total == 10
    # Minute 10's newer run (by uuid) is the second version's, in the chunk at the floor.
    assert got["run"] == [second[3]["uuid"], *(r["uuid"] for r in first[1:])]
    assert got["value"] == [110.0, 111.0, 112.0, 113.0]
