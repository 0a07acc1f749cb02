"""Group commit (runs/group_commit.py): uploads that queue behind one being stored are stored
together, and each keeps the answer it would have had alone. The first upload is held inside
its transaction by a lock another connection holds (a PostgreSQL table lock; SQLite's write
lock), so that the others queue behind it for certain."""

from __future__ import annotations

import datetime as dt
import gc
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.core.config import Settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.errors import Conflict, Invalid
from perfatlas.core.measurement import RunCreate
from perfatlas.flows.group_commit import GroupCommit, _Upload
from perfatlas.runs.ingest import Ingested
from tests.conftest import patient
from tests.databases import migrate
from tests.factories import BASE_TIME, result, run_body


@pytest.fixture(params=["postgresql", "sqlite"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Engine]]:
    """("postgresql", the test database's engine) or (a new SQLite file's URL, its engine)."""
    if request.param == "postgresql":
        yield "postgresql", request.getfixturevalue("engine")
        return
    url = f"sqlite:///{tmp_path / 'groups.db'}"
    migrate(url)
    engine = get_engine(url)
    yield url, engine
    engine.dispose()


@contextmanager
def writes_held(kind: str, engine: Engine) -> Iterator[None]:
    """While inside, an upload's transaction waits at its first write of results (PostgreSQL)
    or its first write of anything (SQLite)."""
    if kind == "postgresql":
        with engine.connect() as conn:
            conn.execute(text("LOCK TABLE results IN EXCLUSIVE MODE"))
            yield
            conn.rollback()
        return
    path = kind.removeprefix("sqlite:///")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def runs(*bodies: dict[str, Any]) -> list[RunCreate]:
    return [RunCreate.model_validate(body) for body in bodies]


def body(n: int, agent: str = "grp-a", **overrides: Any) -> dict[str, Any]:
    """A run of its own time, agent and file count, with results that tell it apart."""
    fields: dict[str, Any] = {
        "agent": agent, "started_at": (BASE_TIME + dt.timedelta(hours=n)).isoformat(),
        "parameters": {"nfiles": 10 * (n % 3 + 1), "threads": 1},
        "results": [result("create.ops_per_s", [100.0 + n, 101.0 + n]),
                    result("create.seconds", [0.5 + n / 100], unit="s")],
    }  # fmt: skip
    return run_body(**{**fields, **overrides})


class Uploads:
    """Uploads through one GroupCommit from threads, each keeping its answer or its error."""

    def __init__(
        self, factory: sessionmaker[Session], settings: Settings, concurrent: int = 1
    ) -> None:
        self.factory, self.settings = factory, settings
        self.groups = GroupCommit(concurrent=concurrent)
        self.answers: dict[str, tuple[list[Ingested], int] | BaseException] = {}
        self.threads: list[threading.Thread] = []

    def start(self, name: str, batch: list[RunCreate]) -> None:
        def upload() -> None:
            with self.factory() as session:
                try:
                    self.answers[name] = self.groups.store(session, self.settings, batch)
                except Exception as exc:
                    self.answers[name] = exc

        thread = threading.Thread(target=upload)
        thread.start()
        self.threads.append(thread)

    def wait(self, until: Callable[[], bool]) -> None:
        deadline = time.monotonic() + patient(30)
        while not until():
            assert time.monotonic() < deadline, "the uploads never queued"
            time.sleep(0.01)

    def join(self) -> None:
        for thread in self.threads:
            thread.join(60)
            assert not thread.is_alive()

    def created(self, name: str) -> list[tuple[uuid.UUID, bool]]:
        answer = self.answers[name]
        assert not isinstance(answer, BaseException), answer
        return [(outcome.uuid, outcome.created) for outcome in answer[0]]


def stored(engine: Engine) -> dict[uuid.UUID, list[tuple[str, float]]]:
    """Every stored run's results (metric, mean), by run uuid."""
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT ru.uuid, r.metric, r.mean FROM results r JOIN runs ru ON ru.id = r.run_id"
        )).all()  # fmt: skip
    found: dict[uuid.UUID, list[tuple[str, float]]] = {}
    for run_uuid, metric, mean in rows:
        found.setdefault(uuid.UUID(str(run_uuid)), []).append((metric, round(mean, 9)))
    return {k: sorted(v) for k, v in found.items()}


