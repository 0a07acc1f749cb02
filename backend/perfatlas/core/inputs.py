"""What the databases can store, checked before anything is written.

PostgreSQL text and JSONB cannot hold a NUL character; INTEGER and BIGINT columns have a range;
timestamptz has one too, and Python's datetime cannot move year 1 or 9999 across an offset.
Each check raises a pydantic error whose `path` (in its context) says which key inside the
field is wrong, so the 422 names it: `body.runs[0].environment.cores`."""

from __future__ import annotations

import datetime as dt
import math
from typing import Annotated, Any

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

INT32_MAX = 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# Samples and values are summed, squared and averaged (here and in SQL); beyond this even a
# million of them could not be squared and summed in a double.
MAX_MAGNITUDE = 1e100
# Runs are measurements: none ran before the epoch, and none finishes in the future (a day of
# leeway for clocks that are off, not time zones: every timestamp is converted to UTC first).
EARLIEST = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
FUTURE_LEEWAY = dt.timedelta(days=1)
NUL_MESSAGE = "must not contain a NUL character (\\u0000): the database cannot store it"

Path = tuple[str | int, ...]


def invalid(message: str, path: Path = ()) -> PydanticCustomError:
    """A validation error; `path` extends the field's location in the 422."""
    return PydanticCustomError("invalid", message, {"path": path} if path else None)


def no_nul(value: str) -> str:
    if "\x00" in value:
        raise invalid(NUL_MESSAGE)
    return value


def check_int(value: int, *, low: int, high: int, path: Path = ()) -> int:
    if not low <= value <= high:
        raise invalid(f"{value} is out of range: the database stores {low} to {high} here", path)
    return value


def bigint(value: int | None) -> int | None:
    """For a BIGINT column."""
    return None if value is None else check_int(value, low=INT64_MIN, high=INT64_MAX)


def check_json(value: Any, path: Path = ()) -> Any:
    """Free-form JSON (environment, meta, parameters) as both PostgreSQL JSONB and SQLite JSON
    keep it and give it back: no NUL in keys or strings, numbers finite and within 64 bits."""
    try:
        _walk(value)
    except _Bad as bad:
        raise invalid(bad.message, (*path, *reversed(bad.path))) from None
    return value


class _Bad(Exception):
    def __init__(self, message: str) -> None:
        self.message = message
        self.path: list[str | int] = []  # innermost first, filled in on the way out


def _bad_scalar(value: Any) -> _Bad | None:
    kind = type(value)
    if kind is str:
        if "\x00" in value:
            return _Bad(NUL_MESSAGE)
    elif kind is int:
        if not INT64_MIN <= value <= INT64_MAX:
            return _Bad(f"{value} is out of range: the database stores {INT64_MIN} to {INT64_MAX}")
    elif kind is float and not -INT64_MAX <= value <= INT64_MAX:  # NaN too
        if not math.isfinite(value):
            return _Bad("must be a finite number")
        # PostgreSQL's JSONB writes 1e20 back as 100000000000000000000, an integer that no
        # longer fits 64 bits when read.
        return _Bad(f"{value:g} is too large: at most {INT64_MAX:.3e} in JSON here")
    return None


def _walk(value: Any) -> None:
    """Runs for every upload's environment, meta and parameters: plain type checks inline,
    and the path of a bad value built only when there is one."""
    if type(value) is dict:
        items: Any = value.items()
    elif type(value) is list:
        items = enumerate(value)
    else:
        alone = _bad_scalar(value)
        if alone is not None:
            raise alone
        return
    for key, item in items:
        if type(key) is str and "\x00" in key:
            key_error = _Bad(f"a key {NUL_MESSAGE}")
            key_error.path.append(key.replace("\x00", "\\u0000"))
            raise key_error
        kind = type(item)
        if kind is dict or kind is list:
            try:
                _walk(item)
            except _Bad as inner:
                inner.path.append(key)
                raise
        elif (kind is str and "\x00" in item) or kind is int or kind is float:
            found = _bad_scalar(item)
            if found is not None:
                found.path.append(key)
                raise found


def json_object(value: dict[str, Any]) -> dict[str, Any]:
    check_json(value)
    return value


def utc(value: dt.datetime) -> dt.datetime:
    """The time in UTC (naive means UTC); a time that cannot be moved to UTC is refused."""
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    try:
        return value.astimezone(dt.UTC)
    except OverflowError:
        raise invalid("is out of range once converted to UTC") from None


def run_time(value: dt.datetime) -> dt.datetime:
    """When a run started or finished: in UTC, from 1970 up to a day from now."""
    value = utc(value)
    latest = dt.datetime.now(dt.UTC) + FUTURE_LEEWAY
    if value < EARLIEST or value > latest:
        raise invalid(
            f"{value.isoformat()} is outside the times a run can have "
            f"(from {EARLIEST.date()} to a day from now, {latest.replace(microsecond=0).isoformat()})"
        )
    return value


# A time filter in a query: any time that exists in UTC.
UTCTime = Annotated[dt.datetime, AfterValidator(utc)]
# A run's time (the importers' started_at).
RunTime = Annotated[dt.datetime, AfterValidator(run_time)]
