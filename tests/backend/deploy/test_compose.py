"""docker-compose.yml: the services the README promises, with health checks, running the very
commands `make up` runs — and those commands, run here, bring up a working API."""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest
import yaml

from perfatlas.cli import run_migrations
from tests.conftest import delete_redis_queue, patient
from tests.databases import create_database, drop_database

# Runs docker-compose's commands as processes: a server, a worker, migrations.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]


def interpolate(text: str) -> str:
    """Compose's ${VAR:-default} substitution, from this process's environment."""
    return re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: os.environ.get(m.group(1)) or m.group(2), text)


def compose() -> dict:
    return yaml.safe_load(interpolate((REPO / "docker-compose.yml").read_text()))


def test_compose_services_have_health_checks_and_a_database_volume() -> None:
    spec = compose()
    services = spec["services"]
    assert {"postgres", "redis", "api"} <= set(services)
    for name, service in services.items():
        assert "healthcheck" in service, name
    assert any(v.startswith("pgdata:") for v in services["postgres"]["volumes"])
    assert "pgdata" in spec["volumes"]
    api = services["api"]
    assert api["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert (REPO / api["build"]["dockerfile"]).is_file()
    # Every PERFATLAS_* variable the compose file sets is a real setting.
    from perfatlas.core.config import Settings

    for key in api["environment"]:
        assert key.removeprefix("PERFATLAS_").lower() in Settings.model_fields, key


def test_compose_runs_the_commands_make_up_runs() -> None:
    api_command = compose()["services"]["api"]["command"][-1]
    makefile = (REPO / "Makefile").read_text()
    up_recipe = makefile.split("\nup:", 1)[1].split("\n\n", 1)[0]
    for step in [part.strip() for part in api_command.split("&&")]:
        assert re.search(r"perfatlas " + re.escape(step.removeprefix("perfatlas ")), up_recipe), (
            step
        )
    dockerfile = (REPO / "backend" / "Dockerfile").read_text()
    assert api_command in dockerfile


def test_the_compose_api_command_serves_on_postgresql(tmp_path: Path) -> None:
    api = compose()["services"]["api"]
    name = "perfatlas_test_compose"
    url = create_database(name)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, **{k: str(v) for k, v in api["environment"].items()}}
    env.update(PERFATLAS_DATABASE_URL=url, PERFATLAS_HOST="127.0.0.1", PERFATLAS_PORT=str(port))
    env["PATH"] = f"{Path(os.sys.executable).parent}:{env['PATH']}"
    # Its own process group: the command is a shell running migrate then serve, and stopping
    # the shell alone would leave the server behind.
    proc = subprocess.Popen(
        api["command"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + patient(60)
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=1)
                if health.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
            assert time.monotonic() < deadline, "the compose command did not serve within 60 s"
            time.sleep(0.2)
        assert health.json()["database"] == "postgresql"
        # The healthcheck command of the compose file passes against it.
        check = api["healthcheck"]["test"][1:]
        check = [c.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for c in check]
        subprocess.run(
            [os.sys.executable if check[0] == "python" else check[0], *check[1:]], check=True
        )
        assert shlex.split(api["command"][-1])[0] == "perfatlas"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
        drop_database(name)


def test_the_compose_worker_command_runs_and_answers_its_healthcheck(tmp_path: Path) -> None:
    """The worker service's exact command on PostgreSQL and Redis; its healthcheck passes
    while it runs and fails once it is gone."""
    worker = compose()["services"]["worker"]
    assert worker["command"] == ["perfatlas", "worker", "--beat", "--concurrency", "4"]
    assert worker["environment"]["PERFATLAS_BROKER_URL"].startswith("redis://")
    # Its CPU weight is below every other service's (which keep the default, 1024).
    assert worker["cpu_shares"] == 128
    others = [s for n, s in compose()["services"].items() if n != "worker"]
    assert all("cpu_shares" not in s and "cpu_weight" not in s for s in others)
    name = "perfatlas_test_compose_worker"
    url = create_database(name)
    run_migrations(url)
    queue = f"perfatlas-test-compose-{os.getpid()}"
    env = {**os.environ, **{k: str(v) for k, v in worker["environment"].items()}}
    env.update(
        PERFATLAS_DATABASE_URL=url, PERFATLAS_BROKER_URL="redis://127.0.0.1:6379/0",
        PERFATLAS_QUEUE=queue, PERFATLAS_DATA_DIR=str(tmp_path),
    )  # fmt: skip
    env["PATH"] = f"{Path(os.sys.executable).parent}:{env['PATH']}"
    check = worker["healthcheck"]["test"][1:]
    log = (tmp_path / "worker.log").open("wb")
    proc = subprocess.Popen(
        worker["command"], env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + patient(60)
        while subprocess.run(check, env=env, capture_output=True).returncode != 0:
            assert proc.poll() is None, (tmp_path / "worker.log").read_text()
            assert time.monotonic() < deadline, "the worker did not answer in time"
            time.sleep(0.5)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
        log.close()
    gone = subprocess.run(check, env=env, capture_output=True, text=True)
    assert gone.returncode == 1 and f"no worker answered on queue {queue!r}" in gone.stderr
    delete_redis_queue(queue)
    drop_database(name)


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore keeps `path` (relative to the repo) out of the build context: a
    pattern matches the path or one of its parent directories; `**/` matches at any depth."""
    from fnmatch import fnmatchcase

    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in patterns:
        anywhere = pattern.startswith("**/")
        core = pattern.removeprefix("**/")
        for prefix in prefixes:
            tails = ["/".join(prefix.split("/")[i:]) for i in range(prefix.count("/") + 1)]
            if any(fnmatchcase(t, core) for t in (tails if anywhere else [prefix])):
                return True
    return False


def test_the_image_is_built_from_sources_only() -> None:
    """Host build outputs stay out of the build context, and every COPY from the context names
    sources that are in it (a COPY of an ignored path would fail the build)."""
    patterns = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for host_output in (
        ".venv/bin/python", "frontend/node_modules/vite/package.json", "frontend/dist/index.html",
        ".data/perfatlas.db", ".git/HEAD", "backend/perfatlas/__pycache__/cli.cpython-311.pyc",
        "backend/perfatlas.egg-info/PKG-INFO",
    ):  # fmt: skip
        assert _ignored(host_output, patterns), host_output
    dockerfile = (REPO / "backend" / "Dockerfile").read_text()
    copies = re.findall(r"^COPY (?!--from)(.+)$", dockerfile, flags=re.MULTILINE)
    assert copies
    for copy in copies:
        *sources, _destination = copy.split()
        for source in sources:
            source = source.rstrip("/")
            assert (REPO / source).exists(), source
            assert not _ignored(source, patterns), source
    # The UI stage installs its own node_modules and never copies the whole frontend/ over it.
    assert "COPY frontend/ " not in dockerfile and "COPY frontend " not in dockerfile
    assert re.search(r"^RUN npm ci", dockerfile, flags=re.MULTILINE)


def test_every_long_running_service_is_restarted_when_it_dies() -> None:
    """Compose and the shipped systemd units restart the API and the worker, and run commands
    this CLI has."""
    services = compose()["services"]
    for name in ("api", "worker"):
        assert services[name]["restart"] in ("always", "unless-stopped"), name
    from typer.testing import CliRunner

    from perfatlas.cli import app

    units = sorted((REPO / "backend" / "systemd").glob("*.service"))
    assert [u.name for u in units] == ["perfatlas-api.service", "perfatlas-worker.service"]
    for unit in units:
        lines = dict(
            line.split("=", 1) for line in unit.read_text().splitlines()
            if "=" in line and not line.startswith("#")
        )  # fmt: skip
        assert lines["Restart"] == "always", unit.name
        argv = shlex.split(lines["ExecStart"])
        assert argv[0].endswith("/perfatlas"), unit.name
        # Every option the unit passes is one the command takes.
        helped = CliRunner().invoke(app, [*argv[1:2], "--help"])
        assert helped.exit_code == 0, helped.output
        for option in argv[2:]:
            assert option in helped.output, (unit.name, option)
