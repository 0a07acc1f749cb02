"""Folding runs into explore's rollups, on PostgreSQL and SQLite: long histories in many chunks,
retries and re-imports, and a fold that dies half way. Explore must answer exactly what the
plain computation over the uploaded bodies says (tests/backend/explore/oracle.py) whatever has
been folded."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select, text
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.core.config import Settings
from perfatlas.core.db import session_factory
from perfatlas.core.measurement import RunCreate
from perfatlas.core.records import RECORD, unpack
from perfatlas.core.sketch import ALPHA
from perfatlas.explore import service as explore_service
from perfatlas.rollups import fold
from perfatlas.rollups import service as rollups
from perfatlas.rollups.models import ChunkBounds, ExploreDigest, ExploreRollup, RunVariant
from perfatlas.runs import service as runs_service
from perfatlas.runs.models import Result, RollupPending
from perfatlas.series import service as series_service
from tests.backend.rollups.history import METRIC, WORKLOAD, bodies, check, check_all, runs_of

IGNORE = Settings.model_fields["series_ignore_labels"].default
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def ingest(db: sessionmaker[Session], made: list[dict[str, Any]]) -> int:
    with db() as session:
        out = runs_service.ingest(
            session, runs=[RunCreate.model_validate(b) for b in made], ignore_labels=IGNORE
        )
        session.commit()
    return sum(o.created for o in out)


def asker(db: sessionmaker[Session], metric: str = METRIC, *, sketched: bool = False) -> Any:
    """explore() on the database; `sketched`: from the digests whatever the plot's size."""

    def ask(*, x: str, group: str | None = None, filters: tuple[str, ...] = ()) -> Any:
        with db() as session:
            answer = explore_service.explore(
                session, workload=WORKLOAD, metric=metric, x=x, group=group, filters=filters,
                exact_results=0 if sketched else explore_service.EXACT_RESULTS,
                # Pooled as the oracle's cells are: these runs vary in threads at random.
                split=("none",),
            )  # fmt: skip
        return answer.model_dump(mode="json")

    return ask


def counts(db: sessionmaker[Session]) -> tuple[int, int]:
    """(runs pending, records folded)."""
    with db() as session:
        return fold.pending_count(session), fold.folded_count(session)


def check_series_sizes(db: sessionmaker[Session], made: list[dict[str, Any]], what: str) -> None:
    """The series list's count and newest start of each series against the bodies of its
    history's runs (`made`); a series with none of them has no point and no start."""
    with db() as session:
        series_of = {
            (str(run_uuid), metric): series_id
            for run_uuid, metric, series_id in session.execute(
                select(Result.run_uuid, Result.metric, Result.series_id)
            )
        }
        listed = {
            s.id: (n, last) for s, n, last, *_ in series_service.list_series(session, limit=500)[0]
        }
    starts: dict[int, list[dt.datetime]] = defaultdict(list)
    for body in made:
        for res in body["results"]:
            started = dt.datetime.fromisoformat(body["started_at"])
            starts[series_of[(body["uuid"], res["metric"])]].append(started)
    want = {s: (len(t), max(t)) for s, t in starts.items()}
    assert listed == {s: want.get(s, (0, None)) for s in listed}, what


def fold_some(db: sessionmaker[Session], *limits: int) -> None:
    with db() as session:
        for limit in limits:
            assert fold.fold_batch(session, limit=limit)
            session.commit()


