"""What an attachment may be called and typed as, and how it is named in a download."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote

MAX_NAME_CHARS = 255
MAX_MEDIA_TYPE_CHARS = 127
DEFAULT_MEDIA_TYPE = "application/octet-stream"
# RFC 6838 type/subtype, with parameters (charset=utf-8) after a semicolon.
_TOKEN = r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}"
_MEDIA_TYPE = re.compile(
    rf"^{_TOKEN}/{_TOKEN}(\s*;\s*[A-Za-z0-9_.-]+=(\"[ -~]*\"|[A-Za-z0-9_.+-]+))*$"
)


def name_problem(name: str) -> str | None:
    """Why this cannot name an attachment (None: it can). A name is one file name, shown and
    downloaded as is: no folders, no control characters, no surprises for a shell."""
    if not name:
        return "must not be empty"
    if len(name) > MAX_NAME_CHARS:
        return f"is {len(name)} characters long; at most {MAX_NAME_CHARS}"
    if "/" in name or "\\" in name:
        return "must be a file name, without a path separator (/ or \\)"
    if name in (".", ".."):
        return "must be a file name, not . or .."
    if "\x00" in name:
        return "must not contain a NUL character"
    for char in name:
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            return f"must not contain control or invisible characters (U+{ord(char):04X})"
    if name != name.strip():
        return "must not begin or end with white space"
    return None


def media_type_problem(media_type: str) -> str | None:
    if len(media_type) > MAX_MEDIA_TYPE_CHARS:
        return f"is longer than {MAX_MEDIA_TYPE_CHARS} characters"
    if not _MEDIA_TYPE.match(media_type):
        return f"{media_type[:60]!r} is not a media type (type/subtype, e.g. text/csv)"
    return None


def content_disposition(name: str) -> str:
    """`attachment` with an ASCII fallback name and the exact name in RFC 5987 form: a header
    holds no quote, backslash or non-latin-1 character, and the browser saves, never shows."""
    ascii_name = re.sub(r"[^A-Za-z0-9._ ()+-]", "_", name).strip(" .") or "attachment"
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"


def download_path(run_uuid: str, name: str) -> str:
    return f"/api/v1/runs/{run_uuid}/attachments/{quote(name, safe='')}"
