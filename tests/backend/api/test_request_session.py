"""How a request's session ends (api.deps.get_session), on the real PostgreSQL: a GET that
succeeded commits, so that the connection keeps its prepared statements; a request that failed,
and any other method's open transaction, is rolled back and leaves nothing written."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session

from perfatlas.api.deps import ReadPrincipal, SessionDep, get_session
from perfatlas.auth.models import ApiToken
from perfatlas.auth.service import issue_token
from perfatlas.core.config import Settings
from perfatlas.core.db import make_engine, session_factory
from perfatlas.core.errors import NotFound
from perfatlas.main import create_app

PREPARED = text("SELECT count(*) FROM pg_prepared_statements")
BACKEND_PID = text("SELECT pg_backend_pid()")


def _request(engine: Engine, method: str) -> Any:
    state = type("State", (), {"session_factory": session_factory(engine)})
    return type("Request", (), {"method": method, "app": type("App", (), {"state": state})})


async def _route(sessions: AsyncIterator[Session], work: Any, *, fails: bool) -> Any:
    """Runs `work` in the request's session as a route would, then ends the request as FastAPI
    does: the dependency resumes after a route that returned, or gets the route's error."""
    session = await sessions.__anext__()
    answer = await anyio.to_thread.run_sync(work, session)
    if fails:
        with pytest.raises(RuntimeError, match="the route failed"):
            await sessions.athrow(RuntimeError("the route failed"))
    else:
        with pytest.raises(StopAsyncIteration):
            await sessions.__anext__()
    return answer


def test_a_get_that_succeeded_keeps_the_connections_prepared_statements(pg_url: str) -> None:
    engine = make_engine(pg_url)  # a pool of its own, used by one request at a time
    try:

        def read(session: Session) -> tuple[int, int]:
            # psycopg prepares a statement the sixth time a connection runs it.
            for _ in range(6):
                session.execute(select(ApiToken.id).where(ApiToken.name == "nobody")).all()
            return session.execute(BACKEND_PID).scalar_one(), session.execute(PREPARED).scalar_one()

        pid, prepared = anyio.run(
            partial(_route, get_session(_request(engine, "GET")), read, fails=False)
        )
        assert prepared >= 1
        with engine.connect() as conn:  # the same connection, back from the pool
            assert conn.execute(BACKEND_PID).scalar_one() == pid
            assert conn.execute(PREPARED).scalar_one() == prepared
    finally:
        engine.dispose()


@pytest.mark.parametrize(("method", "fails"), [("GET", True), ("POST", False), ("POST", True)])
def test_a_failed_request_or_an_open_write_is_rolled_back(
    engine: Engine, method: str, fails: bool
) -> None:
    name = f"left-open-{method}-{fails}"

    def write(session: Session) -> None:
        issue_token(session, name=name, scope="read")  # flushed, not committed

    anyio.run(partial(_route, get_session(_request(engine, method)), write, fails=fails))
    with Session(engine) as session:
        assert session.scalars(select(ApiToken).where(ApiToken.name == name)).all() == []
    assert engine.pool.checkedout() == 0


def test_a_get_that_succeeded_keeps_what_it_wrote(engine: Engine) -> None:
    """The other side of the rule above, so that it is seen to hold: a GET that returned
    commits (GET routes write only what they commit themselves, such as a token's last use)."""

    def write(session: Session) -> None:
        issue_token(session, name="kept-by-a-get", scope="read")

    anyio.run(partial(_route, get_session(_request(engine, "GET")), write, fails=False))
    with Session(engine) as session:
        kept = session.scalars(select(ApiToken).where(ApiToken.name == "kept-by-a-get")).all()
        assert len(kept) == 1


def test_what_a_get_left_unflushed_is_not_written(engine: Engine) -> None:
    def add(session: Session) -> None:
        session.add(ApiToken(name="unflushed", scope="read", token_hash="0" * 64, prefix="pa_x"))

    anyio.run(partial(_route, get_session(_request(engine, "GET")), add, fails=False))
    with Session(engine) as session:
        assert session.scalars(select(ApiToken).where(ApiToken.name == "unflushed")).all() == []
    assert engine.pool.checkedout() == 0


def test_a_get_route_that_wrote_then_failed_leaves_nothing_through_the_app(
    settings: Settings, engine: Engine, read_headers: dict[str, str]
) -> None:
    """The same through FastAPI and its error handlers: the route's error reaches the session
    (as a 404 here), and the answer is the API's error."""
    app = create_app(settings)

    @app.get("/api/v1/test-wrote-then-failed")
    def wrote_then_failed(session: SessionDep, _: ReadPrincipal) -> dict[str, str]:
        issue_token(session, name="wrote-then-failed", scope="read")
        raise NotFound("nothing here after all")

    # Ahead of the UI's catch-all route, which answers every other path.
    app.router.routes.insert(0, app.router.routes.pop())
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/api/v1/test-wrote-then-failed", headers=read_headers)
    assert answer.status_code == 404, answer.text
    assert "nothing here after all" in answer.text
    with Session(engine) as session:
        stored = session.scalars(select(ApiToken).where(ApiToken.name == "wrote-then-failed"))
        assert stored.all() == []
