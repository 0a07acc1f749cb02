"""The thin command line on top of the library: run, upload, workloads."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from typing import Any

import click

from perfatlas_agent import __version__
from perfatlas_agent._exceptions import AgentError, UploadError
from perfatlas_agent.client import Client, UploadReport, check_server, flush
from perfatlas_agent.params import parse_assignments
from perfatlas_agent.progress import make_reporter
from perfatlas_agent.runner import Interrupted, RunRequest, plan_runs, run_sweep
from perfatlas_agent.spool import Claim, Spool, default_spool_dir, write_durably
from perfatlas_agent.workloads import all_workloads

EXIT_REJECTED = 3
EXIT_RUN_FAILED = 5
EXIT_INTERRUPTED = 130


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
        "--retry-deadline",
        envvar="PERFATLAS_AGENT_RETRY_DEADLINE",
        type=float,
        default=60.0,
        show_default=True,
        help="seconds to keep retrying a failing server before leaving runs in the spool",
    )(fn)
    return fn


def _say(text: str, *, err: bool = True, fg: str | None = None) -> None:
    click.secho(text, err=err, fg=fg)


def _flush(
    spool: Spool, server: str, token: str | None, deadline: float, claim: Claim | None = None
) -> UploadReport:
    def on_retry(problem: str, wait: float) -> None:
        _say(f"upload failed ({problem}); retrying in {wait:.1f}s", fg="yellow")

    with Client(server, token, deadline_s=deadline, on_retry=on_retry) as client:
        report = flush(spool, client, on_message=lambda m: _say(m, fg="red"), claim=claim)
    # Counted per invocation: a run made by another process is never reported as this one's.
    mine = claim.uuids if claim is not None else None
    created = [u for u in report.created if mine is None or u in mine]
    existing = [u for u in report.existing if mine is None or u in mine]
    if created or existing:
        whose = " of this invocation" if mine is not None else ""
        _say(
            f"uploaded {len(created) + len(existing)} run(s){whose} to {server} "
            f"({len(created)} new, {len(existing)} already there)",
            fg="green",
        )
    if mine is not None:
        earlier = [u for u in report.created + report.existing if u not in mine]
        if earlier:
            _say(f"also uploaded {len(earlier)} run(s) left in the spool by earlier invocations")
    for run_uuid, reason in report.rejected:
        _say(f"REJECTED {run_uuid}: {reason}", fg="red")
    if report.rejected:
        _say(
            f"{len(report.rejected)} run(s) moved to {spool.rejected_dir}; "
            "they will not be retried",
            fg="red",
        )
    for run_uuid, reason in report.held:
        _say(f"KEPT {run_uuid}: the server failed on it: {reason}", fg="red")
    if report.error:
        _say(f"upload error: {report.error}", fg="red")
    if report.remaining:
        _say(
            f"{report.remaining} run(s) remain in the spool {spool.root}; "
            "`perfatlas-agent upload` sends them (`perfatlas-agent status` lists them)",
            fg="yellow",
        )
    if report.left_to_others:
        pids = ", ".join(str(p) for p in sorted(set(report.left_to_others.values())))
        _say(
            f"{len(report.left_to_others)} run(s) in the spool belong to a running "
            f"perfatlas-agent (pid {pids}), which uploads them itself"
        )
    return report


def _exit_code(report: UploadReport | None) -> int:
    if report is None:
        return 0
    if report.error and "token" in report.error:
        return 4
    if report.remaining:
        return 1
    if report.rejected:
        return EXIT_REJECTED
    return 0


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


@cli.command()
@click.argument("workload")
@click.option("--target", required=True, type=click.Path(path_type=Path), help="folder to test in")
@click.option("--param", "-p", "params", multiple=True, help="k=v; k=a,b,c sweeps")
@click.option("--repetitions", "-n", default=3, show_default=True, type=int)
@click.option("--label", "-l", "labels", multiple=True, help="k=v label on every run")
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    help="also write the runs to this JSON file",
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
    default=socket.gethostname,
    show_default="hostname",
)
@_upload_options
def run(
    workload: str,
    target: Path,
    params: tuple[str, ...],
    repetitions: int,
    labels: tuple[str, ...],
    output: Path | None,
    no_warmup: bool,
    min_seconds: float,
    force: bool,
    agent_name: str,
    server: str | None,
    token: str | None,
    spool_dir: Path | None,
    retry_deadline: float,
) -> None:
    """Run WORKLOAD on --target, spool every run, then upload (or write --output)."""
    request = RunRequest(
        workload=workload,
        target=target,
        params=parse_assignments(params),
        repetitions=repetitions,
        labels=parse_assignments(labels, "--label"),
        warmup=not no_warmup,
        force=force,
        min_seconds=min_seconds,
        agent_name=agent_name,
    )
    spool = Spool(spool_dir)
    use_spool = bool(server) or output is None
    plan_runs(request)  # bad parameters are reported before anything else
    if server:
        # Seconds, not the length of the whole workload, to find a wrong token or server.
        problem = check_server(server, token)
        if problem:
            _say(f"{problem}; running anyway: the runs are spooled and the upload retried",
                 fg="yellow")  # fmt: skip
    runs: list[dict[str, Any]] = []
    claim = spool.claim() if use_spool else None

    def on_run(one: dict[str, Any]) -> None:
        if claim is not None:
            claim.add(one["uuid"])  # claimed before it is spooled: no other process sends it
            spool.put(one)
        runs.append(one)

    reporter = make_reporter()
    interrupted = False
    try:
        run_sweep(request, reporter, on_run)
    except Interrupted:
        interrupted = True
        reporter.message(f"interrupted: {len(runs)} run(s) measured are kept")
    finally:
        reporter.close()
    _print_summary(runs)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        write_durably(output, json.dumps({"runs": runs}, indent=1).encode())
        _say(f"wrote {len(runs)} run(s) to {output}")
    report: UploadReport | None = None
    try:
        if server:
            report = _flush(spool, server, token, retry_deadline, claim)
    finally:
        if claim is not None:
            claim.release()
    if not server and use_spool:
        _say(
            f"{len(runs)} run(s) kept in the spool {spool.root}; no server configured "
            "(--server or PERFATLAS_SERVER), send them later with `perfatlas-agent upload`",
            fg="yellow",
        )
    code = _exit_code(report)
    failed = [r for r in runs if r["status"] == "failed"]
    if failed and not code:
        _say(f"{len(failed)} run(s) failed (recorded with status failed)", fg="red")
        code = EXIT_RUN_FAILED
    sys.exit(EXIT_INTERRUPTED if interrupted else code)


def _print_summary(runs: list[dict[str, Any]]) -> None:
    for one in runs:
        params = " ".join(f"{k}={v}" for k, v in one["parameters"].items() if k != "cmd")
        click.echo(f"{one['workload']} {params} [{one['status']}] {one['uuid']}")
        for res in one["results"]:
            click.echo(f"    {res['metric']:<34} {res['value']:>14.3f} {res['unit']}")
        warning = one["meta"].get("warning")
        if warning:
            click.echo(f"    note: {warning}")


def _load_runs(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise AgentError(f"cannot read runs from {path}: {exc}") from exc
    if isinstance(data, dict) and isinstance(data.get("runs"), list):
        data = data["runs"]
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not all(isinstance(r, dict) and "uuid" in r for r in data):
        raise AgentError(f'{path} holds no runs (expected {{"runs": [...]}})')
    return data


@cli.command()
@click.argument("file", required=False, type=click.Path(path_type=Path, dir_okay=False))
@_upload_options
def upload(
    file: Path | None,
    server: str | None,
    token: str | None,
    spool_dir: Path | None,
    retry_deadline: float,
) -> None:
    """Send FILE's runs (through the spool), or flush the spool when no FILE is given."""
    spool = Spool(spool_dir)
    if file is not None:
        loaded = _load_runs(file)
        for one in loaded:
            spool.put(one)
        _say(f"queued {len(loaded)} run(s) from {file}")
    if not server:
        raise UploadError(
            f"no server: pass --server or set PERFATLAS_SERVER ({len(spool.pending())} run(s) "
            f"in the spool {spool.root})"
        )
    pending = len(spool.pending())
    if pending == 0:
        _say(f"nothing to upload; the spool {spool.root} is empty")
        return
    report = _flush(spool, server, token, retry_deadline)
    sys.exit(_exit_code(report))


