"""Dependencies shared by the routers: settings, a database session, the caller's principal."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from perfatlas.auth.service import Principal, Scope, authenticate
from perfatlas.core.config import Settings
from perfatlas.core.errors import Forbidden, Unauthorized


def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_session(request: Request) -> Iterator[Session]:
    with request.app.state.session_factory() as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
SessionDep = Annotated[Session, Depends(get_session)]
_bearer = HTTPBearer(auto_error=False, description="an API token: perfatlas token create")


def _principal(
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal | None:
    if credentials is None:
        return None
    principal = authenticate(session, token=credentials.credentials)
    if principal is None:
        raise Unauthorized("the API token is unknown or revoked")
    return principal


def require(scope: Scope) -> object:
    def check(
        settings: SettingsDep,
        principal: Annotated[Principal | None, Depends(_principal)],
    ) -> Principal:
        if principal is None:
            if scope == "read" and settings.public_read:
                return Principal(token_id=None, name="anonymous", scope=None)
            raise Unauthorized(
                f"this needs an API token with the {scope!r} scope: "
                "send it as 'Authorization: Bearer <token>'"
            )
        if not principal.allows(scope) and not (scope == "read" and settings.public_read):
            raise Forbidden(
                f"the token {principal.name!r} has scope {principal.scope!r}; "
                f"this needs {scope!r}"
            )
        return principal

    return Depends(check)


ReadPrincipal = Annotated[Principal, require("read")]
UploadPrincipal = Annotated[Principal, require("upload")]
AdminPrincipal = Annotated[Principal, require("admin")]
