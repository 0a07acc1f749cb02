"""Fast JSON responses for large, already-validated payloads."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import Response


def json_response(content: Any, status_code: int = 200) -> Response:
    return Response(
        content=orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS),
        status_code=status_code,
        media_type="application/json",
    )
