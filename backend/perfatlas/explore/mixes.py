"""What an explore point pools, and the split that keeps it from pooling unlike runs.

Before the points are computed, one statement reads what each point will hold, pair by pair:
the (series, variant) pairs of the folded runs (one digest row each, rollups/models.py) with
their variants' facts, and the distinct series and run facts of the pending runs, with how many
results each row stands for (the sum decides between the exact and the sketched read). A series
fixes the parameters and the target, a variant the agent, filesystem, labels and durability
facts, so these few rows say, per point, which parameters, durability facts, agents, targets,
filesystems and labels vary behind it.

Parameters and durability facts that vary within a point (x = time: along a trace) split the
traces by default, unless the request pools them (pool=NAME, or split=none for all); the split
is a longer group key, computed by the same statements that compute the points (service.py).
What still varies is named, per point and per trace (`mixes`). A time filter is not applied to
the pairs (a digest holds every start time): a point may name a value its runs in the range
lack."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Any

from sqlalchemy import Select, String, cast, func, literal, literal_column, null, union_all
from sqlalchemy.orm import Session, aliased
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.agents.models import Agent
from perfatlas.core.durability import DURABILITY_FIELDS
from perfatlas.core.errors import Invalid
from perfatlas.explore import dims
from perfatlas.explore.aggregate import Query, select_results
from perfatlas.explore.rolled import Rolled, kept, on_variant, variant_rows
from perfatlas.rollups.models import ExploreDigest, RunVariant
from perfatlas.runs import dimensions
from perfatlas.runs.dimensions import RUNS, SERIES, Dimension
from perfatlas.runs.models import Environment, Result, RollupPending, Run, Series

NONE = "none"  # split=none: no split but the ones asked
MAX_VALUES = 12
SEP = "\x1f"  # between the parts of a split group key (names and values never hold it)
DURABILITY_REASONS = {
    "memory_backed": "memory-backed (tmpfs, ramfs): fsync does not reach stable storage",
    "no_flush": "the device does not flush: fsync does not reach stable storage",
}
# Dimensions a fact holds besides parameters, labels and durability facts.
_PLAIN = ("agent", "target", "fs_type")
# Durability facts in the order they split by: memory-backed media first, which also explains
# the no-flush that follows from it.
_DURABILITY_ORDER = ("fsync_policy", "memory_backed", "flush_to_device", "o_direct", "sync_mount",
                     "write_cache", "cold_method")  # fmt: skip
assert set(_DURABILITY_ORDER) == set(DURABILITY_FIELDS)
Facts = dict[str, str | None]
Key = tuple[Any, Any]


def text(value: Any) -> str | None:
    """A JSON value as explore's dimensions name it (dimensions.json_text)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


@dataclass(frozen=True)
class Asked:
    """The request's split= and pool= names, resolved."""

    split: list[Dimension]
    pool: set[str]
    automatic: bool


def _splittable(name: str) -> bool:
    prefix = name.partition(".")[0]
    return prefix in ("param", "label") or name in _PLAIN or name in DURABILITY_FIELDS


def asked(scope: dims.Scope, split: Sequence[str], pool: Sequence[str]) -> Asked:
    names = [n.strip() for item in split for n in item.split(",") if n.strip()]
    automatic = NONE not in names
    chosen: list[Dimension] = []
    for name in (n for n in names if n != NONE):
        dimension = dims.resolve(scope, name, field="split")
        if not _splittable(dimension.name):
            raise Invalid(
                "split",
                f"{name!r}: split by a parameter, a label, a durability fact, agent, target or "
                "fs_type (or make it the group)",
            )
        if dimension.name not in [d.name for d in chosen]:
            chosen.append(dimension)
    pooled = {dims.resolve(scope, n.strip(), field="pool").name
              for item in pool for n in item.split(",") if n.strip()}  # fmt: skip
    return Asked(chosen, pooled, automatic)


def _facts_of(table: type[Run] | type[RunVariant]) -> list[Any]:
    """The facts' columns of runs or variants: parameters and labels as text (one parse per
    distinct set, not per row: facts_by_point), the agent's name and the filesystem."""
    return [
        cast(Series.parameters, String).label("parameters"), _AGENT.name, _ENVIRONMENT.fs_type,
        table.target, cast(table.labels, String).label("labels"),
        *(getattr(table, n) for n in DURABILITY_FIELDS),
    ]  # fmt: skip


_AGENT = aliased(Agent, name="fact_agent")
_ENVIRONMENT = aliased(Environment, name="fact_environment")


def _named(statement: Select[Any], agent: Any, environment: Any) -> Select[Any]:
    """The statement joined to the agent's name and the environment's filesystem, as facts (their
    own aliases: a dimension may join these tables already)."""
    return statement.outerjoin(_AGENT, _AGENT.id == agent).outerjoin(
        _ENVIRONMENT, _ENVIRONMENT.id == environment
    )


