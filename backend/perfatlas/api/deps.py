"""Dependencies shared by the routers: settings, a database session, the caller's principal."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.exceptions import RequestValidationError
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ValidationError
from sqlalchemy.orm import Session

from perfatlas.auth.permissions import ANONYMOUS_READER, Permission, Principal
from perfatlas.auth.service import authenticate
from perfatlas.core.config import Settings
from perfatlas.core.errors import Forbidden, Unauthorized

ModelT = TypeVar("ModelT", bound=BaseModel)


def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_session(request: Request) -> Iterator[Session]:
    with request.app.state.session_factory() as session:
        yield session


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
    def check(
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
        return authorize(settings, principal_for(session, token), permission)

    check.required_permission = permission  # type: ignore[attr-defined]  # read by api.guard
    return Depends(check)


ReadPrincipal = Annotated[Principal, require(Permission.READ)]
UploadPrincipal = Annotated[Principal, require(Permission.UPLOAD)]
TriagePrincipal = Annotated[Principal, require(Permission.TRIAGE)]
AdminPrincipal = Annotated[Principal, require(Permission.ADMIN)]


def _agent_principal(principal: UploadPrincipal) -> Principal:
    if principal.agent is None:
        raise Forbidden(
            f"the token {principal.name!r} is not an agent's token: this route is for an "
            "enrolled agent (perfatlas-agent enroll)"
        )
    return principal


# An agent's own token (scope agent): the job protocol's routes.
AgentPrincipal = Annotated[Principal, Depends(_agent_principal)]


def json_body(model: type[ModelT]) -> Any:
    """The request body validated straight from its bytes by pydantic-core (about twice as fast
    as FastAPI's parse-then-validate for large uploads); errors read as FastAPI's own 422s.
    Routes using it declare the schema with `body_schema(model)`, and main.py publishes it."""

    async def parse(request: Request) -> ModelT:
        raw = await request.body()
        try:
            return model.model_validate_json(raw)
        except ValidationError as exc:
            errors = [{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]
            raise RequestValidationError(errors) from None

    return Depends(parse)


BODY_MODELS: list[type[BaseModel]] = []


def body_schema(model: type[BaseModel]) -> dict[str, Any]:
    BODY_MODELS.append(model)
    ref = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}