def expected(bodies: list[dict[str, Any]]) -> dict[uuid.UUID, list[tuple[str, float]]]:
    return {
        uuid.UUID(b["uuid"]): sorted(
            (r["metric"], round(sum(r["samples"]) / len(r["samples"]), 9)) for r in b["results"]
        )
        for b in bodies
    }


def test_queued_uploads_are_stored_together_each_with_its_own_answer(db, settings) -> None:
    kind, engine = db
    uploads = Uploads(session_factory(engine), settings)
    a = [body(i) for i in range(3)]
    b = [body(10 + i, agent="grp-b") for i in range(4)]
    c_new = body(20, agent="grp-c")
    d_clash = dict(b[1], target="/elsewhere")  # b's run uuid with another body
    with writes_held(kind, engine):
        uploads.start("a", runs(*a))
        uploads.wait(lambda: uploads.groups.stats.groups == 1)
        # b holds a run twice with the same body: one run, as a batch alone would answer.
        uploads.start("b", runs(*b, b[2]))
        uploads.wait(lambda: uploads.groups.waiting() == 1)
        uploads.start("c", runs(a[0], c_new))  # a retry of a's first run, and a new one
        uploads.wait(lambda: uploads.groups.waiting() == 2)
        uploads.start("d", runs(d_clash))
        uploads.wait(lambda: uploads.groups.waiting() == 3)
    uploads.join()

    ids = lambda bodies: [uuid.UUID(x["uuid"]) for x in bodies]  # noqa: E731
    assert uploads.created("a") == [(u, True) for u in ids(a)]
    assert uploads.created("b") == [(u, True) for u in ids(b)]
    assert uploads.created("c") == [(ids(a)[0], False), (ids([c_new])[0], True)]
    conflict = uploads.answers["d"]
    assert isinstance(conflict, Conflict) and conflict.extra["uuids"] == [b[1]["uuid"]]
    # a alone; b and c together (no failure, nothing stored again one by one); d after them,
    # since it holds one of b's runs.
    assert (uploads.groups.stats.groups, uploads.groups.stats.largest) == (3, 2)
    assert uploads.groups.stats.one_by_one == 0
    assert stored(engine) == expected([*a, *b, c_new])
    # Every upload that created runs asked for its series' checks: a's 2 series, then b's and
    # c's together (their configurations' series, those a did not ask for already).
    a_answer, b_answer = uploads.answers["a"], uploads.answers["b"]
    assert not isinstance(a_answer, BaseException) and not isinstance(b_answer, BaseException)
    with engine.connect() as conn:
        waiting = conn.execute(text("SELECT count(*) FROM detection_requests")).scalar_one()
        series = conn.execute(text("SELECT count(*) FROM series")).scalar_one()
    assert waiting == series == a_answer[1] + b_answer[1]


def test_a_failing_group_is_stored_again_upload_by_upload(db, settings) -> None:
    kind, engine = db
    uploads = Uploads(session_factory(engine), settings)
    kept = body(1)
    with session_factory(engine)() as session:
        uploads.groups.store(session, settings, runs(kept))
    lead = [body(2)]
    fine = [body(3, agent="grp-f"), body(4, agent="grp-f")]
    clash = [body(5), dict(kept, target="/elsewhere")]  # a stored run's uuid, another body
    twice = body(6)
    invalid = [body(7), twice, dict(twice, target="/other")]  # one uuid, two bodies
    also_fine = [body(8, agent="grp-g")]
    with writes_held(kind, engine):
        uploads.start("lead", runs(*lead))
        uploads.wait(lambda: uploads.groups.stats.groups == 2)
        for n, (name, batch) in enumerate(
            [("fine", fine), ("clash", clash), ("invalid", invalid), ("also_fine", also_fine)]
        ):
            uploads.start(name, runs(*batch))
            uploads.wait(lambda n=n: uploads.groups.waiting() == n + 1)
    uploads.join()

    assert uploads.created("lead") == [(uuid.UUID(lead[0]["uuid"]), True)]
    assert uploads.created("fine") == [(uuid.UUID(x["uuid"]), True) for x in fine]
    assert uploads.created("also_fine") == [(uuid.UUID(also_fine[0]["uuid"]), True)]
    clashed, refused = uploads.answers["clash"], uploads.answers["invalid"]
    assert isinstance(clashed, Conflict) and clashed.extra["uuids"] == [kept["uuid"]]
    # The field is the upload's own: its third run, not the group's.
    assert isinstance(refused, Invalid)
    assert refused.extra["errors"][0]["field"] == "runs[2].uuid"
    assert (uploads.groups.stats.groups, uploads.groups.stats.largest) == (3, 4)
    assert uploads.groups.stats.one_by_one == 1
    # Nothing of the refused uploads, all of the others.
    assert stored(engine) == expected([kept, *lead, *fine, *also_fine])


