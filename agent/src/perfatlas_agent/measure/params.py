"""Workload parameters: declared specs, parsing of `--param k=v` values and sweep expansion."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from perfatlas_agent.errors import ParameterError

ParamValue = bool | int | float | str
Kind = Literal["int", "size", "bool", "str", "choice", "threads", "float"]

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)
_MULT = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
# A free-form value that is a size only if it says so: a number with a unit (4k, 1M, 30B).
_SUFFIXED_RE = re.compile(r"^\s*\d+(?:\.\d+)?\s*(?:[kmgt](?:i?b)?|b)\s*$", re.IGNORECASE)


class SizeText(int):
    """A size written with a suffix (`128k`): stored as bytes, so it plots on a numeric axis,
    and given to a command as written (`{segsize}` becomes `128k`)."""

    text: str

    def __new__(cls, value: int, text: str) -> SizeText:
        obj = super().__new__(cls, value)
        obj.text = text
        return obj

    def __copy__(self) -> SizeText:
        return self

    def __deepcopy__(self, memo: object) -> SizeText:
        return self


def as_written(value: ParamValue) -> str:
    """A parameter as the user wrote it (sizes with their suffix), for commands."""
    if isinstance(value, SizeText):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_size(text: str) -> int:
    """Bytes from `30B`, `4k`, `4KiB`, `1M`, `2g`; suffixes are binary (k = 1024)."""
    m = _SIZE_RE.match(text)
    if not m:
        raise ParameterError(f"not a size: {text!r} (examples: 30B, 4k, 1MiB, 2G)")
    number, prefix, _ = m.groups()
    value = float(number) * _MULT[prefix.lower()]
    if value != int(value):
        raise ParameterError(f"size {text!r} is not a whole number of bytes")
    return int(value)


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on", "y"):
        return True
    if lowered in ("0", "false", "no", "off", "n"):
        return False
    raise ParameterError(f"not a boolean: {text!r} (use true or false)")


@dataclass(frozen=True)
class ParamSpec:
    name: str
    kind: Kind
    default: ParamValue | None
    help: str
    choices: tuple[str, ...] = ()
    sweepable: bool = True
    # Other spellings of a choice, kept for older command lines (fsync=true means file).
    aliases: tuple[tuple[str, str], ...] = ()
    # Left unset, the parameter sweeps these values (extract runs tar and its threads).
    default_sweep: tuple[ParamValue, ...] = ()

    def parse(self, text: str) -> ParamValue:
        try:
            if self.kind == "int":
                return int(text)
            if self.kind == "float":
                return float(text)
            if self.kind == "size":
                return parse_size(text)
            if self.kind == "bool":
                return parse_bool(text)
            if self.kind == "threads":
                if text.strip().lower() == "auto":
                    return "auto"
                value = int(text)
                if value < 1:
                    raise ParameterError(f"{self.name} must be >= 1 or auto")
                return value
            if self.kind == "choice":
                text = dict(self.aliases).get(text.strip().lower(), text)
                if text not in self.choices:
                    raise ParameterError(
                        f"{self.name} must be one of {', '.join(self.choices)}, not {text!r}"
                    )
                return text
        except ValueError as exc:
            raise ParameterError(f"bad value for {self.name}: {text!r} ({exc})") from exc
        return text

    def describe_default(self) -> str:
        if self.default_sweep:
            return ",".join(str(v) for v in self.default_sweep)
        if self.default is None:
            return "-"
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        return str(self.default)


def parse_assignments(items: Iterable[str], what: str = "--param") -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise ParameterError(f"{what} expects k=v, got {item!r}")
        key, value = item.split("=", 1)
        key = key.strip()
        if not key:
            raise ParameterError(f"{what} expects k=v, got {item!r}")
        out[key] = value
    return out


def _loose(text: str) -> ParamValue:
    """A free-form parameter: an int, a float, a size with a suffix (as bytes), else text."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if _SUFFIXED_RE.match(text):
        try:
            return SizeText(parse_size(text), text.strip())
        except ParameterError:  # not a whole number of bytes (0.3k): keep it as text
            return text
    return text


def expand_sweep(
    specs: Sequence[ParamSpec], given: Mapping[str, str | list[str]], *, allow_extra: bool = False
) -> list[dict[str, ParamValue]]:
    """Cartesian product of the given values over the defaults. A text sweeps on its commas
    (`--param k=a,b`); a list (a spec's) gives its values as they are, commas included."""
    by_name = {s.name: s for s in specs}
    unknown = sorted(set(given) - set(by_name))
    if allow_extra:
        for name in unknown:
            if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
                raise ParameterError(f"bad parameter name {name!r}")
        specs = [*specs, *(ParamSpec(n, "str", None, "extra", ()) for n in unknown)]
        unknown = []
    if unknown:
        known = ", ".join(s.name for s in specs)
        raise ParameterError(f"unknown parameter(s) {', '.join(unknown)}; known: {known}")
    axes: list[list[tuple[str, ParamValue]]] = []
    for spec in specs:
        if spec.name in given:
            raw = given[spec.name]
            parse = spec.parse if spec.help != "extra" else _loose
            if isinstance(raw, list):
                if len(raw) > 1 and not spec.sweepable:
                    raise ParameterError(f"{spec.name} takes one value, not a list to sweep")
                values = [parse(t) for t in raw]
            else:
                texts = raw.split(",") if spec.sweepable else [raw]
                values = [parse(t.strip() if spec.sweepable else t) for t in texts if t != ""]
            if not values:
                raise ParameterError(f"empty value for {spec.name}")
            axes.append([(spec.name, v) for v in values])
        elif spec.default_sweep:
            axes.append([(spec.name, v) for v in spec.default_sweep])
        elif spec.default is not None:
            axes.append([(spec.name, spec.default)])
    return [dict(point) for point in itertools.product(*axes)]
