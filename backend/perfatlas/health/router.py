"""/health (the process and its database answer) and /ready (the background work runs too);
neither needs a token, and each answers 503 with what is down and since when."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from perfatlas.health import answers
from perfatlas.health.schemas import Health, Ready

router = APIRouter(tags=["health"])


@router.get(
    "/health", operation_id="health", response_model=Health,
    responses={503: {"model": Health, "description": "the database does not answer"}},
)  # fmt: skip
def health(request: Request) -> Health | JSONResponse:
    """Liveness and database reachability; needs no token."""
    return answers.health(request.app.state.session_factory)


@router.get(
    "/ready", operation_id="ready", response_model=Ready,
    responses={503: {"model": Ready, "description": "a part is down: the body says which"}},
)  # fmt: skip
def ready(request: Request) -> JSONResponse:
    """Readiness: database, broker and a worker heartbeat younger than a bound; 503 when any
    is down. The backlogs' ages are told, and do not make it 503. Needs no token."""
    return answers.ready(request.app.state.session_factory, request.app.state.settings)
