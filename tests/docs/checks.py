"""What the docs' blocks must have done, checked by value: each check is keyed by its page and a
piece of its block's text, and reads back what the block stored (or compares what it printed)
with what the docs say and what the block sent. `before` waits for a state a block relies on
(the worker's alert, a scheduled job settled), as a reader waits for it."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.docs.blocks import Block
from tests.docs.conftest import DocsServer, wait_for

Check = Callable[[str, DocsServer], None]
AFTER: dict[tuple[str, str], Check] = {}
BEFORE: dict[tuple[str, str], Callable[[DocsServer], None]] = {}


def after_block(page: str, piece: str) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        AFTER[(page, piece)] = check
        return check

    return register


def _matching(table: dict[tuple[str, str], Any], block: Block) -> list[Any]:
    return [f for (page, piece), f in table.items() if page == block.page and piece in block.text]


def before(block: Block, server: DocsServer) -> None:
    for wait in _matching(BEFORE, block):
        wait(server)


def after(block: Block, stdout: str, server: DocsServer) -> None:
    for check in _matching(AFTER, block):
        check(stdout, server)


def outputs(stdout: str) -> tuple[list[Any], str]:
    """The JSON answers a block's curl commands printed one after the other (curl adds no
    newline), and what follows them (a CSV)."""
    decoder = json.JSONDecoder()
    values, at = [], 0
    while at < len(stdout) and stdout[at] in "{[":
        value, at = decoder.raw_decode(stdout, at)
        values.append(value)
    return values, stdout[at:]


def results(run: dict[str, Any]) -> dict[str, float]:
    return {r["metric"]: r["value"] for r in run["results"]}


# ---- README.md: the tour ------------------------------------------------------------------


@after_block("README.md", "/api/v1/import/fio?agent=lab-1")
def fio_uploaded(stdout: str, server: DocsServer) -> None:
    fio = json.loads((server.cwd / "randread.json").read_text())
    answer = json.loads(stdout)
    assert (answer["created"], answer["existing"], answer["skipped"]) == (1, 0, [])
    run = server.get(f"/runs/{answer['runs'][0]['uuid']}").json()
    assert (run["workload"], run["agent"], run["target"]) == ("fio", "lab-1", "/tmp")
    assert run["labels"] == {"disk": "nvme"}
    # fio's job options as fio wrote them: its `bs` is the text "4k" (the agent sends bytes)
    assert run["parameters"]["bs"] == "4k" and run["parameters"]["rw"] == "randread"
    assert results(run)["read.iops"] == pytest.approx(fio["jobs"][0]["read"]["iops"])


@after_block("README.md", "explore?workload=fio&metric=read.iops&x=bs&group=agent")
def fio_explored(stdout: str, server: DocsServer) -> None:
    answer = json.loads(stdout)
    (run,) = server.get("/runs", workload="fio").json()["items"]
    iops = results(server.get(f"/runs/{run['uuid']}").json())["read.iops"]
    assert [t["group_value"] for t in answer["traces"]] == ["lab-1"]
    (point,) = answer["traces"][0]["points"]
    assert (point["x"], point["n"], point["median"]) == ("4k", 1, pytest.approx(iops))


@after_block("README.md", "perfatlas-agent study run smallfiles-000 --quick --filesystems tmpfs")
def study_ran(stdout: str, server: DocsServer) -> None:
    assert stdout.strip().split("\n")[-1] == "200"  # after the agent's report of its runs
    stored = server.get("/runs", label="study:smallfiles-000", limit=200).json()["items"]
    runs = [r for r in stored if not r["reference"]]  # beside seed 000's reference columns
    assert {r["labels"]["fs"] for r in runs} == {"tmpfs"}
    assert {r["labels"]["fs"] for r in stored if r["reference"]} == {"coda", "nfs", "xfs-seed"}
    assert {r["agent"] for r in runs} == {r["agent"] for r in runs[:1]}
    data = server.get("/reports/study-smallfiles-000/data").json()
    assert "tmpfs" in json.dumps(data["blocks"])  # a column of this machine's runs


@after_block("README.md", "perfatlas-agent enroll --server")
def enrolled(stdout: str, server: DocsServer) -> None:
    config = json.loads((server.root / "agent-config" / "agent.json").read_text())
    assert config["name"] == "lab-1" and config["server"] == server.url


@after_block("README.md", '"name": "smallfile on /tmp"')
def scheduled(stdout: str, server: DocsServer) -> None:
    schedule = json.loads(stdout)
    assert schedule["name"] == "smallfile on /tmp" and schedule["agents"] == ["lab-1"]

    def settled() -> dict[str, Any] | None:
        jobs = server.get("/jobs", schedule=schedule["id"]).json()["items"]
        done = [j for j in jobs if j["status"] in ("succeeded", "failed", "cancelled", "expired")]
        return done[0] if done else None

    job = wait_for("the scheduled job to settle", settled)
    assert job["status"] == "succeeded", job
    runs = [server.get(f"/runs/{uuid}").json() for uuid in job["runs"]]
    assert sorted(r["parameters"]["fsync"] for r in runs) == ["file", "none"]
    assert {(r["workload"], r["agent"], r["target"]) for r in runs} == {
        ("smallfile", "lab-1", "/tmp/perfatlas-tour")
    }
    assert all(len(r["results"][0]["samples"]) == 3 for r in runs)


def _open_alert(server: DocsServer) -> None:
    wait_for(
        "the worker to open the tour's alert",
        lambda: server.get("/alerts", status="open", workload="smallfile").json()["items"],
    )


BEFORE[("README.md", "/api/v1/alerts?status=open")] = _open_alert


@after_block("README.md", "/api/v1/alerts?status=open")
def alerted(stdout: str, server: DocsServer) -> None:
    (alert,) = json.loads(stdout)["items"]
    assert (alert["kind"], alert["status"]) == ("regression", "open")
    assert alert["series"]["metric"] == "create.ops_per_s"
    assert alert["change_pct"] == pytest.approx(-20, abs=1.5)
    assert alert["cause"] == {"labels.fs_version": {"before": "6.1", "after": "6.2"}}
    assert alert["change_run"]["uuid"] == "7a2d9b4f-1c1e-4d52-8b54-4e2f1f7b3c25"


# ---- docs/api.md ------------------------------------------------------------------------


@after_block("docs/api.md", "http://127.0.0.1:8000/api/v1/runs/batch")
def batch(stdout: str, server: DocsServer) -> None:
    answer = json.loads(stdout)
    assert [(r["uuid"][-2:], r["created"]) for r in answer["runs"]] == [
        ("01", True), ("02", True), ("03", True), ("04", True)
    ]  # fmt: skip
    run = server.get("/runs/0b7e4c1a-5d2f-4e8a-9c3b-1a2b3c4d5e02").json()
    assert run["parameters"] == {"k": 6, "segsize": 131072}
    assert results(run)["read.mb_per_s"] == 30.1


@after_block("docs/api.md", "api/v1/runs?workload=partialread&label=version:trunk")
def runs_read(stdout: str, server: DocsServer) -> None:
    listed = outputs(stdout)[0][0]
    assert sorted(r["uuid"][-2:] for r in listed["items"]) == ["03", "04"]


@after_block("docs/api.md", "-F file=@tests/fixtures/fio/randrw-2jobs.json")
def imported(stdout: str, server: DocsServer) -> None:
    runs = server.get("/runs", agent="lab-2", workload="fio").json()["items"]
    assert sorted(r["parameters"]["rw"] for r in runs) == ["randread", "randwrite"]
    assert all(r["labels"] == {"fs": "xfs", "disk": "ssd"} for r in runs)
    bonnie = server.get("/runs", agent="lab-2", workload="seqio").json()["items"]
    assert bonnie and all(r["labels"]["source"] == "bonnie++" for r in bonnie)


@after_block("docs/api.md", "explore?workload=partialread&metric=read.mb_per_s&x=k&group=version")
def explored(stdout: str, server: DocsServer) -> None:
    (catalog, answer), table_csv = outputs(stdout)
    (workload,) = catalog["workloads"]
    assert (workload["name"], workload["runs"], workload["parameters"]["k"]) == (
        "partialread", 4, [3, 6]
    )  # fmt: skip
    medians = {
        t["group_value"]: [(p["x"], p["median"]) for p in t["points"]] for t in answer["traces"]
    }
    assert medians == {"1.7.1": [(3, 41.0), (6, 30.1)], "trunk": [(3, 52.0), (6, 38.3)]}
    table = list(csv.DictReader(io.StringIO(table_csv)))
    assert sorted((float(r["k"]), float(r["median"])) for r in table) == [
        (3, 41.0), (3, 52.0), (6, 30.1), (6, 38.3)
    ]  # fmt: skip


@after_block("docs/api.md", "pair_ignore=target,k")
def compared(stdout: str, server: DocsServer) -> None:
    # The groups' CSV names what the pairing left out: both names of pair_ignore=target,k.
    assert any(row[4:6] == ["pair_ignore", "target k"] for row in csv.reader(io.StringIO(stdout)))
    groups = server.get(
        "/compare/groups", workload="partialread", by="version", value=["1.7.1", "trunk"],
        pair_ignore="target,k",
    ).json()  # fmt: skip
    assert groups["pair_ignore"] == ["target", "k"]
    (metric,) = groups["metrics"]
    assert len(metric["pairs"]) == 1  # k left out: one pair per version, both k pooled


@after_block("docs/api.md", '"slug": "tahoe-nov2026"')
def reported(stdout: str, server: DocsServer) -> None:
    assert server.get("/reports/tahoe-nov2026").json()["title"] == "Tahoe downloads, Nov 2026"
    (created, data), block_csv = outputs(stdout)
    assert created["slug"] == "tahoe-nov2026" and data["report"]["slug"] == "tahoe-nov2026"
    rows = list(csv.DictReader(io.StringIO(block_csv)))
    assert sorted(r["median"] for r in rows) == ["30.1", "38.3", "41.0", "52.0"]


# ---- docs/alerts.md ---------------------------------------------------------------------


@after_block("docs/alerts.md", '"name": "ignore scratch runs"')
def rules(stdout: str, server: DocsServer) -> None:
    listed = outputs(stdout)[0][-1]
    by_name = {r["name"]: r for r in listed["items"]}
    lab = by_name["smallfile creates on lab-1: 10 % or more"]
    assert (lab["workload"], lab["metric"], lab["agent"]) == (
        "smallfile", "create.ops_per_s", "lab-1"
    )  # fmt: skip
    assert (lab["min_change_pct"], lab["min_confidence"], lab["mute"]) == (10, 0.995, False)
    scratch = by_name["ignore scratch runs"]
    assert (scratch["label_key"], scratch["label_value"], scratch["mute"]) == (
        "purpose", "scratch", True
    )  # fmt: skip
    assert listed["defaults"] == {"min_change_pct": 5.0, "min_confidence": 0.99}


@after_block("docs/alerts.md", '"status": "expected"')
def triaged(stdout: str, server: DocsServer) -> None:
    assert server.get("/alerts/1").json()["status"] == "expected"


@after_block("docs/alerts.md", "/change-points?points=1000")
def change_points(stdout: str, server: DocsServer) -> None:
    (change,) = [c for c in json.loads(stdout)["change_points"] if c["kind"] == "regression"]
    assert change["run_uuid"] == "7a2d9b4f-1c1e-4d52-8b54-4e2f1f7b3c25"
    assert change["alert_id"] == 1


# ---- docs/agent.md ----------------------------------------------------------------------


@after_block("docs/agent.md", "perfatlas-agent run smallfile --target /dev/shm/perfatlas-bench")
def agent_ran(stdout: str, server: DocsServer) -> None:
    listed = server.get("/runs", target="/dev/shm/perfatlas-bench").json()["items"]
    runs = [server.get(f"/runs/{r['uuid']}").json() for r in listed]
    assert sorted(r["parameters"]["fsync"] for r in runs) == ["file", "none"]
    for run in runs:
        assert (run["workload"], run["labels"], run["memory_backed"]) == (
            "smallfile", {"fs_version": "6.1"}, True
        )  # fmt: skip
        assert {len(r["samples"]) for r in run["results"]} == {3}


# ---- JSON examples ------------------------------------------------------------------------


def after_json(path: str, body: dict[str, Any], answer: dict[str, Any], server: DocsServer) -> None:
    if path == "/references":
        names = [c["name"] for c in body["columns"]]
        assert len(answer["runs"]) == len(names) and all(r["created"] for r in answer["runs"])
    else:
        stored = server.get(f"/reports/{body['slug']}").json()
        assert [b["kind"] for b in stored["blocks"]] == [b["kind"] for b in body["blocks"]]
