"""Groups of runs compared like with like: fs version 6.1 against 6.5 (and 6.8, ...).

Pooling every run of a group into one median mixes agents, targets and parameters whose
levels differ far more than the change looked for, and the mix differs between groups. So the
runs are paired series by series first: a pair is the runs that share everything of a series'
identity (agent, target, parameters, labels, metric) except the compared dimension. Each pair
gives a change judged on its samples (core/significance.py), none where one side's fsyncs never
reach stable storage and the other's do (not comparable); a metric reports the median of those
per-series changes and how many pairs agree, and when they disagree the same per subset of the
dimension that separates them (compare/split.py). Environment dimensions (fs_type, kernel,
device, mount_options, env.KEY, ...) and filesystem labels usually differ by mount point, so
for them the target is left out of the pairing too; labels that say where a run came from
never key a pair; `pair_ignore` overrides what is left out."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.alerts.queries import tentative_series
from perfatlas.compare import candidates, common, pairs
from perfatlas.compare.schemas import GroupCompareRead, GroupInfo
from perfatlas.core import units
from perfatlas.core.db import key_in
from perfatlas.core.durability import DURABILITY_FIELDS
from perfatlas.core.errors import Invalid
from perfatlas.core.pagination import parse_pairs
from perfatlas.core.significance import CONFIDENCE
from perfatlas.core.trust import CONFIRMING
from perfatlas.explore import dims as explore_dims
from perfatlas.runs.dimensions import BUILTIN, TIME
from perfatlas.runs.models import Environment, Result, Run, Series

T = TypeVar("T")
MAX_GROUPS = 10
MAX_RESULTS = 100_000
# Dimensions of the environment: runs that differ in them normally sit on different mounts.
ENVIRONMENT_DIMENSIONS = frozenset(
    {"host", "fs_type", "kernel", "os", "cpu_model", "device", "device_model", "mount_options",
     "environment"}
)  # fmt: skip
NOT_COMPARABLE = frozenset({TIME, "workload", "status"})
NO_IGNORE = "none"
# A confirmation job's runs (runs.confirming: a candidate and its baseline re-run in turns) are
# no history of any group: left out, as explore and detection leave them out.
HISTORY = Result.flags.op("&")(CONFIRMING) == 0


# Labels that say where a run came from, not what it measured: left out of every pairing
# (unless pair_ignore is `none`), so the first run's runs (firstrun=true) pair with the seed's
# reference runs of the same study, in the study reports' blocks too.
ORIGIN_LABELS = frozenset({"firstrun", "study"})
# Labels that name the filesystem (`perfatlas-agent study` labels fs=...), and the names of
# filesystems: a label whose values are these sits on a different mount per value.
FS_LABELS = frozenset({"fs", "filesystem", "fs_type", "fstype"})
FS_NAMES = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "zfs", "tmpfs", "ramfs", "f2fs", "bcachefs",
     "nfs", "nfs4", "cifs", "smb", "ntfs", "vfat", "exfat", "jfs", "reiserfs", "nilfs2",
     "overlay", "fuse", "ceph", "lustre", "gpfs"}
)  # fmt: skip


def filesystem_like(by: str, values: Sequence[str]) -> bool:
    """fs_type, a label naming the filesystem, or a dimension whose values are filesystems."""
    return (
        by == "fs_type" or by.removeprefix("label.") in FS_LABELS
        or (bool(values) and all(v.lower() in FS_NAMES for v in values))
    )  # fmt: skip


def default_pair_ignore(by: str, values: Sequence[str] = ()) -> list[str]:
    """The target for a dimension of the environment or a filesystem (each value on its own
    mount); nothing otherwise (comparing targets leaves the target out as `by`)."""
    across = (
        by in ENVIRONMENT_DIMENSIONS or by.startswith("env.") or filesystem_like(by, values)
    )  # fmt: skip
    return ["target"] if across and by != "target" else []


def _dropped(name: str) -> tuple[set[str], set[str], set[str]]:
    """What a dimension name removes from a pairing key: (series fields, params, labels)."""
    if name in ("agent", "host"):
        return {"agent"}, set(), set()
    if name == "target":
        return {"target"}, set(), set()
    prefix, dot, rest = name.partition(".")
    if dot and prefix == "param":
        return set(), {rest}, set()
    if dot and prefix == "label":
        return set(), set(), {rest}
    if name in BUILTIN or (dot and prefix == "env"):
        return set(), set(), set()
    return set(), {name}, {name}  # a bare name is the parameter, else the label


def pairing_key(series: Series, agent: str, ignore: Sequence[str]) -> dict[str, Any]:
    fields: set[str] = set()
    params: set[str] = set()
    labels: set[str] = set()
    for name in ignore:
        f, p, lab = _dropped(name)
        fields |= f
        params |= p
        labels |= lab
    key: dict[str, Any] = {}
    if "agent" not in fields:
        key["agent"] = agent
    if "target" not in fields:
        key["target"] = series.target
    key["parameters"] = {k: v for k, v in series.parameters.items() if k not in params}
    key["labels"] = {k: v for k, v in series.labels.items() if k not in labels}
    return key


def _values(values: Sequence[str]) -> list[str]:
    seen: list[str] = []
    for v in values:
        if v not in seen:
            seen.append(v)
    if not 2 <= len(seen) <= MAX_GROUPS:
        raise Invalid("value", f"give from 2 to {MAX_GROUPS} distinct values, the baseline first")
    return seen


def _filter_of(items: list[str], scope: explore_dims.Scope) -> explore_dims.Filters:
    return explore_dims.filters(scope, items)


def stored_values(dimension: str, values: Sequence[str]) -> dict[str, int]:
    """Each text a group's value may be stored as, with its group's index: a size or duration
    as people write it (segsize 128k) finds the runs stored as 131072, as a filter does
    (core/units.py); two values that are one (128k and 131072) are a 422."""
    index: dict[str, int] = {}
    for g, value in enumerate(values):
        for text in units.filter_values(dimension, [value], field="value"):
            other = index.setdefault(text, g)
            if other != g:
                name = dimension.removeprefix("param.")
                raise Invalid(
                    "value",
                    f"{values[other]!r} and {value!r} are the same {name}: give distinct values",
                )
    return index


def _rows(
    session: Session, *, workload: str, by: str, values: list[str], metrics: set[str],
    filters: Sequence[str],
) -> tuple[list[Any], dict[str, int]]:  # fmt: skip
    """The results of the groups, and the group index of each text `by` reads as."""
    # Names resolve as Explore's do: an unknown dimension is a 422, not an empty answer. A name
    # is known when any of the chosen metrics' series or runs have it.
    scopes = [
        explore_dims.Scope(session=session, workload=workload, metric=m)
        for m in sorted(metrics) or [""]
    ]

    def first_known(resolve: Callable[[explore_dims.Scope], T]) -> T:
        refusals: list[Invalid] = []
        for scope in scopes:
            try:
                return resolve(scope)
            except Invalid as exc:
                refusals.append(exc)
        raise refusals[0]

    by_dimension = first_known(lambda scope: explore_dims.resolve(scope, by, field="by"))
    by_expr = by_dimension.expr
    group_of = stored_values(by_dimension.name, values)
    texts = list(group_of)
    conditions = []
    for name, wanted in parse_pairs("filter", filters).items():
        known = first_known(partial(_filter_of, [f"{name}:{value}" for value in wanted]))
        conditions += known.conditions
    # Every table a dimension may need is joined explicitly: never an implicit cross join.
    query = (
        select(
            by_expr.label("g"), Result.id, Result.run_id, Result.series_id, Result.metric,
            Result.unit, Result.direction, Result.samples, Result.flags,
            *(getattr(Run, f) for f in DURABILITY_FIELDS),
        )
        .select_from(Result)
        .join(Run, Run.id == Result.run_id)
        .join(Agent, Agent.id == Run.agent_id)
        .outerjoin(Environment, Environment.id == Run.environment_id)
        .where(Result.workload == workload, Result.metric.in_(sorted(metrics)), HISTORY)
        .where(by_expr.in_(texts), *conditions)
        # In the order stored: a pair's samples are its runs' in that order, and the bootstrap
        # is seeded from them (core/significance.py), so the same data answers the same interval
        # however the database happened to find the rows.
        .order_by(Result.id)
    )  # fmt: skip
    # The runs in the groups, from the rollups (compare/candidates.py); their results are read
    # by run, under every condition above.
    runs = candidates.candidate_runs(
        session, workload=workload, metrics=sorted(metrics), by=by_expr, values=texts,
        conditions=conditions,
    )  # fmt: skip
    parts = (
        [query]
        if runs is None
        else [query.where(c) for c in key_in(session, Result.run_id, sorted(runs))]
    )
    rows: list[Any] = []
    for part in parts:
        rows += session.execute(part.limit(MAX_RESULTS + 1 - len(rows))).all()
        if len(rows) > MAX_RESULTS:
            raise Invalid("filter", f"more than {MAX_RESULTS} results match: narrow with filters")
    if len(parts) > 1:  # SQLite's chunks of runs: in the order stored, as one statement's
        rows.sort(key=lambda row: row.id)
    return rows, group_of


def compare_groups(
    session: Session,
    *,
    workload: str,
    by: str,
    values: Sequence[str],
    metrics: Sequence[str] = (),
    filters: Sequence[str] = (),
    pair_ignore: Sequence[str] | None = None,
    min_effect_pct: float,
) -> GroupCompareRead:
    for name, texts in (("workload", [workload]), ("by", [by]), ("value", values),
                        ("filter", filters), ("pair_ignore", pair_ignore or [])):  # fmt: skip
        common.plain_text(name, texts)
    if by in NOT_COMPARABLE:
        raise Invalid("by", f"{by!r} cannot be compared as groups")
    groups = _values(values)
    # `pair_ignore=a,b` as documented: comma-separated, repeated, or both.
    given = None if pair_ignore is None else [
        part.strip() for item in pair_ignore for part in item.split(",") if part.strip()
    ]  # fmt: skip
    ignore = default_pair_ignore(by, groups) if given is None else given
    origin = NO_IGNORE not in ignore
    if NO_IGNORE in ignore:
        ignore = []
    for name in ignore:
        if name in ("metric", "unit", "workload") or not name or len(name) > 64:
            raise Invalid("pair_ignore", f"{name!r} cannot be left out of the pairing")
    known = candidates.known_metrics(session, workload, HISTORY)
    chosen = common.select_metrics(known, metrics, where=f"workload {workload!r}")
    rows, group_index = _rows(
        session, workload=workload, by=by, values=groups, metrics=chosen, filters=filters
    )
    series = {
        s.id: s
        for s in session.scalars(select(Series).where(Series.id.in_({r.series_id for r in rows})))
    }
    tentative = tentative_series(session, list(series))
    # The origin labels the runs have (unless `none`), and by default, comparing filesystems,
    # the labels that name the filesystem again (fs=ext4 beside fs_type ext4): said in the answer.
    have = {name for s in series.values() for name in s.labels}
    left = (ORIGIN_LABELS if origin else set()) | (
        FS_LABELS if given is None and filesystem_like(by, groups) else set()
    )
    named = {n.removeprefix("label.") for n in [*ignore, by]}
    ignore += [f"label.{n}" for n in sorted(left & have - named)]
    ignore_all = [*ignore, by]
    # metric -> pairing key (canonical) -> group index -> side
    table: dict[tuple[str, str, str], dict[str, tuple[dict[str, Any], dict[int, pairs.Side]]]] = (
        defaultdict(dict)
    )
    keys_of: list[dict[str, dict[str, str]]] = [{} for _ in groups]  # group -> canon -> flat key
    run_results: dict[int, list[tuple[str, int]]] = defaultdict(list)
    seen_facts: list[set[tuple[Any, ...]]] = [set() for _ in groups]  # DURABILITY_FIELDS' values
    runs_of: list[set[int]] = [set() for _ in groups]
    # series id -> (pairing key, its canonical form): once per series, not per result.
    keys: dict[int, tuple[dict[str, Any], str]] = {}
    for row in rows:
        g = group_index.get(str(row.g))
        if g is None:  # the database matched a value written another way: not asked for
            continue
        keyed = keys.get(row.series_id)
        if keyed is None:
            s = series[row.series_id]
            key = pairing_key(s, s.agent.name, ignore_all)
            canon = repr(sorted((k, sorted(v.items()) if isinstance(v, dict) else v)
                                for k, v in key.items()))  # fmt: skip
            keyed = keys[row.series_id] = (key, canon)
        key, canon = keyed
        _, sides = table[(row.metric, row.unit, row.direction)].setdefault(canon, (key, {}))
        side = sides.setdefault(g, pairs.Side())
        side.samples.extend(row.samples)
        side.runs.add(row.run_id)
        side.masks.add(row.flags)
        side.series.add(row.series_id)
        # One tuple a row; the facts are read from the few distinct ones afterwards.
        fact = tuple(getattr(row, f) for f in DURABILITY_FIELDS)
        side.fact_rows.add(fact)
        seen_facts[g].add(fact)
        if canon not in keys_of[g]:
            keys_of[g][canon] = pairs.flat_key(key)
        run_results[row.run_id].append((row.metric, row.id))
        runs_of[g].add(row.run_id)
    facts = [pairs.facts_of(seen) for seen in seen_facts]
    order = {m: i for i, m in enumerate(common.phase_order(run_results.values()))}
    out = [
        pairs.metric(
            metric, unit, direction, list(found.values()), len(groups), tentative, min_effect_pct
        )
        for (metric, unit, direction), found in sorted(
            table.items(), key=lambda item: (order[item[0][0]], item[0])
        )
    ]
    infos = [
        GroupInfo(
            value=v,
            runs=len(runs_of[i]),
            durability={f: sorted(facts[i][f], key=repr) for f in DURABILITY_FIELDS},
        )
        for i, v in enumerate(groups)
    ]
    present = [info for info in infos if info.runs]
    durability = common.differences([info.durability for info in present])
    # Shown per group, every group included (a group without runs has no facts).
    for d in durability:
        d.values = [info.durability[d.key] if info.runs else None for info in infos]
    # A group with series but none in common with the baseline: which fields keep them apart.
    apart = [g for g in range(1, len(groups)) if keys_of[0] and keys_of[g]
             and not keys_of[0].keys() & keys_of[g].keys()]  # fmt: skip
    hint: set[str] = set()
    for g in apart:
        hint |= pairs.pair_hint(list(keys_of[0].values()), list(keys_of[g].values()))
    return GroupCompareRead(
        pair_hint=sorted({*ignore, *hint}) if hint else None,
        workload=workload, by=by, values=groups, filters=list(filters), pair_ignore=ignore,
        min_effect_pct=min_effect_pct, confidence=CONFIDENCE, groups=infos, metrics=out,
        durability_differs=bool(durability),
        warning=common.durability_warning(durability, what="groups"),
        durability=durability, reasons=common.reasons(),
    )  # fmt: skip
