"""The docs against the code, without a server: the README's size, every code block either run
by test_docs_run.py or listed with the test that runs it, a curl example for every route family
of the OpenAPI document, every setting with its default, every figure of docs/performance.md
equal to its results file, every relative link and anchor resolving, and the Makefile's port
as configuration.md says."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.config import Settings
from perfatlas.main import create_app
from tests.docs.blocks import LISTED, ORDER, REPO, blocks, every_block, listed, pages
from tests.docs.conftest import MAKE_UP, SERVE

README_MAX_BYTES = 12 * 1024


def test_the_readme_reads_in_five_minutes() -> None:
    assert len((REPO / "README.md").read_bytes()) <= README_MAX_BYTES


def test_every_block_is_run_or_listed() -> None:
    assert sorted(pages()) == sorted(ORDER), "place a new page in blocks.ORDER"
    for block in every_block():
        assert listed(block) or block.lang in ("sh", "bash", "shell", "json"), (
            f"{block}: a ```{block.lang} block is neither run (sh, json) nor listed in LISTED"
        )
    for key in LISTED:
        matching = [b for b in every_block() if b.first.startswith(key)]
        assert len(matching) == 1, f"LISTED {key!r} matches {[str(b) for b in matching]}"


def _route_patterns() -> list[tuple[re.Pattern[str], str, frozenset[str]]]:
    """Each OpenAPI path as a pattern, with its method and its operation's tags."""
    routes = []
    for path, operations in create_app().openapi()["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/?]+", re.escape(path)) + "$")
        for method, operation in operations.items():
            routes.append((pattern, method.upper(), frozenset(operation.get("tags", []))))
    return routes


def _requests(text: str) -> list[tuple[str, str]]:
    """(method, path) of each curl command in a block (continued lines joined)."""
    text = re.sub(r"\\\n\s*", " ", text)
    found = []
    for command in re.findall(r"curl [^\n]*", text):
        url = re.search(r"https?://[^/\s\"']+(/api/v1/[^\s\"'?]*)", command)
        if not url:
            continue
        method = re.search(r"-X (\w+)", command)
        body = re.search(r" (-d|--data-binary|-F) ", command)
        name = method.group(1) if method else ("POST" if body else "GET")
        found.append((name, url.group(1).replace("$series", "1")))
    return found


def test_a_curl_example_for_every_route_family() -> None:
    routes = _route_patterns()
    covered: set[str] = set()
    for block in every_block():
        if listed(block):
            continue
        for method, path in _requests(block.text):
            tags = [t for p, m, t in routes if m == method and p.match(path)]
            assert tags, f"{block}: {method} {path} is no route of the API"
            covered |= tags[0]
    assert covered == set().union(*(tags for _, _, tags in routes))


def _default_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, Path):
        return str(value)
    if value in ("", None) or not isinstance(value, int | float | str):
        return None  # an empty default: the row says what empty means
    return str(value)


def test_configuration_lists_every_setting_with_its_default() -> None:
    rows = [
        line for line in (REPO / "docs/configuration.md").read_text().splitlines()
        if line.startswith("| `PERFATLAS_")
    ]  # fmt: skip
    for name, info in Settings.model_fields.items():
        variable = f"`PERFATLAS_{name.upper()}`"
        (row,) = [r for r in rows if variable in r.split(" | ")[0]] or [None]
        assert row, f"docs/configuration.md has no row for {variable}"
        default = _default_text(info.get_default(call_default_factory=True))
        if default is not None:
            assert default in row.split(" | ")[1].replace(" ", ""), (variable, default, row)


FIGURE_ROW = re.compile(
    r"^\| (?P<what>[^|]+) \| (?P<value>[^|]+) \|.*\| `(?P<file>[\w.-]+\.json): (?P<key>[\w.]+)` \|$"
)


def _figure(file: str, key: str) -> Any:
    value: Any = json.loads((REPO / "tests/bench/results" / file).read_text())
    for part in key.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def test_every_figure_of_performance_md_is_its_results_file() -> None:
    rows = [
        FIGURE_ROW.match(line) for line in (REPO / "docs/performance.md").read_text().splitlines()
    ]
    rows = [r for r in rows if r]
    assert len(rows) >= 40
    for row in rows:
        stored = _figure(row["file"], row["key"])
        shown = float(row["value"].replace(",", ""))
        assert shown == pytest.approx(stored, rel=5e-3, abs=0.5 if abs(stored) >= 1000 else 5e-4), (
            f"{row['what']}: the page says {row['value']}, {row['file']} {row['key']} = {stored}"
        )


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors: each heading lower-cased, punctuation dropped, spaces as hyphens."""
    found = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_every_relative_link_and_anchor_resolves() -> None:
    for page in pages():
        source = REPO / page
        for target in re.findall(r"\]\(([^)\s]+)\)", source.read_text()):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = (source.parent / path).resolve() if path else source
            assert resolved.exists(), f"{page}: {target} does not exist"
            if anchor and resolved.suffix == ".md":
                assert anchor in _anchors(resolved), f"{page}: no #{anchor} in {path or page}"


def _make_vars(env: dict[str, str], *args: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("PERFATLAS_HOST", "PERFATLAS_PORT")}
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", "--eval", "docs-vars: ; @echo $(HOST) $(PORT)",
         "docs-vars", *args], cwd=REPO, env={**clean, **env}, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_make_up_serves_where_the_docs_say() -> None:
    assert _make_vars({}) == "127.0.0.1 8000"
    assert _make_vars({"PERFATLAS_PORT": "9000"}) == "127.0.0.1 9000"
    assert _make_vars({"PERFATLAS_HOST": "0.0.0.0"}) == "0.0.0.0 8000"
    assert _make_vars({"PERFATLAS_PORT": "9000"}, "PORT=9100") == "127.0.0.1 9100"


def test_the_docs_server_runs_make_ups_commands() -> None:
    """conftest.py's server does what `make up FIRST_RUN=0` does after installing."""
    env = {k: v for k, v in os.environ.items() if k not in ("PERFATLAS_HOST", "PERFATLAS_PORT")}
    recipe = subprocess.run(
        ["make", "-n", "-o", ".venv/.installed", "-o", "ui-maybe", "up", "FIRST_RUN=0"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
    ).stdout  # fmt: skip
    for command in MAKE_UP:
        assert f"perfatlas {' '.join(command)}" in recipe
    assert f"perfatlas {' '.join(SERVE)}" in recipe
    assert "PERFATLAS_HOST=127.0.0.1 PERFATLAS_PORT=8000" in recipe


def test_the_readme_tour_is_run() -> None:
    tour = blocks("README.md")
    run = [b for b in tour if not listed(b)]
    assert len(run) == len(tour) - 1 == 9  # all but `make up`/`make test`