def test_a_group_stays_within_its_size(db, settings) -> None:
    kind, engine = db
    uploads = Uploads(session_factory(engine), settings)
    uploads.groups.max_runs = 5
    batches = [[body(10 * i + j, agent=f"grp-{i}") for j in range(2)] for i in range(5)]
    with writes_held(kind, engine):
        uploads.start("0", runs(*batches[0]))
        uploads.wait(lambda: uploads.groups.stats.groups == 1)
        for i in range(1, 5):
            uploads.start(str(i), runs(*batches[i]))
            uploads.wait(lambda i=i: uploads.groups.waiting() == i)
    uploads.join()
    # 2 runs, then 2 + 2 (a third batch would make 6), then 2 + 2.
    assert (uploads.groups.stats.groups, uploads.groups.stats.largest) == (3, 2)
    for i in range(5):
        assert uploads.created(str(i)) == [(uuid.UUID(x["uuid"]), True) for x in batches[i]]
    assert stored(engine) == expected([x for batch in batches for x in batch])


def test_two_groups_are_stored_at_once_and_the_queue_forms_behind_them(db, settings) -> None:
    """With two groups at once (the default), two uploads arriving together are both stored at
    once, each alone; the queue forms only behind them."""
    kind, engine = db
    uploads = Uploads(session_factory(engine), settings, concurrent=2)
    batches = [[body(10 * i + j, agent=f"grp-{i}") for j in range(3)] for i in range(5)]
    with writes_held(kind, engine):
        uploads.start("0", runs(*batches[0]))
        uploads.start("1", runs(*batches[1]))
        uploads.wait(lambda: uploads.groups.stats.groups == 2)
        assert uploads.groups.waiting() == 0
        for i in range(2, 5):
            uploads.start(str(i), runs(*batches[i]))
            uploads.wait(lambda i=i: uploads.groups.waiting() == i - 1)
    uploads.join()
    # The first two alone, the three queued behind them together.
    assert (uploads.groups.stats.groups, uploads.groups.stats.largest) == (3, 3)
    for i in range(5):
        assert uploads.created(str(i)) == [(uuid.UUID(x["uuid"]), True) for x in batches[i]]
    assert stored(engine) == expected([x for batch in batches for x in batch])


@contextmanager
def results_refused(kind: str, engine: Engine, metric: str) -> Iterator[None]:
    """While inside, the database refuses a result of this metric (a trigger), after the rows
    its upload wrote before it."""
    if kind == "postgresql":
        create = [
            "CREATE FUNCTION grp_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            f" IF NEW.metric = '{metric}' THEN RAISE EXCEPTION 'refused {metric}'; END IF;"
            " RETURN NEW; END $$",
            "CREATE TRIGGER grp_refuse BEFORE INSERT ON results FOR EACH ROW"
            " EXECUTE FUNCTION grp_refuse()",
        ]
        drop = ["DROP TRIGGER grp_refuse ON results", "DROP FUNCTION grp_refuse()"]
    else:
        create = [
            f"CREATE TRIGGER grp_refuse BEFORE INSERT ON results WHEN NEW.metric = '{metric}'"
            f" BEGIN SELECT RAISE(ABORT, 'refused {metric}'); END"
        ]
        drop = ["DROP TRIGGER grp_refuse"]
    with engine.begin() as conn:
        for statement in create:
            conn.execute(text(statement))
    try:
        yield
    finally:
        with engine.begin() as conn:
            for statement in drop:
                conn.execute(text(statement))


