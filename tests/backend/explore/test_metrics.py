"""Several metrics on one plot (group=metric), on PostgreSQL and SQLite: each trace is the
metric's own explore answer, point for point, and its medians are the plain medians of the
uploaded runs; what cannot share an axis is a 422 naming `metric`."""

from __future__ import annotations

import datetime as dt
import random
import statistics
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from perfatlas.auth.service import create_token
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.main import create_app
from tests.databases import migrate
from tests.factories import BASE_TIME, result, run_body

SEED = 20261126


@dataclass
class Api:
    client: TestClient
    headers: dict[str, str]


@pytest.fixture(params=["postgresql", "sqlite"])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Api]:
    if request.param == "postgresql":
        tokens = request.getfixturevalue("tokens")
        client = request.getfixturevalue("client")
        yield Api(client, {"Authorization": f"Bearer {tokens.upload}"})
        return
    settings = Settings(data_dir=tmp_path / "data")
    url = settings.effective_database_url
    migrate(url)
    with session_factory(get_engine(url))() as session:
        token = create_token(session, name="metrics", scope="upload")[1]
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield Api(client, {"Authorization": f"Bearer {token}"})
    get_engine(url).dispose()


def treeops_runs(seed: int = SEED) -> list[dict[str, Any]]:
    """treeops runs over threads × version × agent: walk and find seconds (s) differ by
    method and threads, inodes/s is another unit."""
    rng = random.Random(seed)
    bodies = []
    i = 0
    for agent in ("host-a", "host-b"):
        for version in ("1.0", "2.0"):
            for threads in (1, 4, 16):
                for rep in range(2):
                    walk = [20.0 / threads**0.5 * rng.uniform(0.9, 1.1) for _ in range(3)]
                    find = [12.0 * rng.uniform(0.9, 1.1) for _ in range(3)]
                    bodies.append(
                        run_body(
                            uuid=str(uuid.UUID(int=rng.getrandbits(128))),
                            workload="treeops",
                            agent=agent,
                            parameters={"threads": threads, "depth": 3},
                            labels={"version": version},
                            started_at=(BASE_TIME + dt.timedelta(hours=i, minutes=rep)).isoformat(),
                            results=[
                                result("walk.seconds", walk, unit="s"),
                                result("find.seconds", find, unit="s"),
                                result("walk.inodes_per_s", [1e5 / w for w in walk]),
                            ],
                        )
                    )
                    i += 1
    return bodies


def _get(api: Api, **params: Any) -> Any:
    # split=none: these runs vary in threads behind each point of x=agent or time, which
    # explore would split traces by (checked below and in test_mixes.py).
    query = {"workload": "treeops", "split": "none", **params}
    return api.client.get("/api/v1/explore", params=query, headers=api.headers)


def test_metrics_overlay_as_one_trace_each(api: Api) -> None:
    bodies = treeops_runs()
    response = api.client.post("/api/v1/runs/batch", json={"runs": bodies}, headers=api.headers)
    assert response.status_code == 200, response.text
    for x, filters in [("threads", []), ("threads", ["version:2.0"]), ("agent", []),
                       ("time", ["agent:host-b"])]:  # fmt: skip
        both = _get(api, metric="walk.seconds,find.seconds", group="metric", x=x, filter=filters)
        assert both.status_code == 200, both.text
        data = both.json()
        assert (data["group"], data["unit"], data["direction"]) == ("metric", "s", "lower")
        assert [t["group"] for t in data["traces"]] == ["walk.seconds", "find.seconds"]
        # The repeated form asks the same.
        again = _get(api, metric=["walk.seconds", "find.seconds"], group="metric", x=x,
                     filter=filters).json()  # fmt: skip
        assert again == data
        for trace in data["traces"]:
            alone = _get(api, metric=trace["group"], x=x, filter=filters).json()
            assert len(alone["traces"]) == 1
            assert trace["points"] == alone["traces"][0]["points"], (x, filters)
            assert data["x_numeric"] == alone["x_numeric"]
        if x == "threads":
            # The plain computation: median of the runs' medians per thread count.
            for trace in data["traces"]:
                for point in trace["points"]:
                    values = [
                        statistics.median(r["samples"])
                        for b in bodies
                        if b["parameters"]["threads"] == point["x"]
                        and all(
                            f != "version:2.0" or b["labels"]["version"] == "2.0" for f in filters
                        )
                        for r in b["results"]
                        if r["metric"] == trace["group"]
                    ]
                    assert point["n"] == len(values)
                    assert point["median"] == pytest.approx(statistics.median(values), rel=1e-12)
    # By default each metric's trace is split by the parameter its points would pool.
    split = _get(api, metric="walk.seconds,find.seconds", group="metric", x="agent", split=[])
    traces = split.json()["traces"]
    assert {(t["group"], t["group_value"], t["split"]["param.threads"]) for t in traces} == {
        (f"{m} · threads={n}", m, str(n))
        for m in ("walk.seconds", "find.seconds")
        for n in (1, 4, 16)
    }
    walk = next(t for t in _get(api, metric="walk.seconds,find.seconds", group="metric",
                                x="threads").json()["traces"] if t["group"] == "walk.seconds")  # fmt: skip
    # walk gets faster with threads, find does not: the plot shows the crossing.
    assert walk["points"][0]["median"] > 2 * walk["points"][-1]["median"]
    csv = api.client.get(
        "/api/v1/explore.csv",
        params={"workload": "treeops", "metric": "walk.seconds,find.seconds", "group": "metric",
                "x": "threads"},
        headers=api.headers,
    )  # fmt: skip
    assert csv.status_code == 200
    lines = csv.text.splitlines()
    assert lines[0].startswith("metric,threads,") and len(lines) == 1 + 2 * 3


def test_what_cannot_share_a_plot_is_a_422_naming_metric(api: Api) -> None:
    bodies = treeops_runs()
    assert api.client.post("/api/v1/runs/batch", json={"runs": bodies}, headers=api.headers)
    cases = [
        {"metric": "walk.seconds,find.seconds"},
        {"metric": "walk.seconds,find.seconds", "group": "version"},
        {"metric": "walk.seconds,walk.inodes_per_s", "group": "metric"},
        {"metric": ",", "group": "metric"},
        {"metric": "walk.seconds,find.seconds", "group": "metric", "x": "no_such"},
    ]
    for params in cases:
        response = _get(api, **params)
        assert response.status_code == 422, (params, response.text)
        field = "x" if "x" in params else "metric"
        assert response.json()["errors"][0]["field"] == field, (params, response.text)
    message = _get(api, metric="walk.seconds,find.seconds").json()["errors"][0]["message"]
    assert "group=metric" in message
    units = _get(api, metric="walk.seconds,walk.inodes_per_s", group="metric").json()
    assert "walk.inodes_per_s in ops/s" in units["errors"][0]["message"]
    # A metric with no results is said, the others still plotted.
    data = _get(api, metric="walk.seconds,no.such", group="metric", x="threads").json()
    assert [t["group"] for t in data["traces"]] == ["walk.seconds"]
    assert "no.such" in data["note"]
