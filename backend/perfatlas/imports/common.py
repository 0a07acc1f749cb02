"""What the importers share: deterministic run uuids and reading an upload as text."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import ValidationError

from perfatlas.core.measurement import MAX_BATCH_RUNS, RunCreate
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


@dataclass(frozen=True, slots=True)
class Skipped:
    """A value the file holds where a number belongs, but that is not one (NaN, text)."""

    job: str
    field: str
    value: str


@dataclass(slots=True)
class Parsed:
    runs: list[RunCreate]
    # The file gave no time and the caller none: the runs are stamped with the time of this
    # import, and a re-import keeps the time of the first one (imports.service).
    timeless: bool
    skipped: list[Skipped] = field(default_factory=list)


def shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def check_run_count(count: int, *, what: str) -> None:
    if count > MAX_BATCH_RUNS:
        raise ImportFormatError(
            f"the file holds {count} {what}, one run each; one import stores at most "
            f"{MAX_BATCH_RUNS} runs (the batch limit): split the file"
        )


def invalid_run(exc: ValidationError, *, where: str) -> ImportFormatError:
    """A run the file gave that the run schema refuses, with the field it names."""
    error = exc.errors()[0]
    loc = [*error.get("loc", ()), *(error.get("ctx") or {}).get("path", ())]
    name = ".".join(str(p) for p in loc if not (isinstance(p, str) and "[" in p)) or "run"
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return ImportFormatError(f"{where}: {name}: {message}{more}")
