"""Group commit of uploads: the uploads that arrive while others are being stored wait for
them, then are stored together, in one transaction.

A small upload's cost to the API is mostly fixed: a dozen round trips (its runs' lookup, the
agents', environments' and series' lookups, two COPYs, the pending folds and checks, the
agents' touch, the commit), each with its statement's Python, whatever the upload's size.
Stored together, a group pays them once (50 unpaced uploaders of 10 runs each on a slow 2-core
machine, tests/bench/bench_load.py alternated: the API's CPU per upload 13.1 -> 8.9 ms,
PostgreSQL's 15.2 -> 12.4 ms, 524 -> 595 runs a second; tests/bench/results/HISTORY.md).

No upload waits for a group to form: while fewer than CONCURRENT groups are being stored, an
upload is stored at once, alone (an uploader's latency on a quiet server is what it was); the
uploads arriving while CONCURRENT are being stored queue, and the next group is the queue (up
to MAX_RUNS runs). The thread of the group's first upload stores it in its own session; the
others sleep until their outcome is known.

Each upload keeps its own answer, as if stored alone:
- a group is one transaction, so an upload's runs are all stored or none are;
- an upload holding a run uuid that an earlier upload in the queue holds too (a retry racing its
  original) waits for a later group, so that it meets the run as stored by the earlier upload
  (a retry, or a conflict), or, if that one failed, stores it;
- when a group fails (a conflict, an invalid batch, a database error), it is rolled back and its
  uploads are stored again one by one, each in its own transaction, so that each one's error is
  its own and its field names are its own batch's."""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from perfatlas.alerts.service import Requested
from perfatlas.core.config import Settings
from perfatlas.core.measurement import RunCreate
from perfatlas.flows.after_ingest import commit_ingest, request_after_ingest
from perfatlas.runs.ingest import Ingested, ingest

logger = logging.getLogger(__name__)

# A group's runs, at most (an upload of more is stored alone): the largest batch /runs/batch
# takes in one transaction.
MAX_RUNS = 1000
# Groups stored at once by one API process: two, so that when uploads come one at a time two
# of them still use two cores (of PostgreSQL's, mostly), as they did before groups, and a group
# forms only once both are busy.
CONCURRENT = 2


@dataclass(eq=False)
class _Upload:
    runs: Sequence[RunCreate]
    # Set once: when the upload is done, or when its thread is to store `group`.
    wake: threading.Event = field(default_factory=threading.Event)
    group: list[_Upload] | None = None
    done: bool = False
    outcomes: list[Ingested] = field(default_factory=list)
    requested: int = 0
    error: BaseException | None = None

    def result(self) -> tuple[list[Ingested], int]:
        # Nothing is kept that makes a cycle (the error's traceback holds frames that hold
        # this upload): an upload and its runs are freed as soon as its answer is given, not
        # at the collector's next full pass (a 1,000-run batch is megabytes).
        error, self.error = self.error, None
        if error is None:
            return self.outcomes, self.requested
        try:
            raise error
        finally:
            del error  # the raised error's traceback holds this frame


@dataclass
class GroupStats:
    """What the groups were (the tests read it): how many, and the largest."""

    groups: int = 0
    largest: int = 0
    one_by_one: int = 0  # groups that failed and were stored again upload by upload


