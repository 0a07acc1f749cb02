"""CSV downloads: every exported table is written and named the same way."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import Any

from fastapi import Response


def csv_response(rows: Iterable[Iterable[Any]], filename: str) -> Response:
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    # The name may come from the query: a header holds only latin-1, and no quote or line break.
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", filename)
    return Response(
        content=buffer.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{safe}"'},
    )
