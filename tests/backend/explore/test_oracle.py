"""Every dimension as x, as group and as filter, on PostgreSQL and SQLite, against a plain
Python computation from the uploaded runs (tests/backend/explore/oracle.py): each point's
count, median, spread (README.md, Explore aggregates), flags and runs; and the CSV."""

from __future__ import annotations

import csv
import io
import random
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.exc import SAWarning

from perfatlas.alerts.models import Alert
from perfatlas.auth.service import create_token
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.sketch import ALPHA
from perfatlas.main import create_app
from perfatlas.rollups import fold
from perfatlas.runs.dimensions import BUILTIN
from perfatlas.runs.models import Run as RunRow
from tests.backend.explore import oracle
from tests.backend.rollups.states import fold_to
from tests.databases import migrate

# Every dimension as x, group and filter against the oracle: a minute a case on 2 busy cores.
pytestmark = pytest.mark.slow

SEED = 20261122
RUN_COUNT = 160
PARAMS = ("k", "size", "fsync", "param.k")
LABELS = ("version", "mode", "label.version")
ENV_KEYS = ("env.scheduler", "env.kernel", "env.hostname")
DIMENSIONS = (*BUILTIN, *PARAMS, *LABELS, *ENV_KEYS)


@dataclass
class Api:
    client: TestClient
    headers: dict[str, str]
    database_url: str
    # The server sketches every plot it can (PERFATLAS_EXPLORE_EXACT_RESULTS=0).
    sketched: bool = False


@pytest.fixture(params=["postgresql", "sqlite"])
def api(request: pytest.FixtureRequest, tmp_path: Path, fold_state: str) -> Iterator[Api]:
    sketched = fold_state == "sketched"
    if request.param == "postgresql":
        client = request.getfixturevalue("client")
        tokens = request.getfixturevalue("tokens")
        settings = request.getfixturevalue("settings")
        headers = {"Authorization": f"Bearer {tokens.upload}"}
        if not sketched:
            yield Api(client, headers, settings.database_url)
            return
        settings = settings.model_copy(update={"explore_exact_results": 0})
        with TestClient(create_app(settings), raise_server_exceptions=False) as own:
            yield Api(own, headers, settings.database_url, sketched=True)
        return
    settings = Settings(data_dir=tmp_path / "data", explore_exact_results=0 if sketched else 50_000)
    url = settings.effective_database_url
    migrate(url)
    with session_factory(get_engine(url))() as session:
        token = create_token(session, name="oracle", scope="upload")[1]
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield Api(client, {"Authorization": f"Bearer {token}"}, url, sketched=sketched)
    get_engine(url).dispose()


@dataclass
class Stored:
    runs: list[oracle.Run]
    tentative: set[int]


# How much of the stored history the worker has folded into explore's rollups when explore is
# asked: nothing (every run read from the results), half of it (in run id order, which is
# uuid order: unrelated to any dimension), or all of it. (Runs that vary along every dimension
# share no variant: tests/backend/rollups/ folds long histories into many chunks.) "sketched":
# half folded, and a server that answers every plot it can from the digests' sketches.
FOLD_STATES = ("pending", "half", "folded", "sketched")


