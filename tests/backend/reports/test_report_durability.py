"""A report's group compare block shows what its page shows: with pair_ignore, the same answer as
the compare route (its durability warning included: tmpfs against ext4 is memory against a
device), each pair's change as a plain computation over the samples says; without pair_ignore,
the same "no series in both groups" answer as the page, not another; its CSV keeps the warning,
the intervals, n and the verdicts."""

from __future__ import annotations

import csv
import datetime as dt
import io
import statistics
from typing import Any

from fastapi.testclient import TestClient

from tests.factories import BASE_TIME, result, run_body

API = "/api/v1"
AGENTS = ("host-a", "host-b")
FSYNC = {"file": 5.0, "none": 1.02}  # tmpfs against ext4: far faster only when flushing


def _samples(agent: str, fs: str, fsync: str, rep: int) -> list[float]:
    base = 800.0 if agent == "host-a" else 1300.0
    base *= FSYNC[fsync] if fs == "tmpfs" else 1.0
    return [base * (1 + 0.01 * rep) * f for f in (0.97, 1.0, 1.02)]


def _runs() -> list[dict[str, Any]]:
    """Two agents × ext4 and tmpfs (each on its own target) × fsync file and none, 4 runs each."""
    bodies = []
    for agent in AGENTS:
        for fs in ("ext4", "tmpfs"):
            for fsync in FSYNC:
                for rep in range(4):
                    started = BASE_TIME + dt.timedelta(hours=len(bodies))
                    bodies.append(
                        run_body(
                            agent=agent, target=f"/mnt/{fs}", started_at=started.isoformat(),
                            parameters={"nfiles": 250, "fsync": fsync},
                            labels={"fs": fs, "study": "durability"},
                            fsync_policy="file" if fsync == "file" else "none",
                            environment={**run_body()["environment"], "hostname": agent,
                                         "fs_type": fs},
                            results=[result("create.ops_per_s", _samples(agent, fs, fsync, rep))],
                        )
                    )  # fmt: skip
    return bodies


def _get(client: TestClient, headers: dict[str, str], path: str, **params: Any) -> Any:
    response = client.get(f"{API}{path}", params=params, headers=headers)
    assert response.status_code == 200, (path, params, response.text)
    return response.json()


