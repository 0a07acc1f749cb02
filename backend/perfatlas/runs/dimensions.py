"""Dimensions: anything results can be filtered, grouped or plotted by, as SQL expressions.

A name is a built-in (time, agent, fs_type, kernel, ...), `param.NAME`, `label.NAME`,
`env.KEY`, or a bare NAME that means the parameter NAME, else the label NAME."""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, case, cast, func
from sqlalchemy.sql.elements import ColumnElement

from perfatlas.agents.models import Agent
from perfatlas.core.errors import Invalid
from perfatlas.runs.models import Environment, Run

BUILTIN: dict[str, Any] = {
    "agent": Agent.name,
    "host": func.coalesce(Environment.hostname, Agent.name),
    "workload": Run.workload,
    "target": Run.target,
    "status": Run.status,
    "fs_type": Environment.fs_type,
    "kernel": Environment.kernel,
    "os": Environment.os,
    "cpu_model": Environment.cpu_model,
    "device": Environment.device,
    "device_model": Environment.device_model,
    "mount_options": Environment.mount_options,
    "environment": Environment.hash,
    "fsync_policy": Run.fsync_policy,
    "o_direct": Run.o_direct,
    "sync_mount": Run.sync_mount,
    "write_cache": Run.write_cache,
    "flush_to_device": Run.flush_to_device,
    "memory_backed": Run.memory_backed,
    "cold_method": Run.cold_method,
}
TIME = "time"


def json_text(column: Any, key: str, dialect: str) -> ColumnElement[Any]:
    """The JSON member `key` as text, written the same on PostgreSQL and SQLite
    (numbers as JSON writes them, booleans as true/false)."""
    if dialect == "postgresql":
        return column[key].as_string()  # type: ignore[no-any-return]
    path = '$."' + key.replace('"', "") + '"'
    return case(
        (func.json_type(column, path) == "true", "true"),
        (func.json_type(column, path) == "false", "false"),
        else_=cast(func.json_extract(column, path), String),
    )


def dimension(name: str, dialect: str, *, field: str) -> ColumnElement[Any]:
    if name in BUILTIN:
        expr = BUILTIN[name]
        if name in ("o_direct", "sync_mount", "flush_to_device", "memory_backed"):
            return case((expr.is_(True), "true"), (expr.is_(False), "false"), else_=None)
        return expr  # type: ignore[no-any-return]
    prefix, dot, rest = name.partition(".")
    if dot and rest:
        if prefix == "param":
            return json_text(Run.parameters, rest, dialect)
        if prefix == "label":
            return json_text(Run.labels, rest, dialect)
        if prefix == "env":
            return json_text(Environment.data, rest, dialect)
    if not name or len(name) > 64 or name == TIME:
        raise Invalid(field, f"{name!r} is not a dimension here")
    return func.coalesce(
        json_text(Run.parameters, name, dialect), json_text(Run.labels, name, dialect)
    )