@cli.command()
@click.option(
    "--spool",
    "spool_dir",
    envvar="PERFATLAS_AGENT_SPOOL",
    type=click.Path(path_type=Path, file_okay=False),
    help="spool folder ($PERFATLAS_AGENT_SPOOL)",
)
def status(spool_dir: Path | None) -> None:
    """What the spool holds: runs waiting (with the server's message if it failed on one),
    runs owned by a running agent, and runs the server rejected."""
    spool = Spool(spool_dir)
    others = spool.claimed_by_others()
    pending = spool.pending()
    click.echo(f"spool {spool.root}: {len(pending)} run(s) waiting to be uploaded")
    for path in pending:
        try:
            run = spool.load(path)
        except (OSError, ValueError):
            click.echo(f"  {path.stem}  (unreadable)")
            continue
        line = f"  {path.stem}  {run.get('workload')}  {run.get('agent')}  {run.get('started_at')}"
        if path.stem in others:
            line += f"  [being run by pid {others[path.stem]}]"
        click.echo(line)
        error = spool.error_of(path.stem)
        if error:
            click.echo(f"      the server failed on it: {error}")
    rejected = spool.rejected()
    if rejected:
        click.echo(f"{len(rejected)} run(s) rejected by the server (in {spool.rejected_dir}):")
        for path in rejected:
            reason = spool.rejected_dir / f"{path.stem}.reason.txt"
            text = reason.read_text().strip() if reason.exists() else "(no reason recorded)"
            click.echo(f"  {path.stem}: {text}")


def main() -> None:
    try:
        cli.main(prog_name="perfatlas-agent", standalone_mode=False)
    except click.exceptions.Abort:
        _say("aborted", fg="red")
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except AgentError as exc:
        _say(f"error: {exc}", fg="red")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        _say("interrupted", fg="red")
        sys.exit(EXIT_INTERRUPTED)
    except OSError as exc:
        _say(f"error: {exc}", fg="red")
        sys.exit(1)


if __name__ == "__main__":
    main()
