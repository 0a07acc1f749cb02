"""Canonical JSON and its hash: the identity of a request body, an environment, a series key."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson


def canonical_json(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def content_hash(value: Any) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()
