"""The agent package's shape: its public API (perfatlas_agent.__all__) resolves and costs nothing
to import, every exception lives in perfatlas_agent.errors under AgentError (but Abandon, a
KeyboardInterrupt on purpose), and the command line's exit codes stay what they were."""

from __future__ import annotations

import ast
import importlib
import inspect
import io
import json
import pkgutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

import perfatlas_agent
from perfatlas_agent import errors
from tests.agent.send.test_upload import server_runs


def _modules() -> list[str]:
    found = [perfatlas_agent.__name__]
    for info in pkgutil.walk_packages(perfatlas_agent.__path__, prefix="perfatlas_agent."):
        if info.name != "perfatlas_agent.__main__":  # importing it runs the command line
            found.append(info.name)
    return found


def test_every_public_name_resolves_to_where_it_is_defined() -> None:
    for name in perfatlas_agent.__all__:
        value = getattr(perfatlas_agent, name)
        if name == "__version__":
            assert value == "0.1.0"
            continue
        module = importlib.import_module(value.__module__)
        assert getattr(module, name) is value, name
    with pytest.raises(AttributeError, match="has no attribute 'Keeper'"):
        perfatlas_agent.Keeper  # noqa: B018 (not public)


def test_importing_the_package_loads_none_of_its_parts() -> None:
    code = (
        "import json, sys, perfatlas_agent; "
        "print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('httpx', 'click', 'rich') or m.startswith('perfatlas_agent.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_every_exception_is_in_errors_under_agent_error() -> None:
    defined = {}
    for name in _modules():
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("perfatlas_agent"):
                defined[value.__qualname__] = value.__module__
    # measure/schema.py's UnknownKeyword is a bug of the agent's, never a user's error.
    assert {n for n, where in defined.items() if where != "perfatlas_agent.errors"} == {
        "UnknownKeyword"
    }
    assert sorted(errors.__all__) == sorted(n for n, w in defined.items() if w == errors.__name__)
    for name in errors.__all__:
        cls = getattr(errors, name)
        if name == "Abandon":
            # Stops a sweep the way Ctrl-C does: no `except Exception` may catch it.
            assert issubclass(cls, KeyboardInterrupt) and not issubclass(cls, Exception)
        else:
            assert issubclass(cls, errors.AgentError), name
    assert issubclass(errors.UnreadableRun, ValueError)


def test_exit_codes_are_unchanged() -> None:
    codes = {name: getattr(errors, name).exit_code for name in errors.__all__ if name != "Abandon"}
    assert codes == {
        "AgentError": 1,
        "ConfigError": 2,
        "InputError": 2,
        "Interrupted": 130,
        "LeaseLost": 1,
        "MountError": 1,
        "NoRoom": 6,
        "ParameterError": 2,
        "Refused": 1,
        "RetryExhausted": 1,
        "Revoked": 4,
        "ServerUnreachable": 1,
        "SpecError": 2,
        "Stopped": 1,
        "TargetError": 2,
        "TokenRejected": 4,
        "Transient": 1,
        "UnreadableRun": 1,
        "UploadError": 1,
        "WorkloadError": 1,
    }


def test_the_public_api_measures_and_delivers(live_server: Any, tmp_path: Path) -> None:
    """The docstring's use of the API, for real: a sweep measured in this process, then
    measured, spooled and uploaded as `perfatlas-agent run` does."""
    from perfatlas_agent import PlainReporter, RunRequest, Spool, Upload, run_requests, run_sweep

    agent = f"api-{uuid.uuid4().hex[:8]}"
    request = RunRequest(
        "command", tmp_path / "t", params={"cmd": "echo '{\"answer.seconds\": {k}}'", "k": "2,3"},
        repetitions=1, warmup=False, agent_name=agent,
    )  # fmt: skip
    seen: list[dict[str, Any]] = []
    runs = run_sweep(request, PlainReporter(io.StringIO()), on_run=seen.append)
    assert runs == seen
    assert [(r["parameters"]["k"], r["results"][0]["value"]) for r in runs] == [(2, 2.0), (3, 3.0)]

    spool = Spool(tmp_path / "spool")
    upload = Upload(live_server.url, live_server.upload_token, spool, 60.0, Spool(tmp_path / "fb"))
    assert run_requests([request], upload, None) == 0
    stored = server_runs(live_server, agent)
    assert sorted(copies[0]["parameters"]["k"] for copies in stored.values()) == [2, 3]
    assert spool.pending() == []


# The layers of agent/README.md ("The package"): a package imports only lower ones (and
# `perfatlas_agent.__version__`); measure and workloads are one layer.
LAYER = {
    "errors": 0, "measure": 1, "workloads": 1, "send": 2, "config": 3, "daemon": 4,
    "studies": 4, "firstrun": 5, "cli": 6,
}  # fmt: skip


def test_each_package_imports_only_the_layers_below() -> None:
    root = Path(perfatlas_agent.__file__).parent
    wrong = []
    for path in sorted(root.rglob("*.py")):
        part = path.relative_to(root).parts[0].removesuffix(".py")
        if part in ("__init__", "__main__"):
            continue
        assert part in LAYER, f"{part}: a new package? give it a layer"
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            names = node.module.split(".")
            if names[0] != "perfatlas_agent" or node.level:
                continue
            used = names[1] if len(names) > 1 else node.names[0].name
            if used == "__version__" or used == part:
                continue
            same_layer_ok = {part, used} == {"measure", "workloads"}
            if LAYER[used] > LAYER[part] or (LAYER[used] == LAYER[part] and not same_layer_ok):
                wrong.append(f"{path.relative_to(root)}:{node.lineno} imports {node.module}")
    assert wrong == []
