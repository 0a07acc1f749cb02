"""The natural order of dimension values: versions by their parts, numbers as numbers, words last.

2.1.9 < 2.1.10 < 2.2.0-rc1 < 2.2.0 < 2.2.0-1, 6.1 < 6.10, 6.1.0-18-amd64 < 6.10.0-1-amd64, and
words that are not versions (trunk, main, latest) after every version. The same rules are in
frontend/src/lib/natural.ts (their tests share the examples). An explicit order for a
dimension (`version:*,trunk`: the rest in natural order, then trunk) is read by `parse_orders`
and applied by `ordered`."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from perfatlas.core.errors import Invalid

T = TypeVar("T")

_TOKEN = re.compile(r"\d+|[a-z]+", re.IGNORECASE)
# A letter run that marks a pre-release: it sorts before the end of the version, so that
# 2.2.0-rc1 < 2.2.0 (while 2.2.0-1, a build, comes after 2.2.0). Rank: dev < alpha < beta < rc.
_PRE = {"dev": 0, "alpha": 1, "a": 1, "beta": 2, "b": 2, "pre": 3, "preview": 3, "rc": 4, "c": 4}
# A number as JSON writes it: a fraction never ends in 0 unless it is `.0`, so `6.10` is a
# version (6, 10) and not the number 6.1.
_PLAIN_NUMBER = re.compile(r"^-?\d+(\.(\d*[1-9]|0))?([eE][-+]?\d+)?$")

# Parts of a version: (kind, ...), kinds chosen so that two parts of different kinds never
# compare their second members: a pre-release tag < the end < a number < a letter run.
_END = (1,)


def _parts(text: str) -> tuple[tuple[Any, ...], ...]:
    parts: list[tuple[Any, ...]] = []
    for token in _TOKEN.findall(text):
        if token.isdigit():
            parts.append((2, int(token)))
        elif token.lower() in _PRE and parts:
            parts.append((0, _PRE[token.lower()], token.lower()))
        else:
            parts.append((3, token.lower()))
    parts.append(_END)
    return tuple(parts)


def is_version(text: str) -> bool:
    """Starts with a digit (after an optional v): 2.1.9, 6.1.0-18-amd64, v1.2, 20240101."""
    body = text[1:] if text[:1] in ("v", "V") and text[1:2].isdigit() else text
    return body[:1].isdigit()


def plain_number(value: Any) -> float | None:
    """value as a number if it is one as JSON writes numbers (not 6.10, not a bool)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str) and _PLAIN_NUMBER.match(value):
        number = float(value)
        return number if math.isfinite(number) else None
    return None


def natural_key(value: Any) -> tuple[Any, ...]:
    """The sort key of one value: versions and numbers first (by their parts: 6.1 < 6.10), then
    words (case-insensitively), then None. Distinct values never tie (their text breaks ties), so
    the order is total and a sort by it is the same whatever the input order."""
    if value is None:
        return (3,)
    if isinstance(value, bool):
        text = "true" if value else "false"
        return (2, text, text)
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return (2, str(value).lower(), str(value))
        return (0, ((2, value), _END), str(value), 0)  # a number before the same text
    text = str(value)
    if is_version(text):
        body = text[1:] if text[:1] in ("v", "V") else text
        return (0, _parts(body), text, 1)
    return (1, _parts(text), text)


def natural_sorted(values: Iterable[T], key: Callable[[T], Any] | None = None) -> list[T]:
    """values in natural order; when every one is a plain number, as numbers (0.25 < 0.5, which
    as versions would be 0.5 < 0.25); None last."""
    items = list(values)
    get: Callable[[T], Any] = key or (lambda v: v)
    numbers = [plain_number(get(v)) for v in items]
    if items and all(n is not None or get(v) is None for n, v in zip(numbers, items, strict=True)):
        pairs = sorted(
            zip(numbers, items, strict=True),
            key=lambda p: (p[0] is None, p[0] or 0.0, natural_key(get(p[1]))),
        )
        return [v for _, v in pairs]
    return sorted(items, key=lambda v: natural_key(get(v)))


REST = "*"
MAX_ORDER_VALUES = 200


def parse_orders(items: Sequence[str], *, field: str = "order") -> dict[str, list[str]]:
    """`dimension:v1,v2,...` items (a `*` stands for every other value, in natural order; left
    out, they come after the listed ones): the explicit order of each dimension named."""
    orders: dict[str, list[str]] = {}
    for item in items:
        name, sep, listed = item.partition(":")
        name = name.strip()
        if not sep or not name:
            raise Invalid(field, f"{item!r} is not of the form dimension:value,value,... ")
        values = [v.strip() for v in listed.split(",") if v.strip()]
        if not values:
            raise Invalid(field, f"{item!r} lists no value")
        if len(values) > MAX_ORDER_VALUES:
            raise Invalid(field, f"{name}: at most {MAX_ORDER_VALUES} values")
        if len(set(values)) != len(values):
            raise Invalid(field, f"{name}: a value is listed twice in {listed!r}")
        if name in orders:
            raise Invalid(field, f"{name}: one order per dimension")
        orders[name] = values
    return orders


def order_for(orders: Mapping[str, list[str]], name: str | None) -> list[str] | None:
    """The order given for dimension `name`, whether it was named `label.X`, `param.X` or X."""
    if not name:
        return None
    bare = name.partition(".")[2] if name.startswith(("label.", "param.")) else name
    for candidate in (name, bare, f"label.{bare}", f"param.{bare}"):
        if candidate in orders:
            return orders[candidate]
    return None


def ordered(
    values: Iterable[T], order: Sequence[str] | None = None, key: Callable[[T], Any] | None = None
) -> list[T]:
    """values in natural order, or in `order` (its values where it lists them, the others in
    natural order where its `*` is, or after them). None stays last."""
    items = natural_sorted(values, key)
    if not order:
        return items
    get: Callable[[T], Any] = key or (lambda v: v)
    place = {text: i for i, text in enumerate(order)}
    rest = place.get(REST, len(order))

    def slot(value: T) -> tuple[int, int]:
        text = get(value)
        if text is None:
            return (1, 0)
        return (0, place.get(str(text), rest))

    return sorted(items, key=slot)  # stable: the natural order within the rest
