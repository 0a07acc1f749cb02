"""A JSON Schema check for the server's published spec schema (workload_spec.schema.json),
with messages a person can act on: `spec field targets[1]: expected a folder path, not ''`.

Only the keywords that schema uses are known; a schema with any other keyword is refused
when it is loaded (UnknownKeyword), so that a server that starts using one fails the agent's
tests instead of being half checked. The words a message uses for a field (a workload name, a
folder path...) come from the caller (`nouns`, by the field's path with [] for a list's items
and {} for an object's values); the bounds always come from the schema."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from perfatlas_agent.errors import SpecError

# The keywords understood; `title`, `description` and `default` say nothing to check.
KEYWORDS = frozenset(
    {"type", "properties", "additionalProperties", "required", "items", "anyOf", "minItems"}
    | {"maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum", "title"}
    | {"description", "default"}
)
_TYPE_WORDS = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "array": "list",
    "object": "object",
    "null": "null",
}


class UnknownKeyword(RuntimeError):
    """The schema uses a keyword this check does not implement: a bug of the agent's (its
    tests catch it when the server's schema changes), never a user's error."""


def check_keywords(schema: Mapping[str, Any], where: str = "#") -> None:
    unknown = sorted(set(schema) - KEYWORDS)
    if unknown:
        raise UnknownKeyword(f"{where}: the spec schema uses {', '.join(unknown)}")
    for name, sub in schema.get("properties", {}).items():
        check_keywords(sub, f"{where}/properties/{name}")
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        check_keywords(extra, f"{where}/additionalProperties")
    if "items" in schema:
        check_keywords(schema["items"], f"{where}/items")
    for i, sub in enumerate(schema.get("anyOf", ())):
        check_keywords(sub, f"{where}/anyOf/{i}")


def is_type(value: Any, kind: str) -> bool:
    """JSON's types over what json.loads makes (a bool is no number; 2.0 is no integer)."""
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return kind == "null" and value is None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _child(shown: str, key: str, name: str) -> str:
    """A property's name as shown: a top-level field by its name, a nested one dotted."""
    return name if not key else f"{shown}.{name}"


def _anchored(pattern: str) -> re.Pattern[str]:
    """JSON Schema's `$` is the end of the text; Python's also matches before a last newline."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


class Checker:
    def __init__(self, schema: Mapping[str, Any], nouns: Mapping[str, str]) -> None:
        check_keywords(schema)
        self.schema = schema
        self.nouns = nouns

    def check(self, value: Any) -> dict[str, Any]:
        """The value with the schema's defaults filled in (the value must be an object); the
        first problem raised as a SpecError naming the field."""
        self._check(self.schema, value, shown="(spec)", key="")
        out = dict(value)
        for name, sub in self.schema.get("properties", {}).items():
            if name not in out and "default" in sub:
                out[name] = sub["default"]
        return out

    def _check(self, schema: Mapping[str, Any], value: Any, *, shown: str, key: str) -> None:
        if "anyOf" in schema:
            self._any_of(schema["anyOf"], value, shown=shown, key=key)
            return
        kind = schema.get("type")
        if kind is not None and not is_type(value, kind):
            raise SpecError(shown, self._expected(schema, key, value))
        if kind == "object":
            self._object(schema, value, shown=shown, key=key)
        elif kind == "array":
            self._array(schema, value, shown=shown, key=key)
        elif kind == "string":
            self._string(schema, value, shown=shown, key=key)
        elif kind in ("integer", "number"):
            low, high = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
            if not low <= value <= high:  # NaN is never within
                raise SpecError(shown, self._expected(schema, key, value))

    def _any_of(self, branches: list[Any], value: Any, *, shown: str, key: str) -> None:
        """The first branch of the value's type decides (its own message when it fails)."""
        for branch in branches:
            if "type" in branch and is_type(value, branch["type"]):
                self._check(branch, value, shown=shown, key=key)
                return
        words: list[str] = []
        for branch in branches:
            word = _TYPE_WORDS.get(branch.get("type", ""), "value")
            if word not in words:
                words.append(word)
        listed = ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else words[0]
        raise SpecError(shown, f"expected a {listed}, not {type(value).__name__}")

    def _object(self, schema: Mapping[str, Any], value: dict[str, Any], *, shown: str,
                key: str) -> None:  # fmt: skip
        properties: Mapping[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        if extra is False:
            unknown = sorted(set(value) - set(properties))
            if unknown:
                raise SpecError(_child(shown, key, unknown[0]),
                                f"unknown field; known: {', '.join(properties)}")  # fmt: skip
        for name in schema.get("required", ()):
            if name not in value:
                raise SpecError(_child(shown, key, name), "missing (required)")
        for name, sub in properties.items():
            if name in value:
                self._check(sub, value[name], shown=_child(shown, key, name),
                            key=f"{key}.{name}" if key else name)  # fmt: skip
        if isinstance(extra, Mapping):
            for name, item in value.items():
                if name not in properties:
                    self._check(extra, item, shown=f"{shown}.{name}", key=f"{key}{{}}")

    def _array(self, schema: Mapping[str, Any], value: list[Any], *, shown: str,
               key: str) -> None:  # fmt: skip
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", math.inf):
            raise SpecError(shown, self._expected(schema, key, value))
        if "items" in schema:
            for i, item in enumerate(value):
                self._check(schema["items"], item, shown=f"{shown}[{i}]", key=f"{key}[]")

    def _string(self, schema: Mapping[str, Any], value: str, *, shown: str, key: str) -> None:
        low, high = schema.get("minLength", 0), schema.get("maxLength", math.inf)
        noun = self.nouns.get(key)
        if noun is None and len(value) > high:
            raise SpecError(shown, f"longer than {high} characters")
        pattern = schema.get("pattern")
        if not low <= len(value) <= high or (
            pattern is not None and not _anchored(pattern).search(value)
        ):
            raise SpecError(shown, self._expected(schema, key, value))

    def _expected(self, schema: Mapping[str, Any], key: str, value: Any) -> str:
        """`expected <what the schema asks>, not <value>`, in the words of `nouns`."""
        noun = self.nouns.get(key)
        kind = schema.get("type")
        if kind == "object":
            return f"expected {noun or 'an object'}"
        if kind == "array":
            low, high = schema.get("minItems", 0), schema.get("maxItems")
            items = noun or "values"
            size = f"{low} to {high}" if high is not None else f"at least {low}"
            return f"expected a list of {size} {items}"
        if kind == "boolean":
            return f"expected true or false, not {_shown(value)}"
        if kind in ("integer", "number"):
            what = "a whole number" if kind == "integer" else (noun or "a number")
            low, high = schema.get("minimum"), schema.get("maximum")
            if low is not None and high is not None:
                what += f" from {_number(low)} to {_number(high)}"
            elif low is not None:
                what += f" of at least {_number(low)}"
            elif high is not None:
                what += f" of at most {_number(high)}"
            return f"expected {what}, not {_shown(value)}"
        if noun is None:
            noun = "a text"
            high = schema.get("maxLength")
            if high is not None:
                noun += f" of at most {high} characters"
        return f"expected {noun}, not {_shown(value)}"
