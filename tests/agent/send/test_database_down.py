"""PostgreSQL down for 10 s while an agent uploads 2,000 runs: the server answers 503, the agent
takes it as "try later" (never a bad run), and once the database is back every run is stored
once and the agent exits 0."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from pathlib import Path

import psycopg

from tests.agent.conftest import agent_cmd
from tests.factories import result, run_body
from tests.pg_private import private_postgres, serve_on

RUNS = 2000


def test_an_upload_outlives_ten_seconds_without_the_database(tmp_path: Path) -> None:
    agent = f"pg-down-{uuid.uuid4().hex[:8]}"
    runs = [
        run_body(agent=agent, target=f"/mnt/t{i % 7}",
                 results=[result("create.ops_per_s", [100.0 + i, 101.0 + i, 99.0 + i])])
        for i in range(RUNS)
    ]  # fmt: skip
    file = tmp_path / "runs.json"
    file.write_text(json.dumps({"runs": runs}))
    spool = tmp_path / "spool"
    with private_postgres() as pg, serve_on(pg, tmp_path / "server.log") as server:
        dsn = pg.url.replace("postgresql+psycopg://", "postgresql://")

        def stored() -> list[str]:
            with psycopg.connect(dsn) as conn:
                return [str(u) for (u,) in conn.execute("SELECT uuid FROM runs")]

        pg.stop()
        down = time.monotonic()
        env = {"PERFATLAS_AGENT_SPOOL": str(spool),
               "PERFATLAS_AGENT_FALLBACK_SPOOL": f"{spool}-fallback", "PATH": "/usr/bin:/bin"}  # fmt: skip
        with (tmp_path / "agent.log").open("w") as out:
            upload = subprocess.Popen(
                agent_cmd("upload", str(file), "--server", server.base.removesuffix("/api/v1"),
                          "--token", server.token, "--retry-deadline", "180"),
                env=env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        # The agent has met the outage: the server answered it 503.
        server.wait_for(
            lambda: "database unavailable on POST /api/v1/runs/batch" in server.log.read_text(),
            "a 503 to the agent's upload",
        )
        assert upload.poll() is None, (tmp_path / "agent.log").read_text()
        time.sleep(max(0.0, 10 - (time.monotonic() - down)))  # the outage lasts 10 s
        pg.start()
        code = upload.wait(timeout=240)
        said = (tmp_path / "agent.log").read_text()
        assert code == 0, said
        uuids = stored()
    assert len(uuids) == len(set(uuids)) == RUNS  # every run, once
    assert set(uuids) == {r["uuid"] for r in runs}
    assert "KEPT" not in said and "failed on it" not in said, said
    assert not (spool / "rejected").exists() or not any((spool / "rejected").iterdir())
    logged = server.log.read_text()
    assert "Traceback" not in logged, logged[-3000:]