def test_a_group_failing_after_its_writes_is_rolled_back_before_storing_one_by_one(
    db, settings
) -> None:
    """The group's runs were written when a result of one upload is refused: rolled back, so
    that the other uploads, stored again one by one, are created as new, and nothing of the
    refused upload stays."""
    kind, engine = db
    uploads = Uploads(session_factory(engine), settings)
    lead = [body(1)]
    before = [body(2, agent="grp-f"), body(3, agent="grp-f")]
    refused = [body(4), body(5, results=[result("explode", [1.0])])]
    after = [body(6, agent="grp-g")]
    with results_refused(kind, engine, "explode"):
        with writes_held(kind, engine):
            uploads.start("lead", runs(*lead))
            uploads.wait(lambda: uploads.groups.stats.groups == 1)
            for n, (name, batch) in enumerate([("before", before), ("refused", refused),
                                               ("after", after)]):  # fmt: skip
                uploads.start(name, runs(*batch))
                uploads.wait(lambda n=n: uploads.groups.waiting() == n + 1)
        uploads.join()
    for name, batch in (("lead", lead), ("before", before), ("after", after)):
        assert uploads.created(name) == [(uuid.UUID(x["uuid"]), True) for x in batch]
    error = uploads.answers["refused"]
    assert isinstance(error, Exception) and "refused explode" in str(error)
    assert uploads.groups.stats.one_by_one == 1
    assert stored(engine) == expected([*lead, *before, *after])


def test_an_upload_never_overtakes_an_earlier_one_holding_the_same_run(db, settings) -> None:
    """`late` retries the first run of `big`, which waits for a later group (too large to join
    the next one): `late` fits that group but waits behind `big`, and so meets its run stored
    (created by `big`, not by the retry)."""
    kind, engine = db
    uploads = Uploads(session_factory(engine), settings)
    uploads.groups.max_runs = 5
    small = [body(1, agent="grp-s"), body(2, agent="grp-s")]
    big = [body(10 + i, agent="grp-b") for i in range(4)]
    lead = body(0)
    with writes_held(kind, engine):
        uploads.start("lead", runs(lead))
        uploads.wait(lambda: uploads.groups.stats.groups == 1)
        for n, (name, batch) in enumerate([("small", small), ("big", big), ("late", big[:1])]):
            uploads.start(name, runs(*batch))
            uploads.wait(lambda n=n: uploads.groups.waiting() == n + 1)
    uploads.join()
    assert uploads.created("big") == [(uuid.UUID(x["uuid"]), True) for x in big]
    assert uploads.created("late") == [(uuid.UUID(big[0]["uuid"]), False)]
    assert uploads.created("small") == [(uuid.UUID(x["uuid"]), True) for x in small]
    # lead; small (big too large beside it, late behind big); big (late behind it); late.
    assert (uploads.groups.stats.groups, uploads.groups.stats.largest) == (4, 1)
    assert stored(engine) == expected([lead, *small, *big])


def test_a_session_holding_a_transaction_is_refused(db, settings) -> None:
    _, engine = db
    with session_factory(engine)() as session:
        session.execute(text("SELECT 1"))
        with pytest.raises(RuntimeError, match="no transaction open"):
            GroupCommit().store(session, settings, runs(body(1)))


def test_an_upload_is_freed_once_answered(db, settings) -> None:
    """Nothing of an upload is left to the cycle collector once it has its answer, stored
    alone, in a group, or again one by one after its group failed: an upload in a cycle (its
    group, its error's traceback) kept its runs until the collector's next full pass, and the
    API's memory grew with what it had stored (bench_server: 194 MB at 200,000 results before
    groups, 280 MB with them, 383 MB at 1 M)."""
    kind, engine = db
    uploads = Uploads(session_factory(engine), settings)
    kept = body(1)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds unreachable stays in gc.garbage
    try:
        with session_factory(engine)() as session:
            uploads.groups.store(session, settings, runs(kept))  # alone
        # Two groups that fail and are stored again one by one: one led by an upload that is
        # stored, one led by an upload that fails.
        for n, (first, second) in enumerate([("fine", "clash"), ("clash", "fine")]):
            batches = {
                "fine": runs(body(3 + n, agent="grp-f")),
                "clash": runs(dict(kept, target=f"/elsewhere/{n}")),  # the group fails
            }
            with writes_held(kind, engine):
                uploads.start(f"lead{n}", runs(body(10 + n)))
                uploads.wait(lambda n=n: uploads.groups.stats.groups == 2 + 2 * n)
                uploads.start(f"{first}{n}", batches[first])
                uploads.wait(lambda: uploads.groups.waiting() == 1)
                uploads.start(f"{second}{n}", batches[second])
                uploads.wait(lambda: uploads.groups.waiting() == 2)
            uploads.join()
            assert isinstance(uploads.answers[f"clash{n}"], Conflict)
            assert not isinstance(uploads.answers[f"fine{n}"], BaseException)
        assert uploads.groups.stats.one_by_one == 2
        uploads.answers.clear()
        uploads.threads.clear()
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage if isinstance(o, (_Upload, RunCreate))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []
