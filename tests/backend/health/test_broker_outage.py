"""Redis shut down for 20 s under a busy worker, on a Redis of the test's own (the shared one
serves every other test): the worker lives on, and once Redis is back every upload's check
and fold is done, once each, with the uploads made during the outage too."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from perfatlas.alerts.models import Alert, DetectionRequest
from perfatlas.core.config import Settings
from perfatlas.main import create_app
from perfatlas.runs.models import RollupPending, Run
from tests.backend.alerts.conftest import wait_until
from tests.conftest import _free_port, skip_unless_able
from tests.factories import STEP, daily_runs

# A private Redis stopped and started under a worker process.
pytestmark = pytest.mark.slow

SERIES = 40


class PrivateRedis:
    def __init__(self, tmp: Path) -> None:
        if shutil.which("redis-server") is None:
            skip_unless_able("redis-server is not installed")
        self.port = _free_port()
        self.tmp = tmp
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.tmp)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        import redis

        def answers() -> bool:
            try:
                return bool(redis.Redis(port=self.port, socket_timeout=1).ping())
            except redis.RedisError:
                return False

        wait_until(answers, timeout=30, what="the private Redis")

    def stop(self) -> None:
        """As `redis-cli shutdown nosave`: everything it held is gone."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


def _runs(series: range, rng: random.Random) -> list[dict]:  # type: ignore[type-arg]
    return [
        run for s in series for run in daily_runs(STEP, rng, agent="lab-1", target=f"/mnt/t{s:03d}")
    ]


def test_the_worker_outlives_a_broker_outage_and_catches_up(
    private_redis: PrivateRedis, settings: Settings, engine: Engine, pg_url: str,
    upload_headers: dict[str, str], tmp_path: Path,
) -> None:  # fmt: skip
    broker = f"redis://127.0.0.1:{private_redis.port}/0"
    queue = f"perfatlas-outage-{os.getpid()}"
    mine = settings.model_copy(update={"broker_url": broker, "queue": queue})
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env |= {
        "PERFATLAS_DATABASE_URL": pg_url, "PERFATLAS_BROKER_URL": broker,
        "PERFATLAS_QUEUE": queue, "PERFATLAS_DATA_DIR": str(tmp_path / "data"),
        "PERFATLAS_WORKER_NICE": "0",
    }  # fmt: skip
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "perfatlas", "worker", "--beat"], env=env, stdout=out,
            stderr=subprocess.STDOUT, process_group=0,
        )  # fmt: skip
    rng = random.Random(20)
    before, during = _runs(range(0, SERIES // 2), rng), _runs(range(SERIES // 2, SERIES), rng)
    try:
        wait_until(lambda: "ready." in log.read_text(), timeout=60, what="the worker")
        with TestClient(create_app(mine)) as client:
            for i in range(0, len(before), 100):
                sent = client.post(
                    "/api/v1/runs/batch", json={"runs": before[i : i + 100]}, headers=upload_headers
                )
                assert sent.status_code == 200, sent.text
            # The worker is busy with their checks and folds when Redis goes, everything it
            # held with it.
            wait_until(lambda: "succeeded" in log.read_text(), timeout=60, what="a task done")
            private_redis.stop()
            went = time.monotonic()
            # Uploads go on while it is away: stored, their tasks not sent.
            for i in range(0, len(during), 100):
                sent = client.post(
                    "/api/v1/runs/batch", json={"runs": during[i : i + 100]}, headers=upload_headers
                )
                assert sent.status_code == 200, sent.text
            time.sleep(max(0.0, 20 - (time.monotonic() - went)))  # the outage lasts 20 s
            assert worker.poll() is None, log.read_text()[-3000:]
            private_redis.start()

        def caught_up() -> bool:
            assert worker.poll() is None, log.read_text()[-3000:]
            with Session(engine) as session:
                return (
                    session.scalar(select(func.count()).select_from(Alert)) == SERIES
                    and session.scalar(select(func.count()).select_from(RollupPending)) == 0
                    and session.scalar(select(func.count()).select_from(DetectionRequest)) == 0
                )

        wait_until(caught_up, timeout=180, what="every check and fold after the outage")
        with Session(engine) as session:
            assert session.scalar(select(func.count()).select_from(Run)) == len(before) + len(
                during
            )
            per_series = session.execute(
                select(Alert.series_id, func.count()).group_by(Alert.series_id)
            ).all()
        assert sorted(count for _, count in per_series) == [1] * SERIES  # once each
        assert worker.poll() is None  # the same process throughout
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, 9)
            worker.wait()
