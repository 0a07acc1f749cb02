"""/health (the process and its database answer) and /ready (the background work runs too);
neither needs a token, and each answers 503 with what is down and since when."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from perfatlas.core import outage
from perfatlas.health import service
from perfatlas.health.schemas import Health, Ready

router = APIRouter(tags=["health"])


def _down(exc: Exception) -> bool:
    if not outage.is_unavailable(exc):
        raise exc
    outage.mark_down()
    return True


@router.get(
    "/health", operation_id="health", response_model=Health,
    responses={503: {"model": Health, "description": "the database does not answer"}},
)  # fmt: skip
def health(request: Request) -> Health | JSONResponse:
    """Liveness and database reachability; needs no token."""
    try:
        with request.app.state.session_factory() as session:
            return service.health(session)
    except Exception as exc:
        _down(exc)
        body = service.database_down()
        headers = {"Retry-After": str(outage.RETRY_AFTER_SECONDS)}
        return JSONResponse(body.model_dump(mode="json"), status_code=503, headers=headers)


@router.get(
    "/ready", operation_id="ready", response_model=Ready,
    responses={503: {"model": Ready, "description": "a part is down: the body says which"}},
)  # fmt: skip
def ready(request: Request) -> JSONResponse:
    """Readiness: database, broker and a worker heartbeat younger than a bound; 503 when any
    is down. The backlogs' ages are told, and do not make it 503. Needs no token."""
    settings = request.app.state.settings
    try:
        with request.app.state.session_factory() as session:
            body = service.readiness(session, settings)
    except Exception as exc:
        _down(exc)
        body = service.database_not_ready(settings)
    code = 200 if body.status == "ready" else 503
    headers = {} if code == 200 else {"Retry-After": str(outage.RETRY_AFTER_SECONDS)}
    return JSONResponse(body.model_dump(mode="json"), status_code=code, headers=headers)
