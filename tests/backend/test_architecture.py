"""The import rules of ARCHITECTURE.md. The layers and the domains' order are import-linter's
contracts (.importlinter, run by `make lint` and here, with a planted cycle that must fail);
the rules it cannot say are checked on the sources: every import statement (also those inside
functions) of every module, read with `ast`."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import shutil
import subprocess
import sys
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "backend" / "perfatlas"
AGENT = REPO / "agent" / "src" / "perfatlas_agent"
# What the detector may import besides itself: the standard library and numpy.
PURE_THIRD_PARTY = {"numpy"}


def imports(path: Path, root: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of every import in one file under the import root `root`;
    relative imports resolved."""
    package = path.relative_to(root).parent
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.parts[: len(package.parts) - node.level + 1]
                module = ".".join([*base, module]).strip(".")
            # `from perfatlas import models` imports perfatlas.models: name what is imported.
            for alias in node.names:
                yield node.lineno, module if alias.name == "*" else f"{module}.{alias.name}"


def modules(root: Path) -> list[Path]:
    found = sorted(root.rglob("*.py"))
    assert found, f"no Python files under {root}"
    return found


def offenders(root: Path, allowed: Callable[[str], bool]) -> list[str]:
    """Every import under `root` that `allowed` refuses, as path:line."""
    import_root = AGENT.parent if root.is_relative_to(AGENT) else SERVER.parent
    out = []
    for path in modules(root):
        for line, name in imports(path, import_root):
            if not allowed(name):
                out.append(f"{path.relative_to(REPO)}:{line} imports {name}")
    return out


def _is(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def lint_imports(import_root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's contracts (.importlinter) on the package `perfatlas` under import_root."""
    return subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--no-cache", "--no-logo",
         str(REPO / ".importlinter")],
        env={**os.environ, "PYTHONPATH": str(import_root)}, cwd=import_root,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_the_import_contracts_hold() -> None:
    """Layers (entry points > api | worker > flows > domains > kernel) and the domains' order."""
    found = lint_imports(SERVER.parent)
    assert found.returncode == 0, found.stdout + found.stderr
    assert "0 broken" in found.stdout


def test_the_import_contracts_fail_on_a_planted_cycle(tmp_path: Path) -> None:
    """runs importing alerts (which imports runs) closes a cycle: the contracts must say so
    (a rule that cannot fail proves nothing)."""
    shutil.copytree(SERVER, tmp_path / "perfatlas", ignore=shutil.ignore_patterns("__pycache__"))
    ingest = tmp_path / "perfatlas" / "runs" / "ingest.py"
    ingest.write_text(ingest.read_text() + "\nfrom perfatlas.alerts import service  # noqa\n")
    found = lint_imports(tmp_path)
    assert found.returncode == 1, found.stdout
    assert "perfatlas.runs is not allowed to import perfatlas.alerts" in found.stdout
    assert "- perfatlas.runs.ingest -> perfatlas.alerts.service" in found.stdout


def test_the_detector_is_pure() -> None:
    """analysis/ imports itself, the standard library and numpy: no database, web or queue."""
    import sys

    def allowed(name: str) -> bool:
        top = name.split(".")[0]
        if top == "perfatlas":
            return _is(name, "perfatlas.analysis")
        return top in sys.stdlib_module_names or top in PURE_THIRD_PARTY

    assert offenders(SERVER / "analysis", allowed) == []


def test_the_agent_imports_no_server_code() -> None:
    def allowed(name: str) -> bool:
        return not _is(name, "perfatlas") and not _is(name, "tests")

    assert offenders(AGENT, allowed) == []


# The domain packages (the middle layer of .importlinter) and each one's public face.
DOMAINS = {p.parent.name for p in SERVER.glob("*/__init__.py")} - {
    "core",
    "analysis",
    "api",
    "worker",
    "flows",
    "backup",
}
PUBLIC_FACE = {"models", "schemas", "service", "enums"}
# Modules other domains still reach into besides a public face: this list may only shrink
# (move what they need behind the service, or into core/, and strike the line).
KNOWN_REACHES = {
    "agents.enrollment", "alerts.queries", "auth.permissions", "compare.export", "confirm.plan",
    "explore.dims", "explore.export", "explore.rolled", "imports.common",
    "jobs.lifecycle", "rollups.digests", "rollups.fold", "runs.dimensions", "runs.tallies",
    "runs.versions",
}  # fmt: skip


def test_domains_meet_through_their_public_faces() -> None:
    """A domain imports another's models, schemas, service or enums, or one of KNOWN_REACHES."""
    found = set()
    for domain in sorted(DOMAINS):
        for path in modules(SERVER / domain):
            for line, name in imports(path, SERVER.parent):
                parts = name.split(".")
                if len(parts) < 3 or parts[0] != "perfatlas" or parts[1] not in DOMAINS:
                    continue
                if parts[1] == domain or parts[2] in PUBLIC_FACE:
                    continue
                found.add(f"{parts[1]}.{parts[2]}")
                if f"{parts[1]}.{parts[2]}" not in KNOWN_REACHES:
                    raise AssertionError(f"{path.relative_to(REPO)}:{line} reaches into {name}")
    assert found == KNOWN_REACHES, f"no longer reached (strike them): {KNOWN_REACHES - found}"


@pytest.mark.parametrize("router", sorted(SERVER.glob("*/router.py")), ids=lambda p: p.parent.name)
def test_routes_queue_work_through_a_service(router: Path) -> None:
    """A router never sends to Celery itself: it calls a service function that queues."""
    found = [
        f"line {line}: {name}"
        for line, name in imports(router, SERVER.parent)
        if _is(name, "perfatlas.worker") or _is(name, "celery") or ".tasks." in f"{name}."
    ]
    assert found == []


def test_tasks_live_in_their_domains() -> None:
    """The worker package holds the app and the schedule; every task is a domain's."""
    from perfatlas.worker.celery_app import TASK_MODULES

    for module in TASK_MODULES:
        parts = module.split(".")
        assert parts[0] == "perfatlas" and parts[-1] == "tasks" and len(parts) == 3, module
        assert (SERVER / parts[1] / "tasks.py").is_file(), module
    declared = {p.parent.name for p in SERVER.glob("*/tasks.py")}
    assert declared == {m.split(".")[1] for m in TASK_MODULES}


def test_the_scanner_sees_every_kind_of_import(tmp_path: Path) -> None:
    """Imports inside functions and relative ones count too (a rule that cannot fail proves
    nothing)."""
    core = tmp_path / "perfatlas" / "core"
    core.mkdir(parents=True)
    (core / "bad.py").write_text(
        "import os\n\ndef f():\n    from perfatlas.runs import models\n\n"
        "from ..alerts import service\nfrom . import db\n"
    )
    found = sorted(name for _, name in imports(core / "bad.py", tmp_path))
    assert found == [
        "os", "perfatlas.alerts.service", "perfatlas.core.db", "perfatlas.runs.models",
    ]  # fmt: skip


# ---- routes make one call (issue 42) -----------------------------------------------------

# What a route may call besides its one call into PerfAtlas code, by qualified name, and why.
ROUTE_PLUMBING = {
    "perfatlas.core.csv.csv_response": "wraps the one call's rows as a CSV download",
    "perfatlas.reports.blocks.PageSettings.of": "reads the settings dependency",
    "perfatlas.auth.service.check_agent": "the guard: may this token upload as that agent",
    "perfatlas.auth.service.check_runs_agents": "the guard, for each run of the body",
}
ROUTE_METHODS = {"get", "post", "put", "patch", "delete", "head", "options", "api_route"}


def _is_route(node: ast.AST) -> bool:
    """A function decorated with `@router.<method>(...)`."""
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
        isinstance(d, ast.Call)
        and isinstance(d.func, ast.Attribute)
        and isinstance(d.func.value, ast.Name)
        and d.func.value.id == "router"
        and d.func.attr in ROUTE_METHODS
        for d in node.decorator_list
    )