def _folded(read: Rolled) -> Select[Any]:
    """The folded side: each point's (parameters, variant facts), one row per digest (one per
    (series, variant) pair, so nearly every row differs: not grouped in SQL, whose sort on these
    many columns cost more than the rows), with how many results it holds."""
    query = read.query
    x = on_variant(query.x) if query.x is not None else null()
    g = on_variant(query.group) if query.group is not None else null()
    keys = [x.label("x"), g.label("g"), *_facts_of(RunVariant)]
    statement = variant_rows(read, ExploreDigest, [*keys, ExploreDigest.count])
    condition = kept(read)
    if condition is not None:
        statement = statement.where(condition)
    return _named(statement, RunVariant.agent_id, RunVariant.environment_id)


def _pending(query: Query) -> Select[Any]:
    """The pending side: each point's distinct (parameters, run facts), with how many results
    (grouped by position: each rendering of a dimension has bind parameters of its own)."""
    joined = replace(query, tables=query.tables | {RUNS, SERIES})
    x = query.x if query.x is not None else null()
    g = query.group if query.group is not None else null()
    keys = [x.label("x"), g.label("g"), *_facts_of(Run)]
    statement = select_results(joined, [*keys, func.count()]).join(
        RollupPending, RollupPending.run_id == Result.run_id
    )
    statement = _named(statement, Run.agent_id, Run.environment_id)
    return statement.group_by(*(literal_column(str(i + 1)) for i in range(len(keys))))


def _facts(
    parameters: dict[str, Any], agent: str | None, target: str | None, fs_type: str | None,
    labels: dict[str, Any], durability: Sequence[Any],
) -> Facts:  # fmt: skip
    facts: Facts = {"agent": agent, "target": target, "fs_type": fs_type}
    for key, value in parameters.items():
        facts[f"param.{key}"] = text(value)
    for key, value in labels.items():
        facts[f"label.{key}"] = text(value)
    for name, value in zip(DURABILITY_FIELDS, durability, strict=True):
        facts[name] = text(value)
    return facts


@dataclass
class Behind:
    """What is behind each point (x, group): its distinct facts (x is None for x = time, one key
    per trace), each a tuple of values in the order of `names` (None: not set), with one None
    more at the end (where a name no fact holds is read: _getter), and how many results the
    plot covers (the filters' but no time filter's on the folded side: the digests cannot split
    a time filter)."""

    names: list[str]
    points: dict[Key, list[tuple[str | None, ...]]]
    results: int


def facts_by_point(session: Session, read: Rolled) -> Behind:
    """Each point's distinct facts, from its folded (parameters, variant) pairs and its pending
    runs: one statement, its facts named by the database. Each distinct set of parameters and
    of run facts is parsed once, and made a tuple once over their names."""
    statement = union_all(_folded(read), _pending(read.query))
    of_params: dict[Any, Facts] = {}
    of_run: dict[tuple[Any, ...], Facts] = {}
    pairs: dict[Key, list[tuple[Any, tuple[Any, ...]]]] = defaultdict(list)
    seen: set[tuple[Any, ...]] = set()
    results = 0
    for row in session.execute(statement).all():  # small rows: one fetch, not one a row
        results += int(row[-1] or 0)
        key = tuple(row[:-1])
        if key in seen:  # the same facts from both sides, or from two pairs
            continue
        seen.add(key)
        x, g, written, *given = key
        run = tuple(given)
        if written not in of_params:
            of_params[written] = {f"param.{k}": text(v) for k, v in _json(written).items()}
        if run not in of_run:
            agent, fs_type, target, labels, *durability = run
            of_run[run] = _facts({}, agent, target, fs_type, _json(labels), durability)
        pairs[(x, g)].append((written, run))
    # Parameters' names never meet the run facts' (param. is theirs alone): a fact is its run
    # facts' tuple, then its parameters'.
    run_names = sorted({n for facts in of_run.values() for n in facts})
    param_names = sorted({n for facts in of_params.values() for n in facts})
    runs = {k: tuple(map(facts.get, run_names)) for k, facts in of_run.items()}
    params = {k: (*map(facts.get, param_names), None) for k, facts in of_params.items()}
    points = {key: [runs[run] + params[written] for written, run in members]
              for key, members in pairs.items()}  # fmt: skip
    return Behind([*run_names, *param_names], points, results)


def _getter(names: Sequence[str], wanted: Sequence[str]) -> Any:
    """A function of a fact (Behind) to the tuple of its values of `wanted`."""
    at = {n: i for i, n in enumerate(names)}
    indexes = [at.get(n, len(names)) for n in wanted]
    if len(indexes) == 1:
        only = indexes[0]
        return lambda facts: (facts[only],)
    return itemgetter(*indexes) if indexes else lambda facts: ()


def _json(value: Any) -> dict[str, Any]:
    """A JSON object column's value (SQLite may hand back its text)."""
    if isinstance(value, str):
        value = json.loads(value)
    return value if isinstance(value, dict) else {}


