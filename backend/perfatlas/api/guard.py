"""Checks every request must pass before its route reads anything.

- A route that writes checks the caller's token before the body is read: without a valid token
  a client cannot make the server receive and parse megabytes (FastAPI reads and parses a body
  before it resolves any dependency).
- No NUL character in the path or the query: PostgreSQL cannot compare text holding one.
- Integer path and query parameters are ids, counts and limits, all kept in 32-bit columns: a
  larger one cannot name anything (404 in a path, 422 in a query), and the database would
  refuse to compare it.

Each answer has the API's one error shape (core.errors)."""

from __future__ import annotations

import inspect
import re
import types
import typing
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import orjson
from fastapi.dependencies.models import Dependant
from fastapi.routing import iter_route_contexts
from starlette.concurrency import run_in_threadpool
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from perfatlas.api.deps import authorize, principal_for
from perfatlas.auth.permissions import Permission
from perfatlas.core import outage
from perfatlas.core.errors import (
    DomainError,
    Invalid,
    NotFound,
    error_body,
    error_headers,
    unavailable,
)
from perfatlas.core.inputs import INT32_MAX

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_INT32_MIN = -INT32_MAX - 1


@dataclass(frozen=True, slots=True)
class RouteFacts:
    permission: Permission | None  # the permission the route requires, if any
    int_path: frozenset[str]
    int_query: frozenset[str]
    # A plain-function route (run in worker threads): api.admission bounds how many run at once.
    sync_route: bool = False


@dataclass(frozen=True, slots=True)
class _Route:
    path: re.Pattern[str]
    methods: frozenset[str]
    facts: RouteFacts


class RequestGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._routes: list[_Route] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            await self._check(scope)
        except DomainError as exc:
            await _answer(send, exc)
            return
        except Exception as exc:
            # A write's token is read from the database here, before any route's handler.
            if not outage.is_unavailable(exc):
                raise
            await _answer(send, unavailable(f"{scope['method']} {scope['path']}", exc))
            return
        await self.app(scope, receive, send)

    async def _check(self, scope: Scope) -> None:
        if "\x00" in scope["path"]:
            raise NotFound("no such address: the path holds a NUL character")
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        for name, value in query:
            if "\x00" in name or "\x00" in value:
                raise Invalid(
                    f"query.{name.replace(chr(0), '')}", "must not contain a NUL character"
                )
        if self._routes is None:
            self._routes = _api_routes(scope["app"].routes)
        matched = _match(self._routes, scope)
        if matched is None:
            return
        facts, path_params = matched
        scope.setdefault("state", {})["route_facts"] = facts  # for api.admission
        for name in facts.int_path:
            if _beyond_int32(path_params.get(name)):
                raise NotFound(f"no {name.removesuffix('_id')} with id {path_params[name][:40]}")
        for name, value in query:
            if name in facts.int_query and _beyond_int32(value):
                raise Invalid(
                    f"query.{name}", f"{value[:40]} is out of range (at most {INT32_MAX})"
                )
        if facts.permission is not None and scope["method"] in _BODY_METHODS:
            principal = await run_in_threadpool(_authorize, scope, facts.permission)
            scope.setdefault("state", {})["principal"] = principal


def _api_routes(routes: list[BaseRoute]) -> list[_Route]:
    """Every API route with what the guard needs to know of it, found the way FastAPI's
    OpenAPI document finds them (routers included in routers)."""
    found = []
    for context in iter_route_contexts(routes):
        dependant = getattr(context, "dependant", None)
        if isinstance(dependant, Dependant):
            methods = frozenset(context.methods or ())
            found.append(_Route(context.path_regex, methods, route_facts(dependant)))
    return found


def _match(routes: list[_Route], scope: Scope) -> tuple[RouteFacts, dict[str, str]] | None:
    method = "GET" if scope["method"] == "HEAD" else scope["method"]
    for route in routes:
        match = route.path.match(scope["path"])
        if match is not None and method in route.methods:
            return route.facts, match.groupdict()
    return None


def _authorize(scope: Scope, needed: Permission) -> Any:
    app = scope["app"]
    token = None
    for key, value in scope.get("headers") or []:
        if key == b"authorization":
            kind, _, credentials = value.decode("latin-1").partition(" ")
            if kind.lower() == "bearer" and credentials.strip():
                token = credentials.strip()
    with app.state.session_factory() as session:
        if token is not None:
            # One statement (two when it touches the token's last use), each its own
            # transaction: no BEGIN before it and no ROLLBACK after, two round trips fewer.
            session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        principal = principal_for(session, token)
    return authorize(app.state.settings, principal, needed)


def _beyond_int32(value: str | None) -> bool:
    """An integer too large for the 32-bit columns (what is not an integer is the route's to
    refuse)."""
    text = (value or "").strip()
    digits = text[1:] if text[:1] in "+-" else text
    if not digits.isdecimal() or not digits.isascii():
        return False
    return len(digits.lstrip("0")) > 10 or not _INT32_MIN <= int(text) <= INT32_MAX


def _is_int(annotation: Any) -> bool:
    if annotation is int:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _is_int(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType, list):
        return any(_is_int(arg) for arg in typing.get_args(annotation))
    return False


def route_facts(dependant: Dependant) -> RouteFacts:
    """The permission a route requires and its integer parameters, from its dependencies."""
    permission: Permission | None = None
    int_path: set[str] = set()
    int_query: set[str] = set()
    pending = [dependant]
    while pending:
        current = pending.pop()
        needed = getattr(current.call, "required_permission", None)
        if needed is not None:
            permission = needed
        int_path |= {f.alias for f in current.path_params if _is_int(f.field_info.annotation)}
        int_query |= {f.alias for f in current.query_params if _is_int(f.field_info.annotation)}
        pending.extend(current.dependencies)
    sync_route = not inspect.iscoroutinefunction(dependant.call)
    return RouteFacts(permission, frozenset(int_path), frozenset(int_query), sync_route)


async def _answer(send: Send, exc: DomainError) -> None:
    payload = orjson.dumps(error_body(exc.code, exc.message, **exc.extra))
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    headers += [
        (name.lower().encode(), value.encode())
        for name, value in (error_headers(exc) or {}).items()
    ]
    await send({"type": "http.response.start", "status": exc.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
