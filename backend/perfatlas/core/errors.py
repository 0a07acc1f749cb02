"""Domain exceptions and the one JSON error shape every client sees."""

from __future__ import annotations

import logging
from typing import Any

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy.exc import DataError
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("perfatlas")


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


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(DomainError)
    async def _domain(_: Request, exc: DomainError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status_code == 401 else None
        return JSONResponse(
            error_body(exc.code, exc.message, **exc.extra),
            status_code=exc.status_code,
            headers=headers,
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

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(
            error_body("internal_error", "internal server error; the server log has the details"),
            status_code=500,
        )