def test_long_histories_fold_into_full_chunks(
    db: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """90 runs of 4 series x 2 variants, folded a few at a time into chunks of 4 records: after
    each step explore is exact, and each pair's chunks are 0..k, all full but the head."""
    monkeypatch.setattr(fold, "CHUNK_RECORDS", 4)
    made = bodies(90, seed=1)
    ask, sketched = asker(db), asker(db, sketched=True)
    for end in (30, 60, 90):
        assert ingest(db, made[end - 30 : end]) == 30
        fold_some(db, 5, 13)  # part of it: 12 runs of each 30 stay pending
        assert counts(db) == (end - end // 30 * 18, 2 * end // 30 * 18)
        check_all(ask, runs_of(made[:end]), f"{end} runs, some folded", sketches=sketched)
    with db() as session:
        done = rollups.fold_pending(session, limit=7)
    assert done.runs == 36 and counts(db) == (0, 2 * 90)
    runs = runs_of(made)
    check_all(ask, runs, "all folded", sketches=sketched)

    with db() as session:
        rows = session.execute(
            select(ExploreRollup.series_id, ExploreRollup.variant_id, ExploreRollup.chunk,
                   ExploreRollup.count, ExploreRollup.records, ExploreRollup.metric)
        ).all()  # fmt: skip
        assert session.scalar(select(func.count()).select_from(RunVariant)) == 2 * 2
        bounds = session.execute(select(ChunkBounds)).scalars().all()
    # Every full chunk, and no other, has its bounds: its records' earliest and latest start.
    full = {(s, v, c): records for s, v, c, count, records, _ in rows if count == 4}
    assert {(b.series_id, b.variant_id, b.chunk) for b in bounds} == set(full)
    for b in bounds:
        started = unpack(full[(b.series_id, b.variant_id, b.chunk)])["started"]
        assert (b.count, b.first_started, b.last_started) == (4, started.min(), started.max())
    pairs: dict[tuple[int, int], list[tuple[int, int, bytes]]] = defaultdict(list)
    for series_id, variant_id, chunk, count, records, metric in rows:
        pairs[(series_id, variant_id)].append((chunk, count, records))
        assert len(records) == count * RECORD.itemsize
        assert metric in (METRIC, "delete.ops_per_s")
    assert len(pairs) == 2 * 4 * 2  # metrics x series x variants
    for chunks in pairs.values():
        chunks.sort()
        assert [c for c, _, _ in chunks] == list(range(len(chunks)))
        assert all(count == 4 for _, count, _ in chunks[:-1])
        assert 1 <= chunks[-1][1] <= 4
    assert max(c for c, _, _ in (x for v in pairs.values() for x in v)) >= 3
    # Every run's result in exactly one record.
    uuids = [
        str(u) for _, _, chunk, _, records, metric in rows if metric == METRIC
        for u in _uuids(records)
    ]  # fmt: skip
    assert sorted(uuids) == sorted(r.uuid for r in runs)

    # A time filter splits chunks by their records' start.
    ordered = sorted(runs, key=lambda r: r.started_at)
    start, end = ordered[17].started_at, ordered[71].started_at
    data = ask(
        x="version", group="threads", filters=(f"time:{start.isoformat()}..{end.isoformat()}",)
    )
    check(data, [r for r in runs if start <= r.started_at < end], x="version", group="threads",
          what="time filter over chunks")  # fmt: skip


def _uuids(records: bytes) -> list[Any]:
    import uuid

    rows = unpack(records)
    return [
        uuid.UUID(int=(int(h) << 64) | int(lo))
        for h, lo in zip(rows["hi"], rows["lo"], strict=True)
    ]


def test_a_retry_writes_nothing_new(db: sessionmaker[Session]) -> None:
    """The same uuids again, before and after their fold: no new pending run, no record twice."""
    made = bodies(20, seed=2)
    assert ingest(db, made) == 20
    assert ingest(db, made[:10]) == 0
    assert counts(db) == (20, 0)
    check_all(asker(db), runs_of(made), "retried, nothing folded")
    with db() as session:
        assert rollups.fold_pending(session).runs == 20
    assert ingest(db, [*made[5:], *bodies(3, seed=22, start=40)]) == 3
    assert counts(db) == (3, 40)
    check_all(
        asker(db),
        runs_of([*made, *bodies(3, seed=22, start=40)]),
        "retried after the fold",
        sketches=asker(db, sketched=True),
    )
    with db() as session:
        rollups.fold_pending(session)
    assert counts(db) == (0, 46)


def test_a_batch_takes_its_limit_whatever_the_statistics(engine: Engine) -> None:
    """After the upkeep's VACUUM of a drained queue, PostgreSQL's statistics say rollup_pending
    holds about one row; a burst then fills it. A batch still takes `limit` runs, the oldest
    (a `run_id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` was planned as a nested semi-join
    that ran the subquery once per pending row and took them all)."""
    db = session_factory(engine)
    gone = 2_000_000_000  # ids of no run
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(
            text(f"INSERT INTO rollup_pending SELECT {gone} + g FROM generate_series(0, 600) g")
        )
        conn.execute(text(f"DELETE FROM rollup_pending WHERE run_id < {gone} + 600"))
        conn.execute(text("VACUUM ANALYZE rollup_pending"))
        conn.execute(text("DELETE FROM rollup_pending"))
        assert (
            conn.scalar(text("SELECT reltuples FROM pg_class WHERE relname = 'rollup_pending'"))
            <= 1
        )
    made = bodies(40, seed=31)
    assert ingest(db, made) == 40
    with db() as session:
        pending = sorted(session.scalars(select(RollupPending.run_id)))
        assert fold.fold_batch(session, limit=7) == 7
        session.commit()
        assert sorted(session.scalars(select(RollupPending.run_id))) == pending[7:]
        assert fold.fold_batch(session, limit=30) == 30
        session.commit()
        assert sorted(session.scalars(select(RollupPending.run_id))) == pending[37:]
    with db() as session:
        rollups.fold_pending(session)
    check_all(asker(db), runs_of(made), "folded in batches", sketches=asker(db, sketched=True))


def test_an_interrupted_fold_leaves_nothing_half_done(
    db: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fold that dies after writing its records but before its commit: the rollups and the
    pending runs are as before it, explore is exact, and the next fold folds every run once."""
    made = bodies(40, seed=3)
    ingest(db, made)
    fold_some(db, 10)

    def snapshot() -> tuple[list[Any], list[int]]:
        with db() as session:
            rollup_rows = session.execute(
                select(ExploreRollup.series_id, ExploreRollup.variant_id, ExploreRollup.chunk,
                       ExploreRollup.count, ExploreRollup.records)
                .order_by(ExploreRollup.series_id, ExploreRollup.variant_id, ExploreRollup.chunk)
            ).all()  # fmt: skip
            return [tuple(r) for r in rollup_rows], list(
                session.scalars(select(RollupPending.run_id).order_by(RollupPending.run_id))
            )

    before = snapshot()
    assert len(before[1]) == 30 and before[0]
    append = fold._append

    def dying(*args: Any) -> None:
        append(*args)
        raise RuntimeError("the worker died here")

    monkeypatch.setattr(fold, "_append", dying)
    with db() as session, pytest.raises(RuntimeError, match="died"):
        rollups.fold_pending(session, limit=25)
    assert snapshot() == before
    check_all(asker(db), runs_of(made), "after a fold died", sketches=asker(db, sketched=True))
    monkeypatch.setattr(fold, "_append", append)
    with db() as session:
        assert rollups.fold_pending(session).runs == 30
    assert counts(db) == (0, 80)
    check_all(
        asker(db), runs_of(made), "folded after a fold died", sketches=asker(db, sketched=True)
    )


def test_confirmation_runs_are_never_folded(db: sessionmaker[Session]) -> None:
    """A confirmation job's runs are in no history: not pending, not in explore."""
    from perfatlas.agents.models import Agent
    from perfatlas.jobs.models import Job

    made = bodies(6, seed=4)
    with db() as session:
        agent = Agent(name="host-a", labels={})
        session.add(agent)
        session.flush()
        job = Job(agent_id=agent.id, kind="confirm", spec={"workload": WORKLOAD}, status="running")
        session.add(job)
        session.commit()
        job_id = job.id
    for body in made[:2]:
        body["job_id"] = job_id
    ingest(db, made)
    assert counts(db) == (4, 0)
    check_series_sizes(db, made[2:], "pending, without the confirmation runs")
    with db() as session:
        rollups.fold_pending(session)
    assert counts(db) == (0, 8)
    check_series_sizes(db, made[2:], "folded, without the confirmation runs")
    check_all(
        asker(db),
        runs_of(made[2:]),
        "without the confirmation runs",
        sketches=asker(db, sketched=True),
    )


def test_a_reimport_folds_each_run_once(
    client: TestClient, upload_headers: dict[str, str], read_headers: dict[str, str], engine: Any
) -> None:
    """fio and bonnie++ imports of the same file again, before and after the fold: explore's
    points still count each job or row once, with its own value."""
    from perfatlas.core.db import session_factory

    db = session_factory(engine)
    raw = (FIXTURES / "fio" / "randrw-2jobs.json").read_bytes()
    jobs = json.loads(raw)["jobs"]
    bonnie = FIXTURES / "bonnie" / "ext4-direct-x2.csv"

    def upload() -> None:
        fio = client.post(
            "/api/v1/import/fio", params={"agent": "host-a", "target": "/mnt/t"}, content=raw,
            headers={**upload_headers, "Content-Type": "application/json"},
        )  # fmt: skip
        assert fio.status_code == 200, fio.text
        form = client.post(
            "/api/v1/import/bonnie", files={"file": (bonnie.name, bonnie.read_bytes(), "text/csv")},
            data={"target": "/var/tmp/bon"}, headers=upload_headers,
        )  # fmt: skip
        assert form.status_code == 200, form.text

    def points(workload: str, metric: str, x: str) -> dict[Any, tuple[int, float]]:
        data = client.get(
            "/api/v1/explore", params={"workload": workload, "metric": metric, "x": x},
            headers=read_headers,
        ).json()  # fmt: skip
        return {p["x"]: (p["n"], p["median"]) for t in data["traces"] for p in t["points"]}

    upload()
    pending, _ = counts(db)
    assert pending == len(jobs) + 2
    # The write job has no read figures.
    want = {j["jobname"]: (1, float(j["read"]["bw"])) for j in jobs if j["read"]["io_bytes"]}
    assert len(want) == 1
    assert points("fio", "read.bw", "jobname") == want
    # The file's two rows' rewrite rates, as the runs hold them: their median, the mean of both.
    listed = client.get("/api/v1/runs", params={"workload": "seqio"}, headers=read_headers)
    rates = [
        next(r["value"] for r in client.get(f"/api/v1/runs/{run['uuid']}", headers=read_headers)
             .json()["results"] if r["metric"] == "rewrite.mb_per_s")
        for run in listed.json()["items"]
    ]  # fmt: skip
    assert len(rates) == 2
    bonnie_points = {"ok": (2, sum(rates) / 2)}
    assert points("seqio", "rewrite.mb_per_s", "status") == bonnie_points
    with db() as session:
        rollups.fold_pending(session)
    upload()
    assert counts(db)[0] == 0
    assert points("fio", "read.bw", "jobname") == want
    assert points("seqio", "rewrite.mb_per_s", "status") == bonnie_points
    # The digests count each job once too.
    with db() as session:
        sketched = explore_service.explore(
            session, workload="fio", metric="read.bw", x="jobname", exact_results=0
        )
    assert sketched.approximate
    got = {p.x: (p.n, p.median) for t in sketched.traces for p in t.points}
    assert got.keys() == want.keys()
    for job, (n, median) in want.items():
        assert got[job][0] == n and abs(got[job][1] - median) <= ALPHA * abs(median)


def test_time_is_not_a_variant(db: sessionmaker[Session]) -> None:
    """Runs that differ only in time share their variant: rows grow with series x variants."""
    made = bodies(40, seed=5, agents=("host-a",), threads=(1,))
    ingest(db, made)
    with db() as session:
        rollups.fold_pending(session)
        pairs = session.execute(
            select(ExploreDigest.count, ExploreDigest.head_chunk, ExploreDigest.head_count)
        ).all()
        rows = session.scalar(select(func.count()).select_from(ExploreRollup))
        variants = session.scalar(select(func.count()).select_from(RunVariant))
    # 2 metrics x 2 versions, each pair's records in as few chunks as they fit.
    assert (len(pairs), variants) == (2 * 2, 2)
    assert rows == sum(math.ceil(count / fold.CHUNK_RECORDS) for count, _, _ in pairs)
    for count, head_chunk, head_count in pairs:
        assert head_chunk == (count - 1) // fold.CHUNK_RECORDS
        assert head_count == count - head_chunk * fold.CHUNK_RECORDS
    check_all(asker(db), runs_of(made), "one series", sketches=asker(db, sketched=True))
