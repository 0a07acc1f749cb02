"""PerfAtlas agent: run storage workloads, capture the environment, upload runs durably.

The public API is `__all__`; every other name is the agent's own and may change. In use:

    from pathlib import Path
    from perfatlas_agent import Client, PlainReporter, RunRequest, Spool, Upload, flush
    from perfatlas_agent import run_requests, run_sweep

    request = RunRequest("smallfile", Path("/mnt/scratch"), params={"nfiles": "1000"})
    # Measure only: the runs (dicts in the upload API's shape), each also handed to on_run.
    runs = run_sweep(request, PlainReporter(), on_run=lambda run: None)
    # What `perfatlas-agent run` does: measure, spool each run as it comes, upload; an exit
    # status (0 all delivered).
    status = run_requests([request], Upload("http://perfatlas:8000", TOKEN, Spool(), 600.0), None)
    # What `perfatlas-agent upload` does: send what the spool holds.
    with Client("http://perfatlas:8000", TOKEN) as client:
        report = flush(Spool(), client)

- measuring: `RunRequest`, `run_sweep` (one request's sweep; every finished run handed to
  on_run at once), `plan_runs` (the request checked, nothing run), `PlainReporter`; the
  workloads (`all_workloads`, `get_workload`); a spec (`WorkloadSpec`, `parse_spec`,
  `load_specs`: the server's JSON shape, checked against its published JSON Schema);
- keeping and sending: `Spool` (runs on disk until the server has them), `Client` and `flush`
  (upload with retries, never a duplicate), `UploadReport`; `run_requests` with `Upload`;
- configuration: `AgentConfig`, `load_config` (agent.json, written by `perfatlas-agent enroll`);
- errors (all in perfatlas_agent.errors): `AgentError`, the base of every error the agent
  raises on purpose, with the command line's `exit_code`, and the subclasses a caller meets.

The names are imported on first use: `import perfatlas_agent`, which the import of any of its
modules runs first, loads none of them (nor httpx, click or rich)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Before any import below: the submodules read it (`from perfatlas_agent import __version__`).
__version__ = "0.1.0"

if TYPE_CHECKING:
    from perfatlas_agent.config import AgentConfig, load_config
    from perfatlas_agent.errors import (
        AgentError,
        ConfigError,
        InputError,
        Interrupted,
        NoRoom,
        ParameterError,
        SpecError,
        TargetError,
        UploadError,
        WorkloadError,
    )
    from perfatlas_agent.measure.progress import PlainReporter
    from perfatlas_agent.measure.spec import WorkloadSpec, load_specs, parse_spec
    from perfatlas_agent.measure.sweep import RunRequest, plan_runs, run_sweep
    from perfatlas_agent.send.client import Client, UploadReport, flush
    from perfatlas_agent.send.deliver import Upload, run_requests
    from perfatlas_agent.send.spool import Spool
    from perfatlas_agent.workloads import all_workloads, get_workload

_WHERE = {
    "AgentConfig": "perfatlas_agent.config",
    "load_config": "perfatlas_agent.config",
    "AgentError": "perfatlas_agent.errors",
    "ConfigError": "perfatlas_agent.errors",
    "InputError": "perfatlas_agent.errors",
    "Interrupted": "perfatlas_agent.errors",
    "NoRoom": "perfatlas_agent.errors",
    "ParameterError": "perfatlas_agent.errors",
    "SpecError": "perfatlas_agent.errors",
    "TargetError": "perfatlas_agent.errors",
    "UploadError": "perfatlas_agent.errors",
    "WorkloadError": "perfatlas_agent.errors",
    "PlainReporter": "perfatlas_agent.measure.progress",
    "WorkloadSpec": "perfatlas_agent.measure.spec",
    "load_specs": "perfatlas_agent.measure.spec",
    "parse_spec": "perfatlas_agent.measure.spec",
    "RunRequest": "perfatlas_agent.measure.sweep",
    "plan_runs": "perfatlas_agent.measure.sweep",
    "run_sweep": "perfatlas_agent.measure.sweep",
    "Client": "perfatlas_agent.send.client",
    "UploadReport": "perfatlas_agent.send.client",
    "flush": "perfatlas_agent.send.client",
    "Upload": "perfatlas_agent.send.deliver",
    "run_requests": "perfatlas_agent.send.deliver",
    "Spool": "perfatlas_agent.send.spool",
    "all_workloads": "perfatlas_agent.workloads",
    "get_workload": "perfatlas_agent.workloads",
}

__all__ = [
    "AgentConfig",
    "AgentError",
    "Client",
    "ConfigError",
    "InputError",
    "Interrupted",
    "NoRoom",
    "ParameterError",
    "PlainReporter",
    "RunRequest",
    "SpecError",
    "Spool",
    "TargetError",
    "Upload",
    "UploadError",
    "UploadReport",
    "WorkloadError",
    "WorkloadSpec",
    "__version__",
    "all_workloads",
    "flush",
    "get_workload",
    "load_config",
    "load_specs",
    "parse_spec",
    "plan_runs",
    "run_requests",
    "run_sweep",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'perfatlas_agent' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
