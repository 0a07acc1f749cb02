"""The fenced code blocks of README.md and docs/*.md, and what the docs test does with each: a
shell block is run against a live server; a JSON block is sent to the route it is the body of;
a block that cannot run inside a test (it installs, needs Docker, systemd or loop devices) is
listed here with the test that runs the same commands instead."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# The pages in the order their shell blocks run: later pages use what earlier ones stored (the
# tour's alert, the API page's partialread runs). A new page must be placed here.
ORDER = (
    "README.md",
    "docs/api.md",
    "docs/alerts.md",
    "docs/agent.md",
    "docs/studies.md",
    "docs/ui.md",
    "docs/explore.md",
    "docs/concepts.md",
    "docs/configuration.md",
    "docs/deployment.md",
    "docs/development.md",
    "docs/benchmarks.md",
    "docs/performance.md",
)

# Blocks not run here, by the start of their first line (each key matches exactly one block):
# the test (or make target) that runs the same commands instead.
LISTED = {
    "make up ": (
        "the docs server (tests/docs/conftest.py) runs make up's commands, which test_docs.py "
        "checks against the Makefile's up recipe; tests/agent/test_embedded_fleet.py and "
        "tests/agent/test_first_run.py run them end to end"
    ),
    "make test ": "the whole suite, this test included: it cannot run inside itself",
    "pip install ./agent": "make install installs the agent (-e agent); tests/agent/ runs it",
    "perfatlas-agent enroll --server http://perfatlas:8000 --enrollment-token pae_...": (
        "the README tour's enroll and daemon blocks, run here; tests/agent/test_daemon.py"
    ),
    "sudo perfatlas-agent study run smallfiles-000 --quick --filesystems ext4,xfs,btrfs,tmpfs": (
        "loop-mounted images as root: tests/agent/test_studies.py (the tour runs it on tmpfs here)"
    ),
    "sudo perfatlas-agent study run smallfiles-000 --quick --filesystems ext4,tmpfs": (
        "tests/e2e/test_study_report.py (ext4 as root and tmpfs, then the report in a browser)"
    ),
    "docker compose up -d": "tests/backend/deploy/test_compose.py (the services, health checks, commands)",
    "cp backend/systemd/perfatlas-api.service": (
        "needs systemd as PID 1: no test runs it; the units run `perfatlas migrate`, `perfatlas "
        "serve` and `perfatlas worker`, which the docs server runs"
    ),
    "perfatlas export perfatlas.zip": (
        "tests/backend/backup/test_round_trip.py (export from SQLite, import into PostgreSQL)"
    ),
    "make ui ": "make test (ui-check; the browser tests of tests/e2e/ serve the built UI)",
}

# Blocks that run until stopped: started in the background, stopped when the pages are done.
BACKGROUND = ("perfatlas-agent daemon",)

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    text: str

    @property
    def first(self) -> str:
        return self.text.split("\n", 1)[0]

    def __str__(self) -> str:
        return f"{self.page}:{self.line} ({self.first[:60]})"


def pages() -> list[str]:
    return ["README.md", *(f"docs/{p.name}" for p in sorted((REPO / "docs").glob("*.md")))]


def blocks(page: str) -> list[Block]:
    text = (REPO / page).read_text()
    return [
        Block(page, text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2))
        for m in FENCE.finditer(text)
    ]


def every_block() -> list[Block]:
    return [b for page in ORDER for b in blocks(page)]


def listed(block: Block) -> str | None:
    """The key of LISTED this block is, if any."""
    keys = [key for key in LISTED if block.first.startswith(key)]
    return keys[0] if keys else None
