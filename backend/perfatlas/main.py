"""create_app(): the FastAPI application with its routers, error handlers and the built UI."""

from __future__ import annotations

import gc
import logging
import mimetypes
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse

from perfatlas import __version__
from perfatlas.api.admission import Admission
from perfatlas.api.compression import Compression
from perfatlas.api.guard import RequestGuard
from perfatlas.api.openapi import build_openapi
from perfatlas.api.router import api_router
from perfatlas.api.timing import RequestTiming
from perfatlas.core.config import Settings, get_settings
from perfatlas.core.db import get_engine, session_factory
from perfatlas.core.errors import install_error_handlers
from perfatlas.core.limits import BodyBudget, BodySizeLimit
from perfatlas.flows.group_commit import GroupCommit

UI_DIST = Path(__file__).resolve().parents[2] / "frontend" / "dist"

_NO_UI = """<!doctype html><html><head><meta charset="utf-8"><title>PerfAtlas</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>PerfAtlas</h1><p>The API is running. The web UI has not been built into
<code>frontend/dist</code> yet.</p>
<ul><li><a href="/docs">API documentation</a> (OpenAPI)</li>
<li><a href="/api/v1/health">Health</a></li></ul></body></html>"""


YOUNG_GENERATION = 50_000


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    logging.basicConfig(level=settings.log_level.upper())
    app = FastAPI(
        title="PerfAtlas",
        version=__version__,
        description="Storage and filesystem performance history: upload runs, explore, compare.",
    )
    app.state.settings = settings
    engine = get_engine(settings.effective_database_url)
    app.state.engine = engine
    app.state.session_factory = session_factory(engine)
    # Uploads arriving while two groups are being stored queue, and are stored together as the
    # next group (flows/group_commit.py).
    app.state.group_commit = GroupCommit()
    install_error_handlers(app)
    # Innermost: at most ADMITTED requests to plain-function routes at once (api/admission.py).
    app.add_middleware(Admission)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    # Large bodies in memory at once, bounded (core/limits.py); past the token check, so a
    # request without one takes no share.
    app.add_middleware(
        BodyBudget, budget=settings.max_inflight_body_bytes,
        wait_seconds=settings.upload_wait_seconds,
    )  # fmt: skip
    # Outside those: a write's token is checked before its size or body is looked at.
    app.add_middleware(RequestGuard)
    # Around everything: answers of a few kB and more gzipped for clients that accept it.
    app.add_middleware(Compression)
    # Outermost (added last): every request is timed, refused ones too (/metrics).
    app.add_middleware(RequestTiming)
    app.include_router(api_router)

    if (UI_DIST / "index.html").is_file():
        _serve_ui(app, UI_DIST)
    else:

        @app.get("/", include_in_schema=False)
        def root() -> HTMLResponse:
            return HTMLResponse(_NO_UI)

    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    # Everything loaded so far (modules, the app) lives as long as the process: out of the
    # collector's sight, a full collection looks only at what requests created. Uploads create
    # enough objects to set off several a batch; each scanned every module again before.
    gc.freeze()
    # A youngest generation of 50,000 objects, not 700: validating a batch of 1,000 runs makes
    # about that many containers, all alive until the response, so at 700 every batch set off
    # some seventy collections that found no garbage and pushed the batch into the older
    # generations, where it cost full collections too (the API's CPU per result: 14 %
    # less in an upload A/B). Garbage cycles wait a little longer to be found; it is little.
    gc.set_threshold(YOUNG_GENERATION, *gc.get_threshold()[1:])
    return app


def _serve_ui(app: FastAPI, dist: Path) -> None:
    """The built web UI at /: its files, and index.html for every other GET (the UI routes
    /explore?... itself). /api/* and the docs stay the API's; hashed assets are cached for good
    and sent gzipped when the build left a .gz beside them."""
    root = dist.resolve()
    index = root / "index.html"

    @app.api_route("/{path:path}", methods=["GET", "HEAD"], include_in_schema=False)
    def ui(path: str, request: Request) -> FileResponse:
        if path == "api" or path.startswith("api/"):
            raise HTTPException(status_code=404, detail=f"no API route /{path}")
        file = (root / path).resolve() if path else index
        if path.startswith("assets/") and not file.is_file():
            # An asset of an older build: a 404, not index.html parsed as a script.
            raise HTTPException(status_code=404, detail=f"no file /{path}")
        if file == index or not file.is_file() or root not in file.parents:
            return FileResponse(index, headers={"Cache-Control": "no-cache"})
        headers = {"Vary": "Accept-Encoding"}
        if path.startswith("assets/"):
            headers["Cache-Control"] = "public, max-age=31536000, immutable"
        gz = file.with_name(file.name + ".gz")
        if "gzip" in request.headers.get("accept-encoding", "") and gz.is_file():
            headers["Content-Encoding"] = "gzip"
            return FileResponse(gz, headers=headers, media_type=_media_type(file))
        return FileResponse(file, headers=headers)


def _media_type(file: Path) -> str:
    return mimetypes.guess_type(file.name)[0] or "application/octet-stream"


def _openapi(app: FastAPI) -> dict[str, Any]:
    if app.openapi_schema is None:
        app.openapi_schema = build_openapi(app)
    return app.openapi_schema
