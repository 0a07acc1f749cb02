"""What the importers share: deterministic run uuids and reading an upload as text."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping

from perfatlas.imports.errors import ImportFormatError

# Fixed forever: changing it would give every re-imported file new run uuids, so a re-import
# would duplicate runs instead of being an idempotent retry. (= uuid5(NAMESPACE_URL,
# "urn:perfatlas:imports"))
NAMESPACE = uuid.UUID("e5b9e804-f7ec-5706-a401-0cabe99443ba")


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def run_uuid(
    kind: str, record: object, *, agent: str, target: str, labels: Mapping[str, str]
) -> uuid.UUID:
    """The same record imported for the same agent, target and labels always gets the same uuid."""
    key = canonical_json(
        {
            "kind": kind,
            "record": record,
            "agent": agent,
            "target": target,
            "labels": sorted(labels.items()),
        }
    )
    return uuid.uuid5(NAMESPACE, key)


def decode_text(data: bytes | str, *, what: str) -> str:
    if isinstance(data, str):
        text = data
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ImportFormatError(
                f"the file is not UTF-8 text (byte {exc.start} is not valid): expected {what}"
            ) from exc
    if not text.strip():
        raise ImportFormatError(f"the file is empty: expected {what}")
    return text