class GroupCommit:
    """One per API process (app.state.group_commit)."""

    def __init__(self, *, max_runs: int = MAX_RUNS, concurrent: int = CONCURRENT) -> None:
        self.max_runs = max_runs
        self.concurrent = concurrent
        self.stats = GroupStats()
        self._lock = threading.Lock()
        self._queue: deque[_Upload] = deque()
        self._storing = 0  # groups being stored

    def waiting(self) -> int:
        """Uploads queued behind the groups being stored."""
        with self._lock:
            return len(self._queue)

    def store(
        self, session: Session, settings: Settings, runs: Sequence[RunCreate]
    ) -> tuple[list[Ingested], int]:
        """Stores these runs (service.ingest) and requests their series' checks
        (alerts.service.request_after_ingest), committed: the outcome of each unique run in
        the batch's order, and how many series were not waiting for a check already, or no
        longer once it committed (those of the whole group the runs were stored with:
        alerts.service.detect_after_ingest queues a check's wake-up when it is not 0).

        `session` must hold no transaction: a thread that waits in the queue must not hold a
        connection, nor a snapshot or locks that the group's transaction could wait for."""
        if session.in_transaction():
            raise RuntimeError("GroupCommit.store needs a session with no transaction open")
        upload = _Upload(runs)
        with self._lock:
            if self._storing < self.concurrent:  # then nothing is queued either
                self._storing += 1
                upload.group = self._counted([upload])
            else:
                self._queue.append(upload)
        if upload.group is None:
            # The routes' worker threads get no asynchronous exceptions, so this wait ends only
            # when the upload is done or its thread is handed a group to store.
            upload.wake.wait()
        group, upload.group = upload.group, None  # the upload is in its group: no cycle
        if group is not None:  # this thread stores a group, its upload first
            try:
                self._store_group(session, settings, group)
            except BaseException:
                upload.error = None  # raised from here, not by result()
                raise
            finally:
                self._hand_over()
            # This frame is in the traceback of an error result() raises: it must not hold
            # the other uploads of the group.
            del group
        return upload.result()

    def _counted(self, group: list[_Upload]) -> list[_Upload]:
        self.stats.groups += 1
        self.stats.largest = max(self.stats.largest, len(group))
        return group

    def _hand_over(self) -> None:
        """The next group, to the thread of its first upload: the queue's head, then the queued
        uploads that fit beside it and hold none of the runs of an upload before them, in their
        order of arrival. Nothing queued, the next upload to arrive stores its own."""
        with self._lock:
            if not self._queue:
                self._storing -= 1
                return
            head = self._queue.popleft()
            group, runs = [head], len(head.runs)
            uuids = {run.uuid for run in head.runs}
            kept: deque[_Upload] = deque()
            for upload in self._queue:
                held = {run.uuid for run in upload.runs}
                if runs + len(upload.runs) <= self.max_runs and uuids.isdisjoint(held):
                    group.append(upload)
                    runs += len(upload.runs)
                else:
                    kept.append(upload)
                # A later upload must not overtake one it shares runs with.
                uuids |= held
            self._queue = kept
            head.group = self._counted(group)
            head.wake.set()

    def _store_group(self, session: Session, settings: Settings, group: list[_Upload]) -> None:
        """Every upload of the group done, with its outcome or its own error; nothing raised
        here but what no thread should swallow (KeyboardInterrupt, SystemExit).

        An error stored here holds, through its traceback's frames and their callers', this
        frame and the leader's: they must not hold the other uploads once all are done (a
        route's error ends in a cycle, anyio's future and its traceback, so what it holds waits
        for the collector). So the group's failure is not the context of the errors stored one
        by one, no loop variable outlives its loop, and the list is emptied at the end."""
        try:
            if len(group) == 1:
                _store_alone(session, settings, group[0])
                return
            if _stored_together(session, settings, group):
                return
            _rollback(session)
            with self._lock:
                self.stats.one_by_one += 1
            _store_one_by_one(session, settings, group)
        except BaseException as exc:  # never leave a sleeping thread without its answer
            _fail_undone(group, exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            _wake(group[1:])
            group.clear()


def _store_one_by_one(session: Session, settings: Settings, group: list[_Upload]) -> None:
    for upload in group:
        _store_alone(session, settings, upload)
    del upload  # see GroupCommit._store_group


def _fail_undone(group: list[_Upload], exc: BaseException) -> None:
    for upload in group:
        if not upload.done:
            # Each thread raises an exception of its own (one object raised in several threads
            # at once would mix their tracebacks).
            upload.error, upload.done = _group_failed(exc), True


def _wake(followers: list[_Upload]) -> None:
    for upload in followers:
        upload.wake.set()


def _group_failed(cause: BaseException) -> RuntimeError:
    """An upload's own error for its group's failure (made here, so that no frame that its
    cause's traceback holds also holds it)."""
    failed = RuntimeError("the group this upload was stored with failed")
    failed.__cause__ = cause
    return failed


def _rollback(session: Session) -> None:
    """Rolls back what failed; when even that fails (the connection is gone), the uploads
    stored next in this session fail with errors of their own."""
    try:
        session.rollback()
    except Exception:
        logger.warning("a group's rollback failed", exc_info=True)


def _store_alone(session: Session, settings: Settings, upload: _Upload) -> None:
    try:
        upload.outcomes, upload.requested = _commit(session, settings, upload.runs)
    except Exception as exc:
        upload.error = exc
        _rollback(session)
    upload.done = True


def _stored_together(session: Session, settings: Settings, group: list[_Upload]) -> bool:
    """The group stored in one transaction, each upload done with its outcome; False when
    that failed."""
    try:
        stored, requested = _commit(session, settings, [run for u in group for run in u.runs])
        by_uuid = {outcome.uuid: outcome for outcome in stored}
        for upload in group:
            # The unique runs of each upload in its order, as ingest answers one batch.
            mine = dict.fromkeys(run.uuid for run in upload.runs)
            upload.outcomes = [by_uuid[run_uuid] for run_uuid in mine]
            # The group's count: an upload whose series were all waiting already still queues
            # the checks' wake-up, which is coalesced (alerts.service.detect_after_ingest).
            upload.requested = requested
            upload.done = True
    except Exception:
        return False
    return True


def _commit(
    session: Session, settings: Settings, runs: Sequence[RunCreate]
) -> tuple[list[Ingested], int]:
    def work() -> tuple[list[Ingested], Requested]:
        stored = ingest(session, runs=runs, ignore_labels=settings.series_ignore_labels)
        return stored, request_after_ingest(session, settings, stored)

    return commit_ingest(session, work)
