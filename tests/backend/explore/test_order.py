"""Explore in natural order and human units, on PostgreSQL and SQLite: versions along x and in
the legend as a person reads them (2.1.9 < 2.1.10 < 2.2.0-rc1 < 2.2.0, trunk last, or where
`order` puts it), and `segsize:128k` finds exactly the runs stored with 131072 bytes."""

from __future__ import annotations

import datetime as dt
import random
import statistics
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from perfatlas.auth.service import create_token
from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.natural import natural_key
from perfatlas.main import create_app
from tests.backend.explore.test_metrics import Api
from tests.backend.explore.test_metrics import api as api
from tests.databases import migrate
from tests.factories import BASE_TIME, result, run_body

VERSIONS = ["2.1.9", "2.1.10", "2.1.11", "2.2.0-rc1", "2.2.0", "trunk"]
AGENTS = ["host-b", "host-a"]
SEGSIZES = [4096, 65536, 131072, 4 << 20]


def partialread_runs(seed: int = 40) -> list[dict[str, Any]]:
    """Every version × agent × segsize, uploaded in a shuffled order (so that no order of the
    answer comes from the order of the uploads)."""
    rng = random.Random(seed)
    bodies = []
    for i, (version, agent, segsize) in enumerate(
        (v, a, s) for v in VERSIONS for a in AGENTS for s in SEGSIZES
    ):
        samples = [rng.uniform(50, 150) for _ in range(3)]
        bodies.append(
            run_body(
                uuid=str(uuid.UUID(int=rng.getrandbits(128))), workload="partialread", agent=agent,
                parameters={"filesize": 64 << 20, "readsize": 4096, "segsize": segsize, "reads": 200},
                labels={"version": version}, results=[result("read.mb_per_s", samples, unit="MB/s")],
                started_at=(BASE_TIME + dt.timedelta(minutes=i)).isoformat(),
            )
        )  # fmt: skip
    rng.shuffle(bodies)
    return bodies


@pytest.fixture
def loaded(api: Api) -> Iterator[tuple[Api, list[dict[str, Any]]]]:
    bodies = partialread_runs()
    response = api.client.post("/api/v1/runs/batch", json={"runs": bodies}, headers=api.headers)
    assert response.status_code == 200, response.text
    yield api, bodies


def _get(
    client: TestClient, headers: dict[str, str], path: str = "/api/v1/explore", **params: Any
) -> Any:
    # segsize varies in every point: pooled on purpose, as these tests are about order (explore
    # would split by it otherwise: the last lines of the first test).
    query = {"workload": "partialread", "metric": "read.mb_per_s", "split": "none", **params}
    return client.get(path, params=query, headers=headers)


def test_versions_in_natural_order_along_x_and_in_the_legend(
    loaded: tuple[Api, list[dict[str, Any]]],
) -> None:
    api, bodies = loaded
    for x, group, axis_values, legend in [
        ("version", "agent", VERSIONS, sorted(AGENTS)),
        ("label.version", "agent", VERSIONS, sorted(AGENTS)),
        ("agent", "version", sorted(AGENTS), VERSIONS),
    ]:
        data = _get(api.client, api.headers, x=x, group=group).json()
        assert data["x_numeric"] is False
        assert [t["group"] for t in data["traces"]] == legend, (x, group)
        for trace in data["traces"]:
            assert [p["x"] for p in trace["points"]] == axis_values, (x, group)
            # Each point is still its own runs' median (the order moved points, not numbers).
            for p in trace["points"]:
                version, agent = (
                    (p["x"], trace["group"]) if x != "agent" else (trace["group"], p["x"])
                )
                values = [statistics.median(b["results"][0]["samples"]) for b in bodies
                          if b["labels"]["version"] == version and b["agent"] == agent]  # fmt: skip
                assert p["n"] == len(values) == len(SEGSIZES)
                assert p["median"] == pytest.approx(statistics.median(values), rel=1e-12)
    # The text order, which explore answered before, is another one: the test can fail.
    assert sorted(VERSIONS) != VERSIONS and sorted(VERSIONS, key=natural_key) == VERSIONS
    # Split by segsize (the default), the lines are in their group's order, and within a group
    # in the split's natural order.
    split = api.client.get(
        "/api/v1/explore", headers=api.headers,
        params={"workload": "partialread", "metric": "read.mb_per_s", "x": "version",
                "group": "agent"},
    ).json()  # fmt: skip
    assert [(t["group_value"], t["split"]["param.segsize"]) for t in split["traces"]] == [
        (agent, str(size)) for agent in sorted(AGENTS) for size in SEGSIZES
    ]


def test_an_explicit_order_for_a_label(loaded: tuple[Api, list[dict[str, Any]]]) -> None:
    api, _ = loaded
    cases = [
        (["label.version:trunk,*"], ["trunk", *VERSIONS[:-1]]),
        (["version:2.2.0,2.1.9"], ["2.2.0", "2.1.9", "2.1.10", "2.1.11", "2.2.0-rc1", "trunk"]),
        (["version:*,2.1.9"], [*VERSIONS[1:], "2.1.9"]),
    ]
    for order, expected in cases:
        data = _get(api.client, api.headers, x="version", group="agent", order=order).json()
        assert all([p["x"] for p in t["points"]] == expected for t in data["traces"]), order
        legend = _get(api.client, api.headers, x="agent", group="version", order=order).json()
        assert [t["group"] for t in legend["traces"]] == expected
    csv = _get(api.client, api.headers, "/api/v1/explore.csv", x="version", order=cases[0][0])
    assert [line.split(",")[1] for line in csv.text.splitlines()[1:]] == cases[0][1]
    bad = _get(api.client, api.headers, x="version", order=["version"])
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "order"


