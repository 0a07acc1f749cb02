"""HTTP routes of API tokens: create (shown once), list, revoke. Admin only."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from perfatlas.api.deps import AdminPrincipal, SessionDep, json_body
from perfatlas.auth import service
from perfatlas.auth.schemas import TokenCreate, TokenCreated, TokenList, TokenRead

router = APIRouter(tags=["auth"])
TokenId = Annotated[int, Path(ge=1, le=2**31 - 1)]


@router.post(
    "/tokens",
    operation_id="create_token",
    status_code=201,
    response_model=TokenCreated,
)
def create_token(
    body: Annotated[TokenCreate, json_body(TokenCreate)], session: SessionDep, _: AdminPrincipal
) -> TokenCreated:
    """Create a token; the response is the only place the token itself ever appears."""
    row, token = service.create_token(
        session, name=body.name, scope=body.scope.value, agent=body.agent
    )
    return TokenCreated(**TokenRead.model_validate(row).model_dump(), token=token)


@router.get("/tokens", operation_id="list_tokens", response_model=TokenList)
def list_tokens(session: SessionDep, _: AdminPrincipal) -> TokenList:
    """Every token (never the token itself), with when it was last used."""
    return TokenList(items=[TokenRead.model_validate(t) for t in service.list_tokens(session)])


@router.post("/tokens/{token_id}/revoke", operation_id="revoke_token", response_model=TokenRead)
def revoke_token(token_id: TokenId, session: SessionDep, _: AdminPrincipal) -> TokenRead:
    """Revoke a token: it stops working with the next request."""
    return TokenRead.model_validate(service.revoke_token(session, token_id=token_id))
