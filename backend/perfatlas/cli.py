"""The perfatlas command: serve, migrate, token, detect, report."""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from perfatlas.auth.cli import token_app
from perfatlas.backup.cli import export_command, import_command
from perfatlas.core.config import get_settings
from perfatlas.references.cli import reference_app
from perfatlas.reports.cli import report_app

app = typer.Typer(help="PerfAtlas server.", no_args_is_help=True, add_completion=False)
app.add_typer(token_app, name="token")
agent_app = typer.Typer(help="Agents: the test machines that take jobs.", no_args_is_help=True)
app.add_typer(agent_app, name="agent")
app.add_typer(report_app, name="report")
app.add_typer(reference_app, name="reference", no_args_is_help=True)
app.command("export")(export_command)
app.command("import")(import_command)

REPO_ROOT = Path(__file__).resolve().parents[2]


def _alembic_config(url: str) -> object:
    from alembic.config import Config

    config = Config(str(REPO_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def run_migrations(url: str) -> None:
    from alembic import command

    command.upgrade(_alembic_config(url), "head")  # type: ignore[arg-type]


@app.command()
def migrate() -> None:
    """Bring the database schema up to date (safe to run again)."""
    url = get_settings().effective_database_url
    run_migrations(url)
    typer.echo(f"database is up to date ({url.split('://', 1)[0]})")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="address to listen on")] = None,
    port: Annotated[int | None, typer.Option(help="port to listen on")] = None,
    workers: Annotated[int, typer.Option(help="uvicorn worker processes")] = 1,
    migrate_first: Annotated[bool, typer.Option("--migrate/--no-migrate")] = True,
    with_worker: Annotated[
        bool,
        typer.Option(
            "--with-worker/--no-worker",
            help="also run the background worker (with beat) as a child process, as make up does",
        ),
    ] = False,
    first_run: Annotated[
        bool,
        typer.Option(
            "--first-run/--no-first-run",
            help="once per database, run the quick studies here through a local agent, as make "
            "up does (off with PERFATLAS_FIRST_RUN=0)",
        ),
    ] = False,
) -> None:
    """Run the API (and the built web UI) with uvicorn."""

    import uvicorn

    from perfatlas.firstrun import launch
    from perfatlas.worker.celery_app import prepare_broker

    settings = get_settings()
    if migrate_first:
        run_migrations(settings.effective_database_url)
    # Before the worker and the server's first send, so that neither makes the queues' rows.
    prepare_broker(settings)
    supervisor = None
    if with_worker:
        from perfatlas.worker.supervise import WorkerSupervisor

        # The worker logs to a file: its banner would bury the URL and the token.
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        log_path = settings.data_dir / "worker.log"
        supervisor = WorkerSupervisor(settings, log_path, typer.echo, _die_with_parent)
        supervisor.start()
        typer.echo(
            f"background worker started (pid {supervisor.child.pid}, restarted if it stops); "  # type: ignore[union-attr]
            f"its log: {log_path}"
        )
    helper = None
    if first_run:
        helper = launch.start(settings, host or settings.host, port or settings.port, typer.echo,
                              _die_with_parent)  # fmt: skip
    try:
        _run_uvicorn(uvicorn, settings, host, port, workers)
    finally:
        launch.stop(helper, typer.echo)
        if supervisor is not None:
            supervisor.stop()


