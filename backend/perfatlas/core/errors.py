"""Domain exceptions and the one JSON error shape every client sees."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, TypeVar

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, ValidationError
from sqlalchemy.exc import DataError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from perfatlas.core import outage

log = logging.getLogger("perfatlas")
ModelT = TypeVar("ModelT", bound=BaseModel)


class DomainError(Exception):
    status_code = 400
    code = "bad_request"

    def __init__(self, message: str, *, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}


class NotFound(DomainError):
    status_code = 404
    code = "not_found"


class Conflict(DomainError):
    status_code = 409
    code = "conflict"


class Invalid(DomainError):
    """Input that passed the schema but breaks a rule; names the field like a 422 does."""

    status_code = 422
    code = "invalid"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(
            f"{field}: {message}", extra={"errors": [{"field": field, "message": message}]}
        )


class Unauthorized(DomainError):
    status_code = 401
    code = "unauthorized"


class Forbidden(DomainError):
    status_code = 403
    code = "forbidden"


class PayloadTooLarge(DomainError):
    status_code = 413
    code = "payload_too_large"


class Unavailable(DomainError):
    """A part the request needs (the database) does not answer: try again later."""

    status_code = 503
    code = "unavailable"


def error_headers(exc: DomainError) -> dict[str, str] | None:
    if exc.status_code == 401:
        return {"WWW-Authenticate": "Bearer"}
    if exc.status_code == 503:
        return {"Retry-After": str(outage.RETRY_AFTER_SECONDS)}
    return None


class FieldError(BaseModel):
    field: str = Field(description="where: body.runs[3].results[0].unit, query.limit, file")
    message: str


class ErrorBody(BaseModel):
    """Every error the API answers (4xx and 5xx) has this shape."""

    detail: str = Field(description="what is wrong, for a person; a 422 starts with the field")
    code: str = Field(description="invalid, validation_error, not_found, conflict, unauthorized…")
    errors: list[FieldError] = Field(
        default_factory=list, description="each field that is wrong (422 only)"
    )
    uuids: list[str] = Field(
        default_factory=list, description="the run uuids stored with another body (409 only)"
    )


def validated_json(model: type[ModelT], raw: bytes | bytearray) -> ModelT:
    """`model` validated from a body's bytes; a 422 naming each field at fault."""
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise body_invalid(exc.errors()) from None


def body_invalid(errors: Sequence[Any]) -> RequestValidationError:
    """A 422 of pydantic's errors located in the body."""
    return RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in errors])


def _field_path(loc: tuple[Any, ...] | list[Any]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif item in ("body", "query", "path", "header", "form") and not parts:
            parts.append(str(item))
        else:
            parts.append(f".{item}" if parts else str(item))
    return "".join(parts)


def _validation_errors(exc: RequestValidationError) -> list[dict[str, str]]:
    errors: list[dict[str, str]] = []
    for err in exc.errors():
        loc = list(err.get("loc", ()))
        # Pydantic adds the union member or validator name to the path; drop what is not a field.
        loc = [
            p for p in loc if not (isinstance(p, str) and ("[" in p or p.startswith("function-")))
        ]
        # A check of a whole JSON field names the key inside it (core.inputs.invalid).
        loc += list((err.get("ctx") or {}).get("path", ()))
        message = str(err.get("msg", "invalid"))
        message = message.removeprefix("Value error, ")
        bound = (err.get("ctx") or {}).get("le", (err.get("ctx") or {}).get("ge"))
        if isinstance(bound, float) and abs(bound) >= 1e16:
            # pydantic writes 1e100 out as 101 digits
            word = "less" if "le" in (err.get("ctx") or {}) else "greater"
            message = f"Input should be {word} than or equal to {bound:g}"
        errors.append({"field": _field_path(loc), "message": message})
    return errors


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"detail": message, "code": code, **extra}


def _line(request: Request) -> str:
    return f"{request.method} {request.url.path}"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(DomainError)
    async def _domain(_: Request, exc: DomainError) -> JSONResponse:
        return JSONResponse(
            error_body(exc.code, exc.message, **exc.extra),
            status_code=exc.status_code,
            headers=error_headers(exc),
        )

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = _validation_errors(exc)
        shown = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        return JSONResponse(
            error_body("validation_error", f"invalid request: {shown}{more}", errors=errors),
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(
            error_body("http_error", str(exc.detail)),
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(DataError)
    @app.exception_handler(psycopg.DataError)
    async def _unstorable(request: Request, exc: Exception) -> JSONResponse:
        # The last line of defence: every input is checked before it reaches the database
        # (core.inputs, api.guard), so this names no field. Logged, to find what slipped by.
        log.warning("the database refused a value on %s %s: %s", request.method,
                    request.url.path, str(getattr(exc, "orig", exc)).splitlines()[0])  # fmt: skip
        return JSONResponse(
            error_body(
                "invalid",
                "the database cannot store or compare a value of this request (a number out "
                "of range, or a NUL character)",
            ),
            status_code=422,
        )

    # Registered by class, so that they are answered where routes raise them (Starlette's last
    # handler, for Exception, answers and then raises again, and the server logs a traceback).
    @app.exception_handler(OperationalError)
    @app.exception_handler(InterfaceError)
    @app.exception_handler(DisconnectionError)
    @app.exception_handler(PoolTimeout)
    @app.exception_handler(psycopg.OperationalError)
    @app.exception_handler(psycopg.InterfaceError)
    async def _database(request: Request, exc: Exception) -> JSONResponse:
        if outage.is_unavailable(exc):
            return await _domain(request, unavailable(_line(request), exc))
        log.error("database error on %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse(
            error_body("internal_error", "internal server error; the server log has the details"),
            status_code=500,
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        if outage.is_unavailable(exc):
            return await _domain(request, unavailable(_line(request), exc))
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(
            error_body("internal_error", "internal server error; the server log has the details"),
            status_code=500,
        )


def unavailable(request_line: str, exc: BaseException) -> Unavailable:
    """The 503 for a database that does not answer: nothing was read or stored, and the same
    request may be sent again (uploads are idempotent by run uuid)."""
    since = outage.mark_down()
    # One line, no traceback: a database restart would otherwise fill the log with them. The
    # driver's message names the host and port, never a password (psycopg leaves it out).
    first = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    log.warning("database unavailable on %s: %s", request_line,
                first[0] if first else type(exc).__name__)  # fmt: skip
    return Unavailable(
        f"the database is not answering (since {since.isoformat(timespec='seconds')}); "
        f"nothing was stored: retry in {outage.RETRY_AFTER_SECONDS} s"
    )
