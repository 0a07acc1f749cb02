"""The OpenAPI document: FastAPI's, with the bodies routes validate themselves and the error
responses every route can give, in the one shape the server sends (core.errors.ErrorBody)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.openapi.utils import get_openapi
from fastapi.routing import iter_route_contexts
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from perfatlas.api.deps import BODY_MODELS
from perfatlas.api.guard import route_facts
from perfatlas.core.errors import ErrorBody

# The operations whose service raises Conflict (a run uuid stored with another body, a
# channel name taken, an agent's name taken, a job's lease lost or the job final already, a
# report's slug taken).
CONFLICTS = frozenset(
    {"create_run", "create_runs_batch", "import_fio", "import_bonnie", "create_channel",
    "update_channel", "enroll_agent", "report_job_progress", "complete_job", "release_job",
    "cancel_job", "create_schedule", "update_schedule", "create_report", "create_reference",
    "put_attachment"}
)  # fmt: skip
# Operations without an API token that still answer 401 (an enrollment token in the body).
TOKEN_IN_BODY = frozenset({"enroll_agent"})
_WRITES = frozenset({"post", "put", "patch"})
_REF = {"$ref": "#/components/schemas/ErrorBody"}
_MEANING = {
    "401": "no API token, or one that is unknown or revoked",
    "403": "the token's scope does not allow this",
    "404": "nothing with this id",
    "409": "stored already, with another body",
    "413": "the request body is larger than PERFATLAS_MAX_BODY_BYTES",
    "422": "a parameter or the body is invalid; the message and `errors` name the field",
    "503": "the database does not answer, or other large uploads fill the server's budget: nothing was stored; retry after Retry-After",
}


def build_openapi(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    models: dict[type[BaseModel], None] = {}
    for context in iter_route_contexts(app.routes):
        dependant = getattr(context, "dependant", None)
        path = schema["paths"].get(getattr(context, "path_format", None) or context.path)
        if not isinstance(dependant, Dependant) or path is None:
            continue
        body = _body_model(dependant)
        if body is not None:
            models[body] = None
        for method in context.methods or ():
            operation = path.get(method.lower())
            if operation is not None:
                if body is not None:
                    operation["requestBody"] = _request_body(body)
                _error_responses(operation, method.lower(), dependant)
    published: list[type[BaseModel]] = [*models, ErrorBody]
    _, defs = models_json_schema(
        [(m, "validation") for m in published],
        ref_template="#/components/schemas/{model}",
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.update(defs["$defs"])
    # FastAPI's own 422 shape, which this server never sends.
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    return schema


def _body_model(dependant: Dependant) -> type[BaseModel] | None:
    """The model of the route's body dependency (api.deps.json_body, json_bytes), if any."""
    for dependency in dependant.dependencies:
        if dependency.call in BODY_MODELS:
            return BODY_MODELS[dependency.call]
    return None


def _request_body(model: type[BaseModel]) -> dict[str, Any]:
    ref = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"required": True, "content": {"application/json": {"schema": ref}}}


def _error_responses(operation: dict[str, Any], method: str, dependant: Dependant) -> None:
    facts = route_facts(dependant)
    codes = {"422"}  # api.guard checks every query (a NUL), whatever the route declares
    if facts.permission is not None:
        codes.add("401")
        if facts.permission != "read":
            codes.add("403")
    if operation.get("operationId") in TOKEN_IN_BODY:
        codes.add("401")
    if dependant.path_params:
        codes.add("404")
    if operation.get("operationId") in CONFLICTS:
        codes.add("409")
    if method in _WRITES:
        codes.add("413")
    responses = operation.setdefault("responses", {})
    if "503" not in responses:  # /health and /ready say what is down in their own shape
        codes.add("503")
    for code in sorted(codes):
        responses[code] = {
            "description": _MEANING[code],
            "content": {"application/json": {"schema": _REF}},
        }