@pytest.fixture(params=FOLD_STATES)
def fold_state(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _fold(api: Api, state: str) -> None:
    with session_factory(get_engine(api.database_url))() as session:
        left = fold_to(session, "half" if state == "sketched" else state, RUN_COUNT)
        # Every result of the metric is in exactly one place.
        assert fold.folded_count(session) == 2 * (RUN_COUNT - left)


def _store(api: Api, state: str) -> Stored:
    bodies = oracle.make_runs(SEED, RUN_COUNT)
    response = api.client.post("/api/v1/runs/batch", json={"runs": bodies}, headers=api.headers)
    assert response.status_code == 200, response.text
    details = {}
    for body in bodies:
        detail = api.client.get(f"/api/v1/runs/{body['uuid']}", headers=api.headers)
        assert detail.status_code == 200
        details[body["uuid"]] = detail.json()
    runs = oracle.stored_runs(bodies, details)
    # An unresolved tentative alert on two series, a resolved one on a third: only the
    # first two flag their points.
    series = sorted({r.series_id for r in runs})
    chosen = random.Random(SEED).sample(series, 3)
    with session_factory(get_engine(api.database_url))() as session:
        for series_id, status in zip(chosen, ("open", "acknowledged", "resolved"), strict=True):
            run = next(r for r in runs if r.series_id == series_id)
            run_id = session.scalar(select(RunRow.id).where(RunRow.uuid == run.uuid_obj()))
            session.add(
                Alert(
                    series_id=series_id, change_run_id=run_id, change_at=run.started_at,
                    kind="regression", before=1.0, after=0.8, change_pct=-20.0, confidence=0.99,
                    tentative=True, status=status,
                )
            )  # fmt: skip
        session.commit()
    _fold(api, state)
    return Stored(runs, set(chosen[:2]))


def _explore(api: Api, **params: Any) -> dict[str, Any]:
    # These runs vary in every parameter and durability fact at random, which explore splits
    # traces by unless asked not to: here each point pools them, as the oracle's cells do
    # (tests/backend/explore/test_mixes.py checks the split).
    query = {"workload": "partialread", "metric": oracle.METRIC, "split": "none", **params}
    response = api.client.get("/api/v1/explore", params=query, headers=api.headers)
    assert response.status_code == 200, (params, response.text)
    return response.json()  # type: ignore[no-any-return]


def _check(
    data: dict[str, Any], want: dict[Any, dict[str, Any]], what: str, *, sketched: bool = False
) -> None:
    """The points against the oracle's; `sketched`: the answer must say its medians and
    percentiles come from sketches, and each must be within ALPHA of a value between the order
    statistics the exact figure interpolates (core/sketch.py); every other figure is exact."""
    assert data["approximate"] is sketched, what
    assert data["quantile_error"] == (ALPHA if sketched else None), what
    if data["x_numeric"]:
        # Every x a number: they come back as numbers, on a numeric axis.
        want = {(g, None if x is None else float(x)): p for (g, x), p in want.items()}
    got: dict[Any, dict[str, Any]] = {}
    for trace in data["traces"]:
        for p in trace["points"]:
            x = p["runs"][0] if data["x"] == "time" else p["x"]
            key = (trace["group"], x)
            assert key not in got, f"{what}: point {key} twice"
            got[key] = p
    assert set(got) == set(want), what
    for key, expect in want.items():
        p = got[key]
        where = f"{what} at {key}"
        assert p["n"] == expect["n"], where
        assert p["repetitions"] == expect["repetitions"], where
        for stat in ("median", "mean", "min", "max", "p5", "p95"):
            _check_stat(p[stat], expect, stat, sketched, where)
        assert sorted(p["flags"]) == expect["flags"], where
        assert p["runs"] == expect["newest"], f"{where}: the newest runs, newest first"


def _check_stat(got: float, expect: dict[str, Any], stat: str, sketched: bool, where: str) -> None:
    if sketched and stat in expect["between"]:
        low, high = sorted(expect["between"][stat])
        slack = ALPHA * max(abs(low), abs(high)) * (1 + 1e-9)
        assert low - slack <= got <= high + slack, f"{where}: sketched {stat}"
    else:
        assert got == pytest.approx(expect[stat], rel=1e-9), f"{where}: {stat}"


def _values(runs: list[oracle.Run], name: str) -> list[str]:
    return sorted({v for r in runs if (v := r.dims.get(name)) is not None})


def test_every_dimension_as_x_group_and_filter(api: Api, fold_state: str) -> None:
    stored = _store(api, fold_state)
    runs, tentative = stored.runs, stored.tentative
    flagged = {f for r in runs for f in r.flags}
    assert flagged == {"few_repetitions", "short_phase", "busy"}
    # Some runs sit on the series with an open or acknowledged tentative alert, some on the one
    # whose alert is resolved: the flag checks below see both.
    series = {r.series_id for r in runs}
    assert tentative < series and len(series - tentative) > 1
    rng = random.Random(SEED)
    with warnings.catch_warnings():
        # A missing join shows first as SQLAlchemy's cartesian-product warning.
        warnings.simplefilter("error", SAWarning)
        for name in DIMENSIONS:
            values = _values(runs, name)
            assert len(values) >= 2 or name == "workload", f"the runs do not vary in {name}"
            data = _explore(api, x=name)
            want = oracle.expected(runs, x=name, group=None, filters={}, tentative=tentative)
            _check(data, want, f"x={name}", sketched=api.sketched and name != "time")
            for x in ("time", "k"):
                data = _explore(api, x=x, group=name)
                want = oracle.expected(runs, x=x, group=name, filters={}, tentative=tentative)
                _check(data, want, f"x={x}&group={name}", sketched=api.sketched and x != "time")
            wanted = rng.sample(values, min(2, len(values)))
            data = _explore(api, x="fs_type", group="agent", filter=[f"{name}:{v}" for v in wanted])
            want = oracle.expected(
                runs, x="fs_type", group="agent", filters={name: wanted}, tentative=tentative
            )
            assert want, f"filter {name} keeps no run"
            # A time filter splits records, which only the exact path can.
            sketchable = api.sketched and name != "time"
            _check(data, want, f"filter {name}:{wanted}", sketched=sketchable)
    # Exact figures on request, whatever the server sketches.
    data = _explore(api, x="k", group="agent", exact="true")
    want = oracle.expected(runs, x="k", group="agent", filters={}, tentative=tentative)
    _check(data, want, "exact=true")


def test_time_as_x_and_filter_and_the_csv(api: Api, fold_state: str) -> None:
    runs, tentative = (s := _store(api, fold_state)).runs, s.tentative
    start, end = "2026-11-02T00:00:00+00:00", "2026-11-04T12:00:00+00:00"
    data = _explore(api, x="time", group="fs_type", filter=[f"time:{start}..{end}", "k:3"])
    inside = [r for r in runs if start <= r.started_at.isoformat() < end]
    assert 0 < len(inside) < len(runs)
    want = oracle.expected(
        inside, x="time", group="fs_type", filters={"k": ["3"]}, tentative=tentative
    )
    _check(data, want, "x=time with a time filter")
    assert any("tentative_alert" in p["flags"] for p in oracle.expected(
        runs, x="time", group=None, filters={}, tentative=tentative).values())  # fmt: skip

    params = {"workload": "partialread", "metric": oracle.METRIC, "x": "fs_type", "group": "agent",
              "split": "none"}  # fmt: skip
    response = api.client.get("/api/v1/explore.csv", params=params, headers=api.headers)
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.text)))
    want = oracle.expected(runs, x="fs_type", group="agent", filters={}, tentative=tentative)
    assert len(rows) == len(want)
    for row in rows:
        expect = want[(row["agent"], row["fs_type"])]
        assert int(row["n"]) == expect["n"]
        assert int(row["repetitions"]) == expect["repetitions"]
        for stat in ("median", "mean", "min", "max", "p5", "p95"):
            _check_stat(float(row[stat]), expect, stat, api.sketched, f"CSV {row}")
        assert sorted(row["flags"].split()) == expect["flags"]


def test_a_time_filter_splits_folded_points(api: Api, fold_state: str) -> None:
    """x and group other than time with time filters: the folded records are split by their
    start (a range's start included, its end not), as the results themselves would be."""
    runs, tentative = (s := _store(api, fold_state)).runs, s.tentative
    # A range that starts at a run's own start: that run is in, the run that starts at its
    # end is out.
    ordered = sorted(runs, key=lambda r: r.started_at)
    first, last = ordered[40].started_at.isoformat(), ordered[100].started_at.isoformat()
    ranges = [(first, last), ("", ordered[10].started_at.isoformat())]
    filters = [f"time:{a}..{b}" for a, b in ranges]
    for x, group in (("k", "fs_type"), ("agent", None), ("version", "mode")):
        params: dict[str, Any] = {"x": x, "filter": filters}
        if group:
            params["group"] = group
        data = _explore(api, **params)
        inside = [
            r for r in runs
            if any((not a or a <= r.started_at.isoformat()) and r.started_at.isoformat() < b
                   for a, b in ranges)
        ]  # fmt: skip
        assert len(inside) == 60 + 10
        want = oracle.expected(inside, x=x, group=group, filters={}, tentative=tentative)
        _check(data, want, f"x={x}&group={group} with time filters")
