"""/health and /ready as the API answers them: the body, or a 503 saying what is down and
since when (with Retry-After) when the database does not answer."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from perfatlas.core import outage
from perfatlas.core.config import Settings
from perfatlas.health import service
from perfatlas.health.schemas import Health


def _down(exc: Exception) -> bool:
    if not outage.is_unavailable(exc):
        raise exc
    outage.mark_down()
    return True


def health(sessions: Callable[[], Session]) -> Health | JSONResponse:
    """Liveness and database reachability."""
    try:
        with sessions() as session:
            return service.health(session)
    except Exception as exc:
        _down(exc)
        body = service.database_down()
        headers = {"Retry-After": str(outage.RETRY_AFTER_SECONDS)}
        return JSONResponse(body.model_dump(mode="json"), status_code=503, headers=headers)


def ready(sessions: Callable[[], Session], settings: Settings) -> JSONResponse:
    """Readiness: database, broker and a worker heartbeat; 503 when any is down."""
    try:
        with sessions() as session:
            body = service.readiness(session, settings)
    except Exception as exc:
        _down(exc)
        body = service.database_not_ready(settings)
    code = 200 if body.status == "ready" else 503
    headers = {} if code == 200 else {"Retry-After": str(outage.RETRY_AFTER_SECONDS)}
    return JSONResponse(body.model_dump(mode="json"), status_code=code, headers=headers)
