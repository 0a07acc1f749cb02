"""A PostgreSQL of the test's own, stopped under a running `perfatlas serve`: every route
answers 503 with Retry-After (never 500), /health says what is down and since when, and the
server answers again, with nothing lost or doubled, once the database is back."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.factories import run_body
from tests.pg_private import private_postgres, serve_on


def test_every_route_answers_503_while_the_database_is_down(tmp_path: Path) -> None:
    with private_postgres() as pg, serve_on(pg, tmp_path / "server.log") as server:
        base, headers = server.base, {"Authorization": f"Bearer {server.token}"}
        kept = run_body()
        assert httpx.post(f"{base}/runs", json=kept, headers=headers).status_code == 201

        pg.stop()
        new = run_body()
        answers = {
            "list runs": httpx.get(f"{base}/runs", headers=headers),
            "a run": httpx.get(f"{base}/runs/{kept['uuid']}", headers=headers),
            "upload": httpx.post(f"{base}/runs", json=new, headers=headers),
            "batch": httpx.post(f"{base}/runs/batch", json={"runs": [new]}, headers=headers),
            "explore": httpx.get(f"{base}/explore", headers=headers, params={
                "workload": "smallfile", "metric": "create.ops_per_s", "x": "agent"}),
            "agents": httpx.get(f"{base}/agents", headers=headers),
            "metrics": httpx.get(f"{base}/metrics", headers=headers),
            "health": httpx.get(f"{base}/health"),
            "ready": httpx.get(f"{base}/ready"),
        }  # fmt: skip
        for name, answer in answers.items():
            assert answer.status_code == 503, (name, answer.status_code, answer.text)
            assert int(answer.headers["retry-after"]) > 0, name
        assert answers["upload"].json()["code"] == "unavailable"
        assert "retry" in answers["upload"].json()["detail"]
        health = answers["health"].json()
        assert health["status"] == "down" and health["down"] == ["database"]
        assert health["since"]
        (database,) = [p for p in answers["ready"].json()["parts"] if p["name"] == "database"]
        assert not database["ok"] and database["since"] == health["since"]

        pg.start()
        server.wait_for(lambda: server.status("/health") == 200, "health once it is back")
        # The refused upload was not half-stored: sent again, it is created once.
        assert httpx.post(f"{base}/runs", json=new, headers=headers).status_code == 201
        assert httpx.post(f"{base}/runs", json=new, headers=headers).status_code == 200
        listed = httpx.get(f"{base}/runs", headers=headers).json()["items"]
        assert sorted(r["uuid"] for r in listed) == sorted([kept["uuid"], new["uuid"]])
    logged = (tmp_path / "server.log").read_text()
    assert "database unavailable on POST /api/v1/runs" in logged
    assert "Traceback" not in logged, logged[-3000:]
