"""A check whose worker died holding its claims (killed with -9: the claimed requests stay, no
process finishes them) is taken over within a minute by the next worker, and each series gets
its alert once."""

from __future__ import annotations

import random
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.alerts import pending
from perfatlas.alerts.models import Alert, DetectionRequest
from perfatlas.runs.models import Series
from tests.backend.alerts.conftest import wait_until
from tests.factories import STEP, daily_runs

# Kills a worker process (-9) and waits for the next to take over.
pytestmark = pytest.mark.slow

SERIES = 100


def test_claims_of_a_dead_check_are_taken_over_within_a_minute_without_duplicates(
    client: TestClient, factory: sessionmaker[Session], upload_headers: dict[str, str],
    request: pytest.FixtureRequest,
) -> None:  # fmt: skip
    # 100 series (one per target) with a 20 % step, uploaded through the API on the idle
    # queue: their checks wait, and no worker takes them yet.
    rng = random.Random(41)
    runs = [
        run
        for s in range(SERIES)
        for run in daily_runs(STEP, rng, agent="lab-1", target=f"/mnt/t{s:03d}")
    ]
    for i in range(0, len(runs), 500):
        stored = client.post(
            "/api/v1/runs/batch", json={"runs": runs[i : i + 500]}, headers=upload_headers
        )
        assert stored.status_code == 200, stored.text
    with factory() as session:
        assert session.scalar(select(func.count()).select_from(Series)) == SERIES
        # The dead check: it claimed every waiting series, and then its worker was killed.
        claimed = time.monotonic()  # before the claim: its claimed_at is no earlier than this
        dead = pending.claim(session, 2 * SERIES)
        assert dead is not None and len(dead.series_ids) == SERIES

    request.getfixturevalue("worker")  # the next worker, with its beat

    def alerts() -> list[tuple[int, int]]:
        with factory() as session:
            return list(
                session.execute(  # type: ignore[arg-type]
                    select(Alert.series_id, func.count()).group_by(Alert.series_id)
                ).all()
            )

    # Stale after pending.STALE_CLAIM (40 s), taken by the beat's pass (every 15 s): within a
    # minute on an idle machine; the budget is for a busy one (no bound on time is asserted).
    wait_until(lambda: len(alerts()) == SERIES, timeout=300, what="an alert on every series")
    took = time.monotonic() - claimed
    # Taken over once stale, never before: the dead check's claim held until then.
    assert took >= pending.STALE_CLAIM.total_seconds(), took

    def requests_left() -> int:
        with factory() as session:
            return int(session.scalar(select(func.count()).select_from(DetectionRequest)) or 0)

    # The check that took them over drops their requests after it stores the alerts: a state to
    # wait for (a busy machine saw 100 left at the moment the last alert appeared).
    wait_until(lambda: requests_left() == 0, timeout=300, what="no detection request left")
    # Once each.
    assert sorted(count for _, count in alerts()) == [1] * SERIES