def _chain(func: ast.expr) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"]; None for a call on a value (`f(x).y()`, `x[0]()`)."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.insert(0, func.attr)
        func = func.value
    return [func.id, *parts] if isinstance(func, ast.Name) else None


def _perfatlas_object(hint: Any) -> bool:
    """A parameter's type (`Annotated[X, Depends(...)]` is X) is a PerfAtlas class other than a
    Pydantic model: an object whose methods are PerfAtlas code."""
    cls = getattr(hint, "__origin__", hint)
    return (
        isinstance(cls, type)
        and _is(cls.__module__, "perfatlas")
        and not issubclass(cls, BaseModel)
    )


Function = ast.FunctionDef | ast.AsyncFunctionDef


def route_calls(
    node: Function, namespace: dict[str, Any], defs: dict[str, Function], seen: frozenset[str]
) -> list[str]:
    """The calls into PerfAtlas code in a function's body (lambdas and comprehensions in it
    too), and `commit` for any `.commit(` call. A helper of the router's own module counts as
    the calls in its body."""
    module = namespace["__name__"]
    function = namespace[node.name]
    hints = typing.get_type_hints(function, include_extras=True)
    params = {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
    local = {
        n.id
        for stmt in node.body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    found: list[str] = []
    for stmt in node.body:
        for call in (n for n in ast.walk(stmt) if isinstance(n, ast.Call)):
            if isinstance(call.func, ast.Attribute) and call.func.attr == "commit":
                found.append("commit")
            chain = _chain(call.func)
            if chain is None:
                continue
            name = ".".join(chain)
            if chain[0] in params:
                if len(chain) > 1 and _perfatlas_object(hints.get(chain[0])):
                    found.append(name)
                continue
            if chain[0] in local or chain[0] not in namespace:
                continue  # a value made in the body, or a builtin
            target = namespace[chain[0]]
            if name in defs and inspect.isfunction(target) and target.__module__ == module:
                if name not in seen:
                    found += route_calls(defs[name], namespace, defs, seen | {name})
                continue
            owner = target
            for attr in chain[1:]:
                owner, target = target, getattr(target, attr)
            if isinstance(owner, type) and issubclass(owner, BaseModel | BaseException):
                continue  # a schema (`Read.model_validate(...)`) or an error
            if isinstance(target, type) and issubclass(target, BaseModel | BaseException):
                continue
            where = getattr(target, "__module__", None) or ""
            qualified = f"{where}.{getattr(target, '__qualname__', chain[-1])}"
            if (_is(where, "perfatlas") or where == module) and qualified not in ROUTE_PLUMBING:
                found.append(name)
    return found


def route_offenders(source: str, namespace: dict[str, Any]) -> dict[str, list[str]]:
    """Each route of a router's source that makes more than one call into PerfAtlas code or
    commits, with the calls it makes."""
    tree = ast.parse(source).body
    defs = {n.name: n for n in tree if isinstance(n, Function)}
    out = {}
    for node in tree:
        if _is_route(node):
            assert isinstance(node, Function)
            calls = route_calls(node, namespace, defs, frozenset())
            if len(calls) > 1 or "commit" in calls:
                out[node.name] = calls
    return out


@pytest.mark.parametrize("router", sorted(SERVER.glob("*/router.py")), ids=lambda p: p.parent.name)
def test_routes_make_one_call(router: Path) -> None:
    """Issue 42: a route makes one call into PerfAtlas code (a domain's service or queries, or
    a flow) and never commits. What counts, in the route's body and in the bodies of the
    router's own helpers it calls (counted in place, as if written in the route):
    - a call of a function, class or method reached from a name the router imports from
      `perfatlas` or defines itself, e.g. `service.get_alert(...)`, `to_summary(r)` (once
      each, wherever it stands: in a lambda, a comprehension, a branch);
    - a method of a parameter whose type is a PerfAtlas class other than a Pydantic model
      (a dependency such as the group commit: `groups.store(...)`).
    What does not count:
    - building a Pydantic model (a schema) or an error, e.g. `RunPage(items=...)`,
      `TokenRead.model_validate(row)`, `raise Invalid(...)`: wrapping the one call's answer;
    - FastAPI, Starlette, the standard library: `Response(...)`, `JSONResponse(...)`;
    - methods of values and of the request, the settings and the other parameters (plumbing:
      `request.headers.get(...)`, `body.runs`), and calls on a call's result;
    - ROUTE_PLUMBING by qualified name: `csv_response` (wraps the one call's rows),
      `PageSettings.of(settings)` (reads the settings dependency), `check_agent` and
      `check_runs_agents` (the guard: which agents the token may upload as).
    Any `.commit(` fails, whatever it is called on. Dependencies (functions a route names in
    `Depends`) are not routes and are not read."""
    module = importlib.import_module(f"perfatlas.{router.parent.name}.router")
    assert route_offenders(router.read_text(), vars(module)) == {}


PLANTED_ROUTER = """
from fastapi import Response
from sqlalchemy.orm import Session

from perfatlas.alerts import queries, service
from perfatlas.alerts.schemas import AlertDetail
from perfatlas.core.csv import csv_response
from perfatlas.core.errors import NotFound
from perfatlas.flows.group_commit import GroupCommit


class Router:  # records nothing: only the decorator's form matters to the rule
    def __getattr__(self, method):
        return lambda *args, **kwargs: lambda route: route


router = Router()


def _alert(session: Session, alert_id: int):
    return service.get_alert(session, alert_id)


@router.get("/two")
def two(session: Session, alert_id: int) -> AlertDetail:
    return queries.alert_detail(session, service.get_alert(session, alert_id))


@router.get("/hidden")
def hidden(session: Session, alert_id: int) -> AlertDetail:
    return queries.alert_detail(session, _alert(session, alert_id))


@router.get("/lambda")
def in_lambda(session: Session, groups: GroupCommit) -> Response:
    run = lambda: groups.store(session, None, [])  # noqa: E731
    return csv_response([[service.get_alert(session, 1), run()]], "x.csv")


@router.post("/commits")
def commits(session: Session, alert_id: int) -> AlertDetail:
    alert = _alert(session, alert_id)
    session.commit()
    return AlertDetail.model_validate(alert)


@router.get("/one")
def one(session: Session, alert_id: int) -> Response:
    if alert_id < 0:
        raise NotFound("no such alert")
    detail = AlertDetail.model_validate(_alert(session, alert_id))
    return Response(detail.model_dump_json(), media_type="application/json")
"""


def test_the_route_rule_sees_a_second_call() -> None:
    """Two calls, one hidden in a helper or in a lambda on a dependency, and a commit are
    each caught; one call wrapped in a schema, an error and a Response passes (a rule that
    cannot fail proves nothing)."""
    namespace: dict[str, Any] = {"__name__": "planted_router"}
    code = compile(PLANTED_ROUTER, "planted_router.py", "exec")
    exec(code, namespace)
    assert route_offenders(PLANTED_ROUTER, namespace) == {
        "two": ["queries.alert_detail", "service.get_alert"],
        "hidden": ["queries.alert_detail", "service.get_alert"],
        "in_lambda": ["groups.store", "service.get_alert"],
        "commits": ["service.get_alert", "commit"],
    }
