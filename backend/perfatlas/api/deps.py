"""Dependencies shared by the routers: settings, a database session, the caller's principal."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, TypeVar

import anyio
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from perfatlas.auth.permissions import ANONYMOUS_READER, Permission, Principal
from perfatlas.auth.service import authenticate
from perfatlas.core.config import Settings
from perfatlas.core.errors import Forbidden, Unauthorized, validated_json

ModelT = TypeVar("ModelT", bound=BaseModel)


# The dependencies are coroutines where they do no I/O: FastAPI runs a plain-function
# dependency in a worker thread, and each hop to a thread and back cost a small upload more of
# the API's CPU than its own queries did (with 20 requests at once, the event loop's handing
# over to threads was a sixth of the process's time).


async def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_session(request: Request) -> AsyncIterator[Session]:
    """The request's session. Making it does no I/O, and the routes' queries run in their own
    worker threads; closing it does only when a transaction is still open (a read's, or a write
    that failed), and then runs in a worker thread (ending the transaction is a round trip):
    after a commit, it is only bookkeeping."""
    session: Session = request.app.state.session_factory()
    succeeded = False
    try:
        yield session
        succeeded = True
    finally:
        if not session.in_transaction():
            session.close()
        else:
            # A GET that succeeded ends in COMMIT, which to PostgreSQL is ROLLBACK for a
            # transaction that wrote nothing. psycopg forgets its prepared statements at every
            # ROLLBACK (it cannot know what the transaction undid), so reads ending in one had
            # every statement planned again at each request: on a small machine, planning the
            # series points' statement took longer than running it. A GET's routes write only
            # what they commit themselves (a token's last use); whatever failed, and every
            # other method's open transaction, is rolled back.
            end = _commit_and_close if succeeded and request.method in _READS else Session.close
            # Not on the shared threads' limit, as FastAPI runs the exit of a plain-function
            # dependency: a session holding its connection must never wait for a thread that
            # may itself be waiting for a connection (the guard's token lookups are outside
            # api.admission's bound).
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(end, session, limiter=anyio.CapacityLimiter(1))


_READS = frozenset({"GET", "HEAD"})


def _commit_and_close(session: Session) -> None:
    """Ends a GET's transaction with COMMIT; but what the route left unflushed (an object added
    or changed and never sent) is dropped, as any other method's is: a GET's own writes are
    only those it flushed."""
    try:
        if not (session.new or session.dirty or session.deleted):
            session.commit()
    finally:
        session.close()


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
SessionDep = Annotated[Session, Depends(get_session)]
_bearer = HTTPBearer(auto_error=False, description="an API token: perfatlas token create")


def principal_for(session: Session, token: str | None) -> Principal | None:
    """The token's principal; None without a token; Unauthorized for an unknown one."""
    if token is None:
        return None
    principal = authenticate(session, token=token)
    if principal is None:
        raise Unauthorized("the API token is unknown or revoked")
    return principal


def authorize(settings: Settings, principal: Principal | None, permission: Permission) -> Principal:
    public = permission == Permission.READ and settings.public_read
    if principal is None:
        if public:
            return ANONYMOUS_READER
        raise Unauthorized(
            f"this needs an API token with the {permission.value!r} permission: "
            "send it as 'Authorization: Bearer <token>'"
        )
    if not principal.allows(permission) and not public:
        raise Forbidden(
            f"the token {principal.name!r} (scope {str(principal.scope)!r}) lacks the "
            f"{permission.value!r} permission"
        )
    return principal


def require(permission: Permission) -> object:
    async def check(
        request: Request,
        session: SessionDep,
        settings: SettingsDep,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    ) -> Principal:
        # api.guard authorizes a write before its body is read, and leaves the principal here.
        checked: Principal | None = getattr(request.state, "principal", None)
        if checked is not None:
            return checked
        token = credentials.credentials if credentials is not None else None
        if token is None:  # no lookup: no thread
            return authorize(settings, None, permission)
        found = await run_in_threadpool(principal_for, session, token)
        return authorize(settings, found, permission)

    check.required_permission = permission  # type: ignore[attr-defined]  # read by api.guard
    return Depends(check)


ReadPrincipal = Annotated[Principal, require(Permission.READ)]
UploadPrincipal = Annotated[Principal, require(Permission.UPLOAD)]
TriagePrincipal = Annotated[Principal, require(Permission.TRIAGE)]
AdminPrincipal = Annotated[Principal, require(Permission.ADMIN)]


async def _agent_principal(principal: UploadPrincipal) -> Principal:
    if principal.agent is None:
        raise Forbidden(
            f"the token {principal.name!r} is not an agent's token: this route is for an "
            "enrolled agent (perfatlas-agent enroll)"
        )
    return principal


# An agent's own token (scope agent): the job protocol's routes.
AgentPrincipal = Annotated[Principal, Depends(_agent_principal)]


# The model each body dependency validates (json_body, json_bytes): api/openapi.py publishes
# it as the operation's request body, so a route declares its body once, in its signature.
BODY_MODELS: dict[Callable[..., Any], type[BaseModel]] = {}


def json_body(model: type[ModelT]) -> Any:
    """The request body validated straight from its bytes by pydantic-core (about twice as fast
    as FastAPI's parse-then-validate for large uploads); errors read as FastAPI's own 422s.
    The OpenAPI document names `model` as the body (api/openapi.py)."""

    async def parse(request: Request) -> ModelT:
        return validated_json(model, await request.body())

    BODY_MODELS[parse] = model
    return Depends(parse)


def json_bytes(model: type[BaseModel]) -> Any:
    """The request body's bytes (`body_bytes`), for a route that validates them itself, a part
    at a time; the OpenAPI document names `model` as the body."""

    async def read(request: Request) -> bytearray:
        return await body_bytes(request)

    BODY_MODELS[read] = model
    return Depends(read)


async def body_bytes(request: Request) -> bytearray:
    """The request body as one buffer, grown in place as it arrives: Starlette's request.body()
    holds its chunks and their join at once, twice a large upload's size."""
    body = bytearray()
    async for chunk in request.stream():
        if not body and isinstance(chunk, bytearray):
            body = chunk  # api.admission's buffer, the whole body: taken without a copy
        else:
            body += chunk
    return body
