"""Dimensions: anything results can be filtered, grouped or plotted by, as SQL expressions.

A name is a built-in (time, agent, fs_type, kernel, ...), `param.NAME`, `label.NAME`,
`env.KEY`, or a bare NAME that means the parameter NAME, else the label NAME. Each
expression says which tables it reads, so a reader joins exactly those: results carry their
run's agent and environment ids, so agent and environment dimensions join their small tables
straight from results, and only run fields (target, durability, parameters, labels) need runs.
A series fixes its runs' parameters and target, so those can also be read from the results'
series (`Dimension.on_series`): a reader that needs runs for nothing else joins the few series
of one metric instead of every run of the workload."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import String, case, cast, func
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.agents.models import Agent
from perfatlas.runs.models import Environment, Result, Run, Series

RUNS, AGENTS, ENVIRONMENTS, SERIES = "runs", "agents", "environments", "series"
TIME = "time"


@dataclass(frozen=True)
class Dimension:
    name: str
    expr: ColumnElement[Any]
    # The tables besides results that expr reads: the reader joins them (and only them).
    tables: frozenset[str]
    # The same value read from the result's series (which reads only the series table), for
    # what a series fixes: its runs' parameters and target.
    of_series: ColumnElement[Any] | None = None

    def on_series(self) -> Dimension:
        """This dimension read from the results' series, if it can be."""
        if self.of_series is None:
            return self
        return replace(self, expr=self.of_series, tables=frozenset({SERIES}))


def _flag(column: Any) -> ColumnElement[Any]:
    """A boolean as the text a filter names it by (true/false), the same on both databases."""
    return case((column.is_(True), "true"), (column.is_(False), "false"), else_=None)


def _builtins() -> dict[str, tuple[ColumnElement[Any], frozenset[str]]]:
    run, agent, env = frozenset({RUNS}), frozenset({AGENTS}), frozenset({ENVIRONMENTS})
    return {
        "agent": (Agent.name.expression, agent),
        "host": (func.coalesce(Environment.hostname, Agent.name), agent | env),
        "workload": (Result.workload.expression, frozenset()),
        "target": (Run.target.expression, run),
        "status": (Run.status.expression, run),
        "fs_type": (Environment.fs_type.expression, env),
        "kernel": (Environment.kernel.expression, env),
        "os": (Environment.os.expression, env),
        "cpu_model": (Environment.cpu_model.expression, env),
        "device": (Environment.device.expression, env),
        "device_model": (Environment.device_model.expression, env),
        "mount_options": (Environment.mount_options.expression, env),
        "environment": (Environment.hash.expression, env),
        "fsync_policy": (Run.fsync_policy.expression, run),
        "o_direct": (_flag(Run.o_direct), run),
        "sync_mount": (_flag(Run.sync_mount), run),
        "write_cache": (Run.write_cache.expression, run),
        "flush_to_device": (_flag(Run.flush_to_device), run),
        "memory_backed": (_flag(Run.memory_backed), run),
        "cold_method": (Run.cold_method.expression, run),
    }


_BUILTIN = _builtins()
BUILTIN: tuple[str, ...] = tuple(_BUILTIN)


def builtin(name: str) -> Dimension:
    expr, tables = _BUILTIN[name]
    return Dimension(name, expr, tables, Series.target.expression if name == "target" else None)


def json_text(column: Any, key: str, dialect: str) -> ColumnElement[Any]:
    """The JSON member `key` as text, written the same on PostgreSQL and SQLite
    (numbers as JSON writes them, booleans as true/false)."""
    if dialect == "postgresql":
        return column[key].as_string()  # type: ignore[no-any-return]
    path = json_path(key)
    return case(
        (func.json_type(column, path) == "true", "true"),
        (func.json_type(column, path) == "false", "false"),
        else_=cast(func.json_extract(column, path), String),
    )


def json_path(key: str) -> str:
    """SQLite's JSON path of a top-level key."""
    return '$."' + key.replace('"', "") + '"'


def param(key: str, dialect: str) -> Dimension:
    return Dimension(
        f"param.{key}", json_text(Run.parameters, key, dialect), frozenset({RUNS}),
        json_text(Series.parameters, key, dialect),
    )  # fmt: skip


def label(key: str, dialect: str) -> Dimension:
    return Dimension(f"label.{key}", json_text(Run.labels, key, dialect), frozenset({RUNS}))


def env(key: str, dialect: str) -> Dimension:
    return Dimension(
        f"env.{key}", json_text(Environment.data, key, dialect), frozenset({ENVIRONMENTS})
    )