def test_sizes_as_people_write_them(loaded: tuple[Api, list[dict[str, Any]]]) -> None:
    api, bodies = loaded
    for typed, stored in [("128k", 131072), ("128K", 131072), ("128 KiB", 131072),
                          ("4M", 4 << 20), ("4 MiB", 4 << 20), ("131072", 131072)]:  # fmt: skip
        data = _get(
            api.client, api.headers, x="version", group="agent", filter=[f"segsize:{typed}"]
        )
        assert data.status_code == 200, data.text
        # The oracle: a plain filter over the uploaded runs.
        wanted = {(b["labels"]["version"], b["agent"]) for b in bodies
                  if b["parameters"]["segsize"] == stored}  # fmt: skip
        got = {(p["x"], t["group"]) for t in data.json()["traces"] for p in t["points"]}
        assert got == wanted and all(
            p["n"] == 1 for t in data.json()["traces"] for p in t["points"]
        ), typed
        runs = {r for t in data.json()["traces"] for p in t["points"] for r in p["runs"]}
        assert runs == {b["uuid"] for b in bodies if b["parameters"]["segsize"] == stored}
    # The runs list's param filter reads sizes the same way.
    listed = api.client.get(
        "/api/v1/runs", params={"workload": "partialread", "param": "segsize:128k", "limit": 200},
        headers=api.headers,
    )  # fmt: skip
    assert listed.status_code == 200, listed.text
    items = listed.json()["items"]
    assert sorted(r["uuid"] for r in items) == sorted(
        b["uuid"] for b in bodies if b["parameters"]["segsize"] == 131072
    )
    for path, params, field in [
        ("/api/v1/explore", {"x": "version", "filter": ["segsize:lots"]}, "filter"),
        ("/api/v1/explore", {"x": "version", "filter": ["segsize:1.3k"]}, "filter"),
        ("/api/v1/runs", {"param": "segsize:big"}, "param"),
    ]:
        response = _get(api.client, api.headers, path, **params)
        assert response.status_code == 422, response.text
        error = response.json()["errors"][0]
        assert error["field"] == field and "segsize" in error["message"]
    # Group compare resolves its filters as explore does: the same runs in each group.
    groups = api.client.get(
        "/api/v1/compare/groups",
        params={"workload": "partialread", "by": "version", "value": ["2.1.9", "2.1.10"],
                "filter": ["segsize:128 KiB"]},
        headers=api.headers,
    )  # fmt: skip
    assert groups.status_code == 200, groups.text
    assert [(g["value"], g["runs"]) for g in groups.json()["groups"]] == [
        (
            v,
            sum(
                1
                for b in bodies
                if b["labels"]["version"] == v and b["parameters"]["segsize"] == 131072
            ),
        )
        for v in ("2.1.9", "2.1.10")
    ]
    # Along x, segsize stays numeric (the UI writes its ticks as 128 KiB); the CSV keeps the
    # stored number and adds the readable one.
    data = _get(api.client, api.headers, x="segsize").json()
    assert data["x_numeric"] and [p["x"] for p in data["traces"][0]["points"]] == SEGSIZES
    csv = _get(api.client, api.headers, "/api/v1/explore.csv", x="segsize").text.splitlines()
    assert csv[0].startswith("group,segsize,segsize (readable),n,")
    assert [line.split(",")[1:3] for line in csv[1:]] == [
        ["4096.0", "4 KiB"],
        ["65536.0", "64 KiB"],
        ["131072.0", "128 KiB"],
        ["4194304.0", "4 MiB"],
    ]


def test_a_server_default_order_under_the_requests_own(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", value_order="version:*,2.1.9;agent:host-b,*")
    url = settings.effective_database_url
    migrate(url)
    with session_factory(get_engine(url))() as session:
        token = create_token(session, name="order", scope="upload")[1]
    headers = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        bodies = partialread_runs()
        assert client.post("/api/v1/runs/batch", json={"runs": bodies}, headers=headers)
        data = _get(client, headers, x="version", group="agent").json()
        assert [t["group"] for t in data["traces"]] == ["host-b", "host-a"]
        assert [p["x"] for p in data["traces"][0]["points"]] == [*VERSIONS[1:], "2.1.9"]
        # The request's order for a dimension wins over the server's; the other one stays.
        data = _get(client, headers, x="version", group="agent", order=["version:trunk,*"]).json()
        assert [t["group"] for t in data["traces"]] == ["host-b", "host-a"]
        assert [p["x"] for p in data["traces"][0]["points"]] == ["trunk", *VERSIONS[:-1]]
    get_engine(url).dispose()
    # A setting that does not parse stops the server at its start, naming the variable.
    with pytest.raises(ValueError, match="PERFATLAS_VALUE_ORDER"):
        Settings(data_dir=tmp_path / "data", value_order="version")
