"""The import rules of ARCHITECTURE.md. The layers and the domains' order are import-linter's
contracts (.importlinter, run by `make lint` and here, with a planted cycle that must fail);
the rules it cannot say are checked on the sources: every import statement (also those inside
functions) of every module, read with `ast`."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

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
    "confirm.samples", "explore.dims", "explore.export", "explore.rolled", "imports.common",
    "jobs.lifecycle", "jobs.spec", "notifications.outbox", "notifications.senders",
    "rollups.digests", "rollups.fold", "rollups.records", "rollups.sketch", "runs.dimensions",
    "runs.tallies", "runs.versions", "schedules.firing", "schedules.timing",
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