def choose(behind: Behind, wanted: Asked, taken: set[str]) -> list[str]:
    """The names to split by: the ones asked, then (unless split=none) each parameter and
    durability fact, parameters first, that still varies within a point once split by those
    before it (fsync_policy adds nothing to a split by a parameter fsync that sets it).
    `taken`: the names of x and group, which never split."""
    chosen = [d.name for d in wanted.split]
    if not wanted.automatic:
        return chosen
    params = sorted(n for n in behind.names if n.startswith("param."))
    candidates = [n for n in [*params, *_DURABILITY_ORDER]
                  if n not in taken and n not in wanted.pool and n not in chosen]  # fmt: skip
    order = [*chosen, *candidates]
    # Every point's facts reduced to the names that matter here, each once, with the point's
    # number first: few, however many (series, variant) pairs are behind them. A name varies
    # within a point once split by those picked before it exactly when adding it to them makes
    # more distinct (point, values) tuples: one set of tuples per candidate, built in C.
    get = _getter(behind.names, order)
    reduced = {(i, *get(f)) for i, facts in enumerate(behind.points.values()) for f in facts}
    picked = list(range(len(chosen)))

    def distinct(positions: list[int]) -> int:
        return len(set(map(itemgetter(0, *(p + 1 for p in positions)), reduced)))

    count = distinct(picked)
    for at in range(len(chosen), len(order)):
        more = distinct([*picked, at])
        if more > count:
            picked.append(at)
            count = more
    return [order[i] for i in picked]


def dimension(scope: dims.Scope, name: str, wanted: Asked) -> Dimension:
    """The split dimension of this name, read from the series where it can be."""
    for d in wanted.split:
        if d.name == name:
            return d.on_series() if d.of_series is not None else d
    if name in DURABILITY_FIELDS:
        return dimensions.builtin(name)
    return dimensions.param(name.partition(".")[2], scope.dialect).on_series()


def keyed(query: Query, splits: Sequence[Dimension]) -> Query:
    """The query with its group widened to the group and the splits' values, one text."""
    if not splits:
        return query
    parts = ([query.group] if query.group is not None else []) + [d.expr for d in splits]
    key: ColumnElement[Any] | None = None
    for part in parts:
        # NULL and '' must stay apart: a value is written '=' + value, a NULL as '!'.
        piece = func.coalesce(literal("=", String).concat(cast(part, String)), literal("!"))
        key = piece if key is None else key.concat(literal(SEP, String)).concat(piece)
    tables = set(query.tables)
    for d in splits:
        tables |= d.tables
    return replace(query, group=key, tables=frozenset(tables))


def decode(g: Any, has_group: bool, count: int) -> tuple[Any, tuple[str | None, ...]]:
    """A widened group key back to the group's value and the splits' values."""
    parts: list[str | None] = [None if p == "!" else p[1:] for p in str(g).split(SEP)]
    if has_group:
        return parts[0], tuple(parts[1 : 1 + count])
    return None, tuple(parts[:count])


def named(value: Any, split: dict[str, str | None]) -> str | None:
    """A trace's name: the group's value, then each split's name=value."""
    words = [] if value is None else [str(value)]
    words += [f"{short(n)}={v if v is not None else 'not set'}" for n, v in split.items()]
    return " · ".join(words) if words else None


def short(name: str) -> str:
    return name.partition(".")[2] if name.startswith(("param.", "label.")) else name


@dataclass
class Pooled:
    """What each (x, group value, split values) point pools, and its durability notes."""

    mixes: dict[tuple[Any, Any, tuple[str | None, ...]], dict[str, list[str | None]]]
    notes: dict[tuple[Any, Any, tuple[str | None, ...]], list[str]]


def _values(values: set[str | None]) -> list[str | None]:
    ordered = sorted(values, key=lambda v: (v is None, v or ""))
    return ordered[:MAX_VALUES]


def pooled(behind: Behind, chosen: Sequence[str], taken: set[str]) -> Pooled:
    """Per split point, the names besides x, group and the splits that vary behind it."""
    out = Pooled({}, {})
    skip = taken | set(chosen)
    names = behind.names
    listed = sorted((n, i) for i, n in enumerate(names) if n not in skip)
    split_of = _getter(names, chosen)
    at = {n: i for i, n in enumerate(names)}
    memory_backed, flush = (at.get(n, len(names)) for n in ("memory_backed", "flush_to_device"))
    for (raw_x, raw_g), facts in behind.points.items():
        # Keyed as explore/service.py reads its cells: values as text.
        x, g = (None if v is None else str(v) for v in (raw_x, raw_g))
        parts: dict[tuple[str | None, ...], list[tuple[str | None, ...]]] = defaultdict(list)
        for f in facts:
            parts[split_of(f)].append(f)
        for values, members in parts.items():
            mix = {}
            if len(members) > 1:  # one member's facts vary in nothing (a fine split's usual case)
                columns = list(zip(*members, strict=True))
                for name, i in listed:
                    seen = set(columns[i])
                    if len(seen) > 1:
                        mix[name] = _values(seen)
            out.mixes[(x, g, values)] = mix
            notes = []
            if any(f[memory_backed] == "true" for f in members):
                notes.append("memory_backed")
            if any(f[flush] == "false" for f in members):
                notes.append("no_flush")
            out.notes[(x, g, values)] = notes
    return out
