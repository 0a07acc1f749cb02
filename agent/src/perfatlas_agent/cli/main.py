"""The thin command line on top of the library: run, upload, workloads."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Any

import click

from perfatlas_agent import __version__
from perfatlas_agent.cli.study import study
from perfatlas_agent.config import (
    AgentConfig,
    config_path,
    default_config_dir,
    load_config,
    save_config,
)
from perfatlas_agent.daemon.loop import Daemon, default_daemon_spool
from perfatlas_agent.daemon.protocol import enroll as enroll_agent
from perfatlas_agent.errors import AgentError, ConfigError
from perfatlas_agent.firstrun import first_run_command
from perfatlas_agent.measure.params import parse_assignments
from perfatlas_agent.measure.spec import load_specs
from perfatlas_agent.measure.sweep import RunRequest
from perfatlas_agent.send.deliver import Upload, run_requests
from perfatlas_agent.send.report import EXIT_INTERRUPTED, print_status, say
from perfatlas_agent.send.spool import Spool, default_fallback_dir, default_spool_dir
from perfatlas_agent.send.upload import upload_command
from perfatlas_agent.workloads import all_workloads


def _upload_options(fn: Any) -> Any:
    fn = click.option("--server", envvar="PERFATLAS_SERVER", help="server URL ($PERFATLAS_SERVER)")(
        fn
    )
    fn = click.option("--token", envvar="PERFATLAS_TOKEN", help="upload token ($PERFATLAS_TOKEN)")(
        fn
    )
    fn = click.option(
        "--spool",
        "spool_dir",
        envvar="PERFATLAS_AGENT_SPOOL",
        type=click.Path(path_type=Path, file_okay=False),
        help=f"spool folder ($PERFATLAS_AGENT_SPOOL, default {default_spool_dir()})",
    )(fn)
    fn = click.option(
        "--fallback-spool",
        "fallback_dir",
        envvar="PERFATLAS_AGENT_FALLBACK_SPOOL",
        type=click.Path(path_type=Path, file_okay=False),
        help="where a run goes when the spool cannot take it ($PERFATLAS_AGENT_FALLBACK_SPOOL, "
        f"default {default_fallback_dir()})",
    )(fn)
    fn = click.option(
        "--retry-deadline",
        envvar="PERFATLAS_AGENT_RETRY_DEADLINE",
        type=float,
        default=60.0,
        show_default=True,
        help="seconds to keep retrying a failing server before leaving runs in the spool",
    )(fn)
    return fn


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="perfatlas-agent")
def cli() -> None:
    """PerfAtlas agent: run storage workloads and upload the results."""


@cli.command()
def workloads() -> None:
    """List the workloads with their parameters and defaults."""
    for wl in all_workloads().values():
        click.echo(f"{wl.name}: {wl.description}")
        for spec in wl.params:
            choices = f" [{'|'.join(spec.choices)}]" if spec.choices else ""
            click.echo(
                f"    {spec.name:<14} {spec.kind:<8} default {spec.describe_default():<10} "
                f"{spec.help}{choices}"
            )
        if wl.accepts_extra_params:
            click.echo("    (any other --param name=value is substituted as {name})")


def _config_option(fn: Any) -> Any:
    return click.option(
        "--config-dir",
        envvar="PERFATLAS_AGENT_CONFIG_DIR",
        type=click.Path(path_type=Path, file_okay=False),
        help=f"folder of agent.json ($PERFATLAS_AGENT_CONFIG_DIR, default {default_config_dir()})",
    )(fn)


def _server_and_token(
    server: str | None, token: str | None, config: AgentConfig | None
) -> tuple[str | None, str | None]:
    """--server/--token (or their variables) first; else the enrolled agent's, whose token is
    used only with its own server."""
    if config is None:
        return server, token
    if not server:
        return config.server, token or config.token
    same = server.rstrip("/") == config.server.rstrip("/")
    return server, token or (config.token if same else None)


@cli.command()
@click.argument("workload", required=False)
@click.option(
    "--spec",
    "spec_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="run a WorkloadSpec JSON file (workload, targets, params, labels...), or a list of them",
)
@click.option("--target", type=click.Path(path_type=Path), help="folder to test in")
@click.option("--param", "-p", "params", multiple=True, help="k=v; k=a,b,c sweeps")
@click.option("--repetitions", "-n", type=int, help="samples per run (default 3)")
@click.option("--label", "-l", "labels", multiple=True, help="k=v label on every run")
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    help="also write the runs to this JSON file (their attachments go to a folder beside "
    "it: F.json -> F.attachments/<run uuid>/)",
)
@click.option("--no-warmup", is_flag=True, help="keep the first repetition (no warm-up)")
@click.option(
    "--min-seconds",
    envvar="PERFATLAS_AGENT_MIN_SECONDS",
    type=float,
    default=0.5,
    show_default=True,
    help="grow the sizes left at their defaults until every timed phase lasts this long "
    "(calibrated before the measured repetitions; 0 runs the sizes as they are)",
)
@click.option("--force", is_flag=True, help="run in a target that is not empty")
@click.option(
    "--agent-name",
    envvar="PERFATLAS_AGENT_NAME",
    help="the machine's name on the runs (default: the enrolled name, else the hostname)",
)
@_upload_options
@_config_option
@click.pass_context
def run(
    ctx: click.Context,
    workload: str | None,
    spec_file: Path | None,
    target: Path | None,
    params: tuple[str, ...],
    repetitions: int | None,
    labels: tuple[str, ...],
    output: Path | None,
    no_warmup: bool,
    min_seconds: float,
    force: bool,
    agent_name: str | None,
    server: str | None,
    token: str | None,
    spool_dir: Path | None,
    fallback_dir: Path | None,
    retry_deadline: float,
    config_dir: Path | None,
) -> None:
    """Run WORKLOAD on --target (or a --spec file), spool every run, then upload (or write
    --output)."""
    config = load_config(config_dir)
    server, token = _server_and_token(server, token, config)
    name = agent_name or (config.name if config else None) or socket.gethostname()
    extra_labels = parse_assignments(labels, "--label")
    if spec_file is not None:
        given = [what for what, value in (
            ("WORKLOAD", workload), ("--target", target), ("--param", params),
            ("--repetitions", repetitions), ("--no-warmup", no_warmup),
        ) if value]  # fmt: skip
        if ctx.get_parameter_source("min_seconds") == click.core.ParameterSource.COMMANDLINE:
            given.append("--min-seconds")
        if given:
            raise click.UsageError(
                f"--spec says what to run; {', '.join(given)} cannot be given with it "
                "(--label adds labels)"
            )
        requests = [
            request
            for spec in load_specs(spec_file)
            for request in spec.requests(agent_name=name, extra_labels=extra_labels, force=force)
        ]
    else:
        if workload is None or target is None:
            raise click.UsageError("give WORKLOAD and --target, or --spec FILE.json")
        requests = [
            RunRequest(
                workload=workload,
                target=target,
                params=dict(parse_assignments(params)),
                repetitions=3 if repetitions is None else repetitions,
                labels=extra_labels,
                warmup=not no_warmup,
                force=force,
                min_seconds=min_seconds,
                agent_name=name,
            )
        ]
    upload = Upload(server, token, Spool(spool_dir), retry_deadline,
                    Spool(fallback_dir or default_fallback_dir()))  # fmt: skip
    sys.exit(run_requests(requests, upload, output))


@cli.command()
@click.option("--server", required=True, help="the PerfAtlas server's URL")
@click.option(
    "--enrollment-token",
    envvar="PERFATLAS_ENROLLMENT_TOKEN",
    required=True,
    help="one-time token from `perfatlas agent enroll-token` ($PERFATLAS_ENROLLMENT_TOKEN)",
)
@click.option(
    "--name",
    default=socket.gethostname,
    show_default="hostname",
    help="this agent's name on the server",
)
@click.option("--label", "-l", "labels", multiple=True, help="k=v label of this agent")
@click.option("--force", is_flag=True, help="replace an existing agent.json")
@_config_option
def enroll(
    server: str, enrollment_token: str, name: str, labels: tuple[str, ...], force: bool,
    config_dir: Path | None,
) -> None:  # fmt: skip
    """Enroll this machine: exchange a one-time enrollment token for the agent's own token,
    kept in agent.json (mode 0600) for `daemon`, `run` and `upload`."""
    path = config_path(config_dir)
    if path.exists() and not force:
        raise ConfigError(f"{path} exists (this machine is enrolled); --force replaces it")
    answer = enroll_agent(
        server, enrollment_token=enrollment_token, name=name,
        labels=parse_assignments(labels, "--label"),
    )  # fmt: skip
    config = AgentConfig(server=server.rstrip("/"), name=str(answer["name"]),
                         token=str(answer["token"]), labels=dict(answer.get("labels") or {}))  # fmt: skip
    save_config(config_dir, config)
    say(f"enrolled as {config.name} on {config.server}; wrote {path}", fg="green")
    if config.labels:
        say("labels: " + " ".join(f"{k}={v}" for k, v in sorted(config.labels.items())))


@cli.command()
@_config_option
@click.option(
    "--spool", "spool_dir", envvar="PERFATLAS_AGENT_DAEMON_SPOOL",
    type=click.Path(path_type=Path, file_okay=False),
    help=f"the daemon's spool ($PERFATLAS_AGENT_DAEMON_SPOOL, default {default_daemon_spool()})",
)  # fmt: skip
@click.option("--claim-wait", type=click.IntRange(1, 30), default=25, show_default=True,
              help="seconds each long-poll for a job waits")  # fmt: skip
def daemon(config_dir: Path | None, spool_dir: Path | None, claim_wait: int) -> None:
    """Take jobs from the server and run them (the enrolled agent; see `enroll`)."""
    config = load_config(config_dir, required=True)
    assert config is not None
    spool = Spool(spool_dir or default_daemon_spool())
    sys.exit(Daemon(config, spool, claim_wait=claim_wait).run())


@cli.command()
@click.argument("file", required=False, type=click.Path(path_type=Path, dir_okay=False))
@_upload_options
@_config_option
def upload(
    file: Path | None,
    server: str | None,
    token: str | None,
    spool_dir: Path | None,
    fallback_dir: Path | None,
    retry_deadline: float,
    config_dir: Path | None,
) -> None:
    """Send FILE's runs (through the spool, as many at a time as it holds), or flush the spool
    (and the fallback spool) when no FILE is given."""
    server, token = _server_and_token(server, token, load_config(config_dir))
    fallback = Spool(fallback_dir or default_fallback_dir())
    sys.exit(upload_command(file, Spool(spool_dir), fallback, server, token, retry_deadline))


@cli.command()
@click.option(
    "--spool",
    "spool_dir",
    envvar="PERFATLAS_AGENT_SPOOL",
    type=click.Path(path_type=Path, file_okay=False),
    help="spool folder ($PERFATLAS_AGENT_SPOOL)",
)
@click.option(
    "--fallback-spool", "fallback_dir", envvar="PERFATLAS_AGENT_FALLBACK_SPOOL",
    type=click.Path(path_type=Path, file_okay=False),
    help="fallback spool folder ($PERFATLAS_AGENT_FALLBACK_SPOOL)",
)  # fmt: skip
@_config_option
def status(spool_dir: Path | None, fallback_dir: Path | None, config_dir: Path | None) -> None:
    """What the spool holds: runs waiting (with the server's message if it failed on one),
    runs owned by a running agent, and runs the server rejected; and the fallback spool's
    runs, if it holds any."""
    config = load_config(config_dir)
    if config is not None:
        click.echo(f"enrolled as {config.name} on {config.server} ({config_path(config_dir)})")
    spool = Spool(spool_dir)
    print_status(spool)
    fallback = Spool(fallback_dir or default_fallback_dir())
    if (
        fallback.root != spool.root
        and fallback.owned()
        and (fallback.pending() or fallback.rejected())
    ):
        click.echo("the fallback spool, used when the spool could not take a run:")
        print_status(fallback)


cli.add_command(study)
cli.add_command(first_run_command)


def main() -> None:
    # A command may run the agent's own python (a study's erasure.py example does).
    os.environ.setdefault("PERFATLAS_AGENT_PYTHON", sys.executable)
    try:
        cli.main(prog_name="perfatlas-agent", standalone_mode=False)
    except click.exceptions.Abort:
        say("aborted", fg="red")
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except AgentError as exc:
        say(f"error: {exc}", fg="red")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        say("interrupted", fg="red")
        sys.exit(EXIT_INTERRUPTED)
    except OSError as exc:
        say(f"error: {exc}", fg="red")
        sys.exit(1)


if __name__ == "__main__":
    main()