def test_a_group_compare_block_is_its_page_with_the_durability_warning(
    client: TestClient, upload_headers: dict[str, str], read_headers: dict[str, str]
) -> None:
    bodies = _runs()
    stored = client.post(f"{API}/runs/batch", json={"runs": bodies}, headers=upload_headers)
    assert stored.status_code == 200, stored.text
    query = {"workload": "smallfile", "by": "fs", "values": ["ext4", "tmpfs"],
             "filter": ["study:durability"], "metric": ["create.ops_per_s"]}  # fmt: skip
    blocks = [
        {"kind": "compare", **query, "pair_ignore": ["target"], "min_effect": 3},
        {"kind": "compare", **query},
    ]
    created = client.post(
        f"{API}/reports",
        json={"slug": "durability", "title": "Durability", "blocks": blocks},
        headers=upload_headers,
    )
    assert created.status_code == 201, created.text
    got = _get(client, read_headers, "/reports/durability/data")["blocks"]
    page = {"workload": "smallfile", "by": "fs", "value": ["ext4", "tmpfs"],
            "filter": ["study:durability"], "metric": ["create.ops_per_s"]}  # fmt: skip

    paired = got[0]["groups"]
    assert paired == _get(
        client, read_headers, "/compare/groups", **page, pair_ignore=["target"], min_effect=3
    )
    # The warning the page draws as its banner is in the block's data.
    assert paired["durability_differs"] is True
    assert paired["warning"] and "memory_backed" in paired["warning"]
    assert "flush_to_device" in paired["warning"] and "tmpfs" in paired["warning"]
    assert {d["key"] for d in paired["durability"]} >= {"memory_backed", "flush_to_device"}
    # Each pair, against the samples: agent × fsync, the target left out of the pairing.
    (metric,) = paired["metrics"]
    want = {}
    for agent in AGENTS:
        for fsync in FSYNC:
            side = {
                fs: [
                    s for b in bodies
                    if b["agent"] == agent and b["labels"]["fs"] == fs
                    and b["parameters"]["fsync"] == fsync
                    for s in b["results"][0]["samples"]
                ]
                for fs in ("ext4", "tmpfs")
            }  # fmt: skip
            base = statistics.median(side["ext4"])
            want[(agent, fsync)] = (
                len(side["tmpfs"]),
                (statistics.median(side["tmpfs"]) - base) / abs(base) * 100,
            )
    seen = {}
    for pair in metric["pairs"]:
        assert "target" not in pair["key"]
        change = pair["cells"][1]["change"]
        seen[(pair["key"]["agent"], pair["key"]["parameters"]["fsync"])] = (
            pair["cells"][1]["n"],
            change["change_pct"],
        )
        assert change["ci_low_pct"] <= change["change_pct"] <= change["ci_high_pct"]
    assert seen.keys() == want.keys()
    for key, (n, pct) in want.items():
        assert seen[key][0] == n == 12
        assert abs(seen[key][1] - pct) < 1e-9
    cell = metric["cells"][1]
    # tmpfs against ext4: every pair is not comparable (durability), none judged better or worse.
    assert cell["pairs"] == cell["not_comparable"] == 4 and cell["tested"] == 0
    assert cell["verdict"] == "not_comparable" and cell["better"] == cell["worse"] == 0
    assert {p["cells"][1]["change"]["verdict"] for p in metric["pairs"]} == {"not_comparable"}

    # Without pair_ignore, grouped by an fs label, the default pairs across targets as well:
    # the page's own answer, with its warning.
    default = got[1]["groups"]
    assert default == _get(client, read_headers, "/compare/groups", **page, min_effect=5)
    assert "target" in default["pair_ignore"]
    assert default["metrics"][0]["cells"][1]["pairs"] == 4
    assert [g["runs"] for g in default["groups"]] == [16, 16]
    assert default["warning"] == paired["warning"]

    # The block's CSV: the warning, and each pair's change, interval and verdict as in the JSON.
    text = client.get(f"{API}/reports/durability/blocks/0.csv", headers=read_headers)
    assert text.status_code == 200, text.text
    rows = list(csv.reader(io.StringIO(text.text)))
    assert ["warning", paired["warning"]] in rows
    header = rows[0]
    by_series = {r[3]: r for r in rows[1:] if len(r) == len(header) and r[3] != "all"}
    assert len(by_series) == 4
    for pair in metric["pairs"]:
        row = next(
            r for key, r in by_series.items()
            if f"agent={pair['key']['agent']}" in key
            and f"param.fsync={pair['key']['parameters']['fsync']}" in key
        )  # fmt: skip
        change = pair["cells"][1]["change"]
        assert float(row[header.index("change_pct fs=tmpfs")]) == change["change_pct"]
        assert float(row[header.index("low_pct fs=tmpfs")]) == change["ci_low_pct"]
        assert float(row[header.index("high_pct fs=tmpfs")]) == change["ci_high_pct"]
        assert row[header.index("verdict fs=tmpfs")] == change["verdict"]
        assert int(row[header.index("samples fs=tmpfs")]) == 12


def test_a_blocks_empty_note_is_kept_and_bounded(
    client: TestClient, upload_headers: dict[str, str]
) -> None:
    note = "the -o sync part of the study was not run: it needs root (a loop mount)"
    block = {"kind": "compare", "workload": "smallfile", "by": "fs", "values": ["ext4", "xfs"],
             "filter": ["mount:sync"], "empty_note": note}  # fmt: skip
    body = {"slug": "noted", "title": "Noted", "blocks": [block]}
    created = client.post(f"{API}/reports", json=body, headers=upload_headers)
    assert created.status_code == 201, created.text
    assert created.json()["blocks"][0]["empty_note"] == note
    block["empty_note"] = "x" * 501
    refused = client.post(
        f"{API}/reports", json={**body, "slug": "noted-2"}, headers=upload_headers
    )
    assert refused.status_code == 422
    assert "blocks" in refused.text and "empty_note" in refused.text