def _die_with_parent() -> None:
    """In the worker child: get SIGTERM when `perfatlas serve` goes, however it goes (uvicorn
    re-raises the signal that stopped it, so no cleanup code of ours runs after it)."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _run_uvicorn(
    uvicorn: Any, settings: Any, host: str | None, port: int | None, workers: int
) -> None:
    uvicorn.run(
        "perfatlas.main:create_app",
        factory=True,
        host=host or settings.host,
        port=port or settings.port,
        workers=workers,
        log_level=settings.log_level,
        # The access log would show query strings; tokens never travel there, but keep it lean.
        access_log=False,
        # Idle connections stay open longer than clients keep theirs in a pool (httpx: 5 s), so
        # a client never sends on a connection the server is closing at that moment.
        timeout_keep_alive=settings.keepalive_seconds,
    )


class WorkerQueues(StrEnum):
    all = "all"
    work = "work"
    notify = "notify"


def _lower_priority(nice: int) -> None:
    """This process (and so the pool's and beat's processes it forks) at `nice`, unless it runs
    at a lower priority already (never raised: that takes privileges a container lacks)."""
    if nice and hasattr(os, "setpriority"):
        current = os.getpriority(os.PRIO_PROCESS, 0)
        if current < nice:
            os.setpriority(os.PRIO_PROCESS, 0, nice)


@app.command()
def worker(
    beat: Annotated[
        bool, typer.Option("--beat/--no-beat", help="also run the periodic passes (one worker)")
    ] = True,
    concurrency: Annotated[int, typer.Option(help="tasks at once (processes)")] = 1,
    loglevel: Annotated[str, typer.Option(help="Celery log level")] = "INFO",
    only: Annotated[
        WorkerQueues,
        typer.Option(
            help="all: every queue; work: detection, schedules and jobs; notify: notifications"
        ),
    ] = WorkerQueues.all,
) -> None:
    """Run the background worker: detection after uploads, the nightly pass, notifications.

    Run exactly one worker with --beat (the default); more workers take --no-beat."""
    from perfatlas.worker.celery_app import prepare_broker, worker_app

    settings = get_settings()
    prepare_broker(settings)
    app = worker_app()
    queues = {
        "all": [settings.queue, settings.effective_notify_queue],
        "work": [settings.queue],
        "notify": [settings.effective_notify_queue],
    }[only]
    argv = [
        "worker",
        f"--loglevel={loglevel}",
        f"--queues={','.join(queues)}",
        f"--concurrency={concurrency}",
        # solo runs tasks in the worker process itself: no fork, which SQLite and the
        # database broker prefer; more than one task at once takes the prefork pool.
        "--pool=solo" if concurrency == 1 else "--pool=prefork",
        "--without-gossip",
        "--without-mingle",
    ]
    if beat:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        argv += ["--beat", f"--schedule={settings.data_dir / 'celerybeat-schedule'}"]
    _lower_priority(settings.worker_nice)
    typer.echo(f"worker on queues {', '.join(queues)}, broker {_redact(app.conf.broker_url)}")
    app.worker_main(argv=argv)


@app.command()
def ping(
    timeout: Annotated[float, typer.Option(help="seconds to wait for answers")] = 3.0,
) -> None:
    """Ask the workers consuming this server's queue to answer (a health check); exits 1
    when none does. Needs a Redis broker (the database broker has no remote control)."""
    from perfatlas.worker.celery_app import worker_app

    settings = get_settings()
    queues = worker_app().control.inspect(timeout=timeout).active_queues() or {}
    mine = sorted(
        name for name, consumed in queues.items()
        if any(q.get("name") == settings.queue for q in consumed)
    )  # fmt: skip
    if not mine:
        typer.echo(f"no worker answered on queue {settings.queue!r}", err=True)
        raise SystemExit(1)
    for name in mine:
        typer.echo(f"{name}: ok")


@app.command()
def check(
    window: Annotated[
        int | None,
        typer.Option(help="newest points of each series to look at [PERFATLAS_NIGHTLY_WINDOW]"),
    ] = None,
) -> None:
    """Check every series for change points now and open/resolve alerts (what the worker's
    nightly pass does), then print what changed. Notifications are queued for the worker."""
    from perfatlas.alerts.service import check_all
    from perfatlas.core.db import get_engine, session_factory
    from perfatlas.notifications.service import queue_sweep

    settings = get_settings()
    with session_factory(get_engine(settings.effective_database_url))() as session:
        report = check_all(session, settings=settings, window=window or settings.nightly_window)
    if report.notifications:
        queue_sweep(settings, countdown=min(report.notifications))
    typer.echo(
        f"checked {report.series} series: {report.opened} alerts opened, {report.updated} "
        f"updated, {report.resolved} resolved, {report.withdrawn} withdrawn"
    )


@app.command()
def fold() -> None:
    """Fold every run still pending into explore's rollups now (what the worker's fold task
    does after uploads), then print how many runs were folded and how long it took."""
    import time

    from perfatlas.core.db import get_engine, session_factory
    from perfatlas.rollups.service import fold_pending, pending_count

    settings = get_settings()
    started = time.monotonic()
    with session_factory(get_engine(settings.effective_database_url))() as session:
        done = fold_pending(session)
        left = pending_count(session)
    typer.echo(
        f"folded {done.runs} runs in {done.batches} batches in {time.monotonic() - started:.2f} s"
        f"; {left} pending" + (" (another fold is running)" if done.busy else "")
    )


def _redact(url: str) -> str:
    """A URL without its password, for logs."""
    import re

    return re.sub(r"://([^:/@]*):[^@]*@", r"://\1:***@", url)


@agent_app.command("enroll-token")
def agent_enroll_token(
    label: Annotated[
        list[str] | None, typer.Option("--label", help="k=v, a label the agent gets; repeatable")
    ] = None,
    hours: Annotated[int, typer.Option(help="hours until it expires (1..720)")] = 24,
) -> None:
    """Make a one-time enrollment token (perfatlas-agent enroll --enrollment-token T); it is
    printed once and only its hash is stored."""
    from perfatlas.agents.enrollment import create_enrollment_token
    from perfatlas.agents.schemas import EnrollmentTokenCreate
    from perfatlas.core.db import get_engine, session_factory

    labels: dict[str, str] = {}
    for item in label or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"{item!r} is not k=v", param_hint="--label")
        labels[key] = value
    try:
        body = EnrollmentTokenCreate(labels=labels, expires_in_hours=hours)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    engine = get_engine(get_settings().effective_database_url)
    with session_factory(engine)() as session:
        row, token = create_enrollment_token(
            session, labels=body.labels, expires_in_hours=body.expires_in_hours
        )
        session.commit()
    typer.echo(token)
    typer.echo(f"expires {row.expires_at:%Y-%m-%d %H:%M} UTC; shown only now", err=True)


@app.command("detect")
def detect_command(
    input_path: Annotated[
        str, typer.Option("--input", help='JSON file {"series": [...]}, or - for stdin')
    ],
    min_confidence: Annotated[
        float, typer.Option(help="report changes at least this confident (0..1)")
    ] = 0.99,
) -> None:
    """Find change points in series given as JSON; prints them as JSON (no database needed).

    Input: {"series": [{"id": "s1", "direction": "higher", "points": [[1.0, 1.1], 0.98, ...]}]}
    where direction says which way is better and each point is a number or a list of samples.
    An optional "contexts" list (one object per point: environment, labels) adds the keys that
    changed with each change point as its cause.
    """
    import json

    from perfatlas.analysis.document import InputError, detect_document

    try:
        if input_path == "-":
            text = sys.stdin.read()
        else:
            text = Path(input_path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        typer.echo(f"error: cannot read {input_path}: {exc}", err=True)
        raise SystemExit(2) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        typer.echo(f"error: {input_path} is not JSON: {exc}", err=True)
        raise SystemExit(2) from None
    try:
        result = detect_document(document, min_confidence=min_confidence)
    except InputError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise SystemExit(2) from None
    typer.echo(json.dumps(result, indent=2))


def main() -> None:
    from pydantic import ValidationError

    try:
        app()
    except ValidationError as exc:
        # A bad PERFATLAS_* variable: say which, without a traceback.
        for error in exc.errors():
            name = "PERFATLAS_" + "_".join(str(p) for p in error["loc"]).upper()
            typer.echo(f"error: {name}: {error['msg']}", err=True)
        raise SystemExit(2) from None
